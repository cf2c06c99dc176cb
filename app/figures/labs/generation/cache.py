"""I2, the cache's bytes: 2 × layers × kv_heads × d_head × bytes per value for every token,
for the named configurations (the data of ``GET /api/v1/kv-cache/presets``, each with its
source) and for the one the learner types. PURE: the maths and the presets are
``app.labs.kv_cache``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import choice, integer, steps
from app.figures.labs.generation.common import byte_text
from app.figures.labs.parts import chart
from app.labs import grouped, kv_cache

MAX_LAYERS = 256
MAX_HEADS = 256
MAX_D_HEAD = 1024
MAX_TOKENS = 2**20
WIDTHS = (1, 2, 4, 8)  # int8 / fp8, fp16 / bf16, float32, float64
YOURS = "yours"


def _kib(n: int) -> str:
    """Bytes as the paper prints them: KiB without decimals when whole ('800 KiB')."""
    return f"{fmt.significant(n / 1024, 6)} KiB" if n >= 1024 else f"{fmt.count(n)} bytes"


def _formula(layers: int, kv_heads: int, d_head: int, width: int) -> str:
    per = kv_cache.bytes_per_token(layers, kv_heads, d_head, width)
    return f"2 × {layers} × {kv_heads} × {d_head} × {width} = {fmt.count(per)} bytes"


def _reveal(c: kv_cache.KVConfig) -> Json:
    """Predict first: how many bytes one more token adds to the named model's cache."""
    per = kv_cache.bytes_per_token(c.layers, c.kv_heads, c.d_head, c.bytes_per_value)
    wrong = {
        "half": (per // 2, "one of K and V only"),
        "layer": (per // c.layers, "one layer only"),
        "width": (per // c.bytes_per_value, "one byte per value"),
        "row": (per // c.d_head, "one number per head, not a row of d_head"),
    }
    options: dict[str, tuple[int, str]] = {"right": (per, "")}
    for key, (n, why) in wrong.items():  # one choice per distinct number
        if all(n != m for m, _ in options.values()):
            options[key] = (n, why)
    ordered = sorted(options.items(), key=lambda kv: kv[1][0])
    return {
        "question": f"{c.name}: {c.layers} layers, {c.kv_heads} key/value heads of "
        f"d_head = {c.d_head}, {c.bytes_per_value} bytes a value. How many bytes does one "
        "more token add to its cache?",
        "choices": [[k, f"{_kib(n)} ({fmt.count(n)} bytes)"] for k, (n, _) in ordered],
        "correct": "right",
        "correct_label": f"{_kib(per)} ({fmt.count(per)} bytes)",
        "why": "One key and one value row per layer and key/value head: "
        + _formula(c.layers, c.kv_heads, c.d_head, c.bytes_per_value)
        + f" = {_kib(per)}. Source: {c.source}.",
        "answer": f"{c.name}: {_kib(per)} a token",
    }


def _preset_rows(tokens: int) -> tuple[list[str], list[list[str]]]:
    heads, cells = [], []
    for c in kv_cache.PRESETS:
        at = kv_cache.preset_cache(c)
        mine = kv_cache.preset_cache(c, tokens)
        heads.append(c.name)
        cells.append(
            [
                str(c.layers),
                str(c.heads),
                str(c.kv_heads),
                str(c.d_head),
                str(c.bytes_per_value),
                _kib(at.bytes_per_token),
                f"{fmt.count(c.context)}: {byte_text(at.bytes)}",
                byte_text(mine.bytes),
                c.source,
            ]
        )
    return heads, cells


def models_of(v: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """Every named model at its full context, and the learner's at ``tokens`` (Copy as
    NumPy's input)."""
    out = {
        c.name: {"layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads,
                 "d_head": c.d_head, "bytes_per_value": c.bytes_per_value, "tokens": c.context}
        for c in kv_cache.PRESETS
    }  # fmt: skip
    out["your model"] = {k: int(v[k]) for k in ("layers", "heads", "kv_heads", "d_head",
                                                "bytes_per_value", "tokens")}  # fmt: skip
    return out


def build_cache(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    layers, heads, kvh = int(v["layers"]), int(v["heads"]), int(v["kv_heads"])
    d_head, width, tokens = int(v["d_head"]), int(v["bytes_per_value"]), int(v["tokens"])
    mine = kv_cache.cache(layers, heads, kvh, d_head, width, tokens)
    named = kv_cache.preset(str(v["model"]))
    labels = [c.name for c in kv_cache.PRESETS] + ["your model"]
    per = [kv_cache.preset_cache(c).bytes_per_token for c in kv_cache.PRESETS]
    per.append(mine.bytes_per_token)
    bar = charts.bars(
        labels,
        per,
        [_kib(n) for n in per],
        [f"{name}: {byte_text(n)} a token" for name, n in zip(labels, per, strict=True)],
        t.roles["k"],
        t,
    )
    bar["x"], bar["y"] = bar["y"], bar["x"]  # horizontal: the names stay readable on a phone
    bar["orientation"] = "h"
    bar["marker"]["color"] = [t.roles["k"]] * len(kv_cache.PRESETS) + [t.roles["v"]]
    xa = charts.value_axis(t, "bytes per token", rangemode="tozero", tickformat="~s", nticks=4)
    ya = charts.label_axis(t, labels)
    ya["autorange"] = "reversed"
    layout = charts.layout(t, 320, xa, ya)
    layout["margin"] = {**layout["margin"], "l": 104, "r": 72}
    reveal = _reveal(named)
    rows, cells = _preset_rows(tokens)
    ratio = mine.ratio_to_full_heads
    caption = (
        f"Each token keeps one key and one value row per layer and key/value head. "
        f"{named.name}: "
        + _formula(named.layers, named.kv_heads, named.d_head, named.bytes_per_value)
        + f" = {_kib(kv_cache.preset_cache(named).bytes_per_token)} a token. Your model: "
        f"{_formula(layers, kvh, d_head, width)} a token, {byte_text(mine.bytes)} for "
        f"{fmt.count(tokens)} tokens"
        + (
            f", {fmt.significant(ratio, 4)} times less than with all {heads} heads."
            if ratio != 1
            else "."
        )
    )
    return lab_figure(
        CACHE,
        caption=caption,
        alt="Bars of the cache's bytes per token for "
        + fmt.listing([f"{name} {_kib(n)}" for name, n in zip(labels, per, strict=True)], 8)
        + ".",
        plot=chart([bar], layout),
        readout=[
            f"your model: {byte_text(mine.bytes_per_token)} a token, {byte_text(mine.bytes)} "
            f"for {fmt.count(tokens)} tokens",
            f"with all {heads} heads it would be {byte_text(mine.full_heads_bytes_per_token)} "
            f"a token: {fmt.significant(ratio, 4)} times more",
            reveal["answer"],
        ],
        tables=[
            table(
                f"The named configurations: per token, at full context, and at your "
                f"{fmt.count(tokens)} tokens",
                [
                    "layers",
                    "heads",
                    "kv heads",
                    "d_head",
                    "bytes a value",
                    "per token",
                    "full context: cache",
                    f"{fmt.count(tokens)} tokens",
                    "source",
                ],
                rows,
                cells,
            )
        ],
        reveal=reveal,
    )


def settle_cache(v: dict[str, Any]) -> dict[str, Any]:
    """kv_heads must divide heads: the largest divisor of heads not above it."""
    heads = int(v["heads"])
    kvh = next(g for g in grouped.kv_head_options(heads) if g <= int(v["kv_heads"]))
    return {**v, "kv_heads": kvh}


CACHE = LabFigure(
    name="cache",
    numpy="generation-cache",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="I2",
    title="The cache's bytes",
    intro="Every generated token leaves one key and one value row in every layer, for every "
    "key/value head: 2 × layers × kv_heads × d_head × bytes a value (Kwon et al., "
    "“Efficient Memory Management for Large Language Model Serving with PagedAttention”, "
    "2023: OPT-13B's 800 KB a token). The named models' sizes are printed in their papers "
    "and model cards, named in the table. Pick one for the question, and type your own.",
    teaching="The cache grows by the same number of bytes with every token, and for long "
    "requests it, not the weights, is what fills the GPU's memory.",
    build=build_cache,
    settle=settle_cache,
    controls=(
        choice(
            "model", "Model asked about", "OPT-13B", [(c.name, c.name) for c in kv_cache.PRESETS]
        ),
        integer("layers", "Your layers", 32, 1, MAX_LAYERS),
        integer("heads", "Your query heads", 32, 1, MAX_HEADS),
        integer(
            "kv_heads",
            "Your key/value heads",
            8,
            1,
            MAX_HEADS,
            hint="A divisor of the query heads (lowered to one otherwise).",
        ),
        integer("d_head", "Your d_head", 128, 1, MAX_D_HEAD),
        steps(
            "bytes_per_value",
            "Bytes a value",
            2,
            WIDTHS,
            names=["1 (8-bit)", "2 (fp16, bf16)", "4 (float32)", "8 (float64)"],
        ),
        integer("tokens", "Tokens in the request", 4096, 0, MAX_TOKENS),
    ),
)
