"""Which script "Copy as NumPy" writes for a lab figure without a seeded experiment (the
masks, order, heads, cost, flash and rotary labs): the script's name (``LabFigure.numpy``,
data next to the figure) -> (values, ctx) -> script. A figure that
runs experiments is written by ``experiments.numpy_script`` instead, once per run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.export.numpy_scripts import (
    lab_cost,
    lab_flash,
    lab_generation,
    lab_heads,
    lab_masks,
    lab_order,
    lab_rotary,
)
from app.figures.labs.base import FigureContext, LabFigure
from app.figures.labs.cost.common import config_of
from app.figures.labs.flash import common as flash_common
from app.figures.labs.flash.traffic import NS as TRAFFIC_NS
from app.figures.labs.generation import common as generation_common
from app.figures.labs.generation.cache import models_of
from app.figures.labs.heads.split_concat import IDENTITY
from app.figures.labs.masks.common import shared
from app.figures.labs.masks.empty_row import d1_case_allowed, pad_first_body
from app.figures.labs.parts import preset_body
from app.figures.labs.rotary import common as rotary_common
from app.labs import masks
from app.presets import RUNNING_EXAMPLE

Script = Callable[[Mapping[str, Any], FigureContext], str]


def _empty_row(v: Mapping[str, Any], ctx: FigureContext) -> str:
    """D3: the padded running example through attention, or the shared S."""
    if v["case"] == "pad-first":
        allowed = masks.causal(4, 4) & masks.padding(4, [True, False, False, False])
        return lab_masks.empty_row_attention(pad_first_body(), allowed)
    d1 = shared(ctx, v)
    return lab_masks.empty_row_scores(d1["S"], d1_case_allowed(v, d1))


def _params(v: Mapping[str, Any], ctx: FigureContext) -> str:
    sizes = {k: int(v[k]) for k in ("d_model", "heads", "d_ff", "vocab", "layers")}
    return lab_cost.cost(
        "G2", "params", [config_of(**sizes, biases=bool(v["biases"]))], "the figure's sizes"
    )


def _growth(v: Mapping[str, Any], ctx: FigureContext) -> str:
    lengths = [int(v["n"]), 4 * int(v["n"])] if v["x4"] else [int(v["n"])]
    return lab_cost.cost(
        "G3",
        "growth",
        [config_of(n=s) for s in lengths],
        "N (and 4 N with x4); all tables = score_table_bytes x h x layers",
    )


def _flash(entry: str, figure: str) -> Script:
    """H1 and H2: the tiles section's state (H2 reads it)."""

    def write(v: Mapping[str, Any], ctx: FigureContext) -> str:
        tiles = v if figure == "tiles" else ctx.others["tiles"]
        q, k, val = flash_common.inputs(int(tiles["n"]), int(tiles["d"]), int(tiles["seed"]))
        return lab_flash.flash_state(entry, figure, tiles, q, k, val)

    return write


def _generation(figure: str) -> Script:
    """I1, I3, I4: the figure's own state (Q, K, V from its seed)."""

    def write(v: Mapping[str, Any], ctx: FigureContext) -> str:
        if figure == "shared":
            q, k, val = generation_common.stack(int(v["heads"]), int(v["tokens"]),
                                                int(v["width"]), int(v["seed"]))  # fmt: skip
            return lab_generation.shared(q, k, val, int(v["kv_heads"]))
        n, d = int(v["tokens"]), int(v["width"]) if figure == "decode" else generation_common.D
        q, k, val = generation_common.inputs(n, d, int(v["seed"]))
        if figure == "decode":
            return lab_generation.decode(q, k, val)
        return lab_generation.windows(q, k, val, int(v["window"]), int(v["layers"]),
                                      int(v["sinks"]), float(v["boost"]))  # fmt: skip

    return write


def _rotation(v: Mapping[str, Any], ctx: FigureContext) -> str:
    """J1: the seed's q and k, at positions 0 … N − 1 and shifted."""
    q, k = rotary_common.inputs(int(v["n"]), int(v["d"]), int(v["seed"]))
    return lab_rotary.rotation(q, k, int(v["shift"]), float(v["base"]))


SCRIPTS: dict[str, Script] = {
    "mask-kinds": lambda v, ctx: lab_masks.mask_kinds(v),
    "mask-order": lambda v, ctx: lab_masks.mask_order(shared(ctx, v), v["mask"]),
    "empty-row": _empty_row,
    "shuffle": lambda v, ctx: lab_order.shuffle(
        preset_body("dog-bit-man"), v["perm"], bool(v["positional"])
    ),
    "positional-encoding": lambda v, ctx: lab_order.positional(
        int(v["T"]), int(v["d"]), float(v["base"])
    ),
    "split-concat": lambda v, ctx: lab_heads.split_concat(
        RUNNING_EXAMPLE,
        int(v["heads"]),
        IDENTITY if v["wo_identity"] else [list(r) for r in v["w_o"]],
    ),
    "flops": lambda v, ctx: lab_cost.cost(
        "G1",
        "flops",
        [config_of(n=int(v["n"]), d_model=int(v["d_model"]), heads=int(v["heads"]))],
        "N, d_model and h of the figure; the rest the base model's",
    ),
    "params": _params,
    "growth": _growth,
    "flash-tiles": _flash("H1", "tiles"),
    "flash-online": _flash("H2", "online"),
    "flash-traffic": lambda v, ctx: lab_flash.flash_traffic(
        int(v["d"]), int(v["sram"]), list(TRAFFIC_NS)
    ),
    "generation-decode": _generation("decode"),
    "generation-cache": lambda v, ctx: lab_generation.cache(models_of(v)),
    "generation-shared": _generation("shared"),
    "generation-windows": _generation("windows"),
    "rotary-rotation": _rotation,
    "rotary-wavelengths": lambda v, ctx: lab_rotary.wavelengths(
        int(v["d"]), [float(v["base"]), float(v["other"])]
    ),
    "rotary-alibi": lambda v, ctx: lab_rotary.alibi(
        int(v["heads"]), min(int(v["head"]), int(v["heads"]) - 1), int(v["tokens"])
    ),
}


def has_script(fig: LabFigure) -> bool:
    """True when "Copy as NumPy" of ``fig`` is a script of its own (not an experiment's):
    the figure names it (``LabFigure.numpy``) and it is written here."""
    return fig.numpy is not None and fig.numpy in SCRIPTS


def figure_script(fig: LabFigure, values: Mapping[str, Any], ctx: FigureContext) -> str:
    """The standalone script recomputing ``fig``'s numbers for ``values``."""
    assert fig.numpy is not None, fig.name
    return SCRIPTS[fig.numpy](values, ctx)
