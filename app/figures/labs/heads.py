"""Lab `heads` (LABS.md §8, entries F1–F3): four hand-set heads, split / concatenate / mix
with W^O, and the divisor that follows the head width.

PURE. F1 and F2 run attention through ``ctx.run["attention"]`` on the presets
``four-heads`` and ``two-heads``; F3 counts with ``app.labs.cost`` (the integers of
``POST /api/v1/cost``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import choice, matrix, steps, toggle
from app.figures.labs.labs2_common import chart, count, fmt, item, matrix_grid
from app.inputs.presets import (
    FOUR_HEADS_NAMES,
    FOUR_HEADS_TOKENS,
    RUNNING_EXAMPLE,
    W_O_TWO_HEADS,
    get_preset,
)
from app.labs import cost, lab_scripts

# ---------------------------------------------------------------- F1 four heads

HEAD_CHOICES = (("all", "all four"), *((str(h), f"head {h}") for h in range(1, 5)))
ROW_CHOICES = tuple((str(i), f"{i} {t}") for i, t in enumerate(FOUR_HEADS_TOKENS))


def _looks_at(weights: Any, row: int) -> str:
    parts = [
        f"“{FOUR_HEADS_TOKENS[j]}” ({fmt(float(w))})" for j, w in enumerate(weights[row]) if w > 0
    ]
    return " and ".join(parts)


def build_four_heads(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    found = get_preset("four-heads")
    assert found is not None
    stages = ctx.run["attention"](found["body"])
    tokens = list(FOUR_HEADS_TOKENS)
    row = int(v["row"])
    chosen = range(4) if v["head"] == "all" else [int(v["head"]) - 1]
    outline = {"rows": [row], "cols": [], "cells": []}
    if v["stack"] == "tensor":
        tensor = np.concatenate([stages.heads[h].weights for h in chosen], axis=0)
        rows = [f"h{h + 1} · {t}" for h in chosen for t in tokens]
        grids = [
            item(
                matrix_grid(
                    "weights",
                    "A",
                    tensor,
                    rows,
                    tokens,
                    theme,
                    dp=1,
                    row_title="head · query",
                    col_title="key",
                ),
                f"the stacked tensor: {len(chosen)} × 10 × 10, one 10 × 10 slice per head",
            )
        ]
    else:
        grids = [
            item(
                matrix_grid(
                    f"weights-h{h + 1}",
                    "A",
                    stages.heads[h].weights,
                    tokens,
                    tokens,
                    theme,
                    dp=1,
                    row_title="query",
                    col_title="key",
                    outline=outline,
                ),
                f"head {h + 1}: {FOUR_HEADS_NAMES[h]}",
            )
            for h in chosen
        ]
    readout = [
        f"head {h + 1} ({FOUR_HEADS_NAMES[h]}): “{tokens[row]}” looks at "
        f"{_looks_at(stages.heads[h].weights, row)}"
        for h in chosen
    ]
    sums = {float(s) for h in stages.heads for s in h.row_sum}
    return lab_figure(
        FOUR_HEADS,
        caption=f"Four heads read the same ten tokens at once, each in its own way; every row "
        f"of every head sums to {fmt(min(sums))}. These weights are set by hand to mimic "
        "what trained heads often do: trained heads are found, not assigned.",
        alt="Four 10 × 10 attention maps over “The animal didn't cross the street because it "
        "was tired”: previous word, it → animal, verb → subject, start and because.",
        grids=grids,
        readout=readout,
        tables=[
            table(
                f"Head {h + 1}: {FOUR_HEADS_NAMES[h]} (1 decimal)",
                tokens,
                tokens,
                [[fmt(float(x), 1) for x in r] for r in stages.heads[h].weights],
            )
            for h in chosen
        ],
        quotes=[
            {
                "source": "the course module",
                "text": "“The four tables stack into one tensor, a layer per head.”",
            },
            {
                "source": "the textbook chapter",
                "text": "nobody assigns heads their jobs; training finds them.",
            },
        ],
    )


FOUR_HEADS = LabFigure(
    name="four-heads",
    entry="F1",
    title="Four hand-set heads on one sentence",
    intro="“The animal didn't cross the street because it was tired”, read by four heads at "
    "once. Pick a query token to see where it looks in each head.",
    teaching="Heads run in parallel over the same tokens and can attend in entirely different "
    "ways. Training finds their patterns; nobody designs them.",
    build=build_four_heads,
    badges=("our example",),
    controls=(
        choice("head", "Head", "all", HEAD_CHOICES),
        choice(
            "stack",
            "Show",
            "heatmaps",
            (("heatmaps", "four heatmaps"), ("tensor", "one stacked tensor")),
        ),
        choice("row", "Query token", "7", ROW_CHOICES),
    ),
)


# ---------------------------------------------------------------- F2 split, concat, W^O

SPLITS = (("1", "1 head of width 4"), ("2", "2 heads of width 2"), ("4", "4 heads of width 1"))
IDENTITY = [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]


def build_split_concat(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    h = int(v["heads"])
    w_o = IDENTITY if v["wo_identity"] else [list(r) for r in v["w_o"]]
    stages = ctx.run["attention"]({**RUNNING_EXAMPLE, "heads": h, "w_o": w_o})
    tokens = list(stages.tokens)
    width = stages.concat.shape[1] // h
    grids = [
        item(
            matrix_grid(f"weights-h{i + 1}", "A", hd.weights, tokens, tokens, theme),
            f"head {i + 1}: columns {i * width}–{(i + 1) * width - 1} of Q, K, V; "
            f"divisor √{hd.d_k} = {fmt(hd.divisor, 3)}",
        )
        for i, hd in enumerate(stages.heads)
    ]
    cols = [f"h{i // width + 1}·{i % width}" for i in range(stages.concat.shape[1])]
    grids.append(
        item(
            matrix_grid(
                "concat",
                "concat",
                stages.concat,
                tokens,
                cols,
                theme,
                dp=3,
                role="z",
                col_title="head · column",
            ),
            "the head outputs side by side (columns named by head)",
        )
    )
    grids.append(
        item(
            matrix_grid(
                "final",
                "output",
                stages.output,
                tokens,
                [str(j) for j in range(stages.output.shape[1])],
                theme,
                dp=3,
                role="z",
            ),
            "identity W^O: the output is the concatenation"
            if v["wo_identity"]
            else "concat × W^O: mixed back to model width",
        )
    )
    caption = (
        f"{h} head{'s' * (h != 1)} of width {width}: each sees only its own {width} columns "
        f"of Q, K and V and divides by √{width} = {fmt(math.sqrt(width), 3)}. "
        + (
            "With W^O the identity, the output is the concatenation itself."
            if v["wo_identity"]
            else "W^O mixes the concatenated outputs back to d_model = 4."
        )
    )
    return lab_figure(
        SPLIT_CONCAT,
        caption=caption,
        alt=f"The weights of {h} heads side by side, their concatenated outputs and the "
        "output after W^O.",
        grids=grids,
        readout=[
            f"concat is {stages.concat.shape[0]} × {stages.concat.shape[1]}; "
            f"W^O is {len(w_o)} × {len(w_o[0])}; output is "
            f"{stages.output.shape[0]} × {stages.output.shape[1]}"
        ],
        tables=[
            table(
                "Output after W^O (3 decimals)",
                cols[: stages.output.shape[1]],
                tokens,
                [[fmt(float(x), 3) for x in r] for r in stages.output],
            )
        ],
        quotes=[
            {
                "source": "the course module",
                "text": "“The output projection W^O ∈ "
                "ℝ^{(h·d_v)×d_model} maps the joined outputs back to model width.”",
            }
        ],
    )


SPLIT_CONCAT = LabFigure(
    name="split-concat",
    entry="F2",
    title="Split, concatenate, mix with W^O",
    intro="The running example's two-head preset: change the number of heads, edit W^O or "
    "set it to the identity to see the concatenation alone.",
    teaching="Each head sees only its slice of columns and divides by its own √d_k. "
    "Concatenation lays the outputs side by side, and W^O mixes them back to model width.",
    build=build_split_concat,
    numpy=lambda v, ctx: lab_scripts.split_concat(
        RUNNING_EXAMPLE,
        int(v["heads"]),
        IDENTITY if v["wo_identity"] else [list(r) for r in v["w_o"]],
    ),
    controls=(
        choice("heads", "Heads h", "2", SPLITS),
        toggle("wo_identity", "W^O = identity (h·d_v = d_model = 4)", False),
        matrix(
            "w_o",
            "W^O (the tutorial's)",
            W_O_TWO_HEADS,
            -10,
            10,
            1,
            extra={"disabled_by": "wo_identity"},
        ),
    ),
)


# ---------------------------------------------------------------- F3 head width

D_MODELS = (64, 128, 256, 512, 1024)
HEAD_COUNTS = (1, 2, 4, 8, 16, 32, 64)  # every one divides every d_model offered


def build_head_width(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    d, h, n = int(v["d_model"]), int(v["heads"]), int(v["n"])
    c = cost.cost(cost.Config(n=n, d_model=d, heads=h))
    d_k = c.heads.d_k
    labels = [f"{h} head{'s' * (h != 1)} of width {d_k}", f"1 head of width {d}"]
    values = [c.heads.all_heads_qkv, c.heads.full_width_qkv]
    bars, layout = charts.count_bars(
        t,
        labels,
        values,
        [count(x) for x in values],
        [f"{lab}: {count(x)} Q/K/V parameters" for lab, x in zip(labels, values, strict=True)],
        t.roles["q"],
        "Q/K/V parameters",
    )
    rows = [
        ["d_k = d_model / h", f"{d} / {h}", count(d_k)],
        ["divisor √d_k", f"√{d_k}", fmt(math.sqrt(d_k), 4)],
        ["one head's maps d_model·(2·d_k + d_v)", f"{d}·(3·{d_k})", count(c.heads.one_head_qkv)],
        [
            "all heads h·d_model·(2·d_k + d_v)",
            f"{h}·{count(c.heads.one_head_qkv)}",
            count(c.heads.all_heads_qkv),
        ],
        ["one full-width head 3·d_model²", f"3·{d}²", count(c.heads.full_width_qkv)],
        ["score FLOPs h·N²·d_k", f"{h}·{n}²·{d_k}", count(c.heads.score_flops)],
        ["= N²·d_model", f"{n}²·{d}", count(n * n * d)],
    ]
    return lab_figure(
        HEAD_WIDTH,
        caption=f"{h} heads of width d_k = {d_k} divide their scores by √{d_k} = "
        f"{fmt(math.sqrt(d_k), 4)}, yet hold exactly as many Q/K/V parameters "
        f"({count(c.heads.all_heads_qkv)}) as one head of width {d} and cost the same "
        f"{count(c.heads.score_flops)} score multiply-adds at N = {n}.",
        alt=f"Bars: {h} heads and one full-width head both hold {count(values[0])} Q/K/V "
        "parameters.",
        plot=chart([bars], layout),
        readout=[f"d_k = {d_k}", f"divisor √{d_k} = {fmt(math.sqrt(d_k), 4)}"],
        tables=[
            table(
                "What h changes, and what it does not",
                ["formula", "count"],
                [r[0] for r in rows],
                [r[1:] for r in rows],
            )
        ],
        table_view=True,
        quotes=[
            {
                "source": "the course module",
                "text": "h = 8 and d_model = 512, so d_k = 64: "
                "“eight heads cost about the same as one head of width 512”.",
            },
            {
                "source": "the queries/keys/values notes",
                "text": "“Two heads with different widths need different divisors.”",
            },
        ],
    )


HEAD_WIDTH = LabFigure(
    name="head-width",
    entry="F3",
    title="The divisor follows the head width; heads are free",
    intro="Split d_model into h heads: the width of each head, and so its divisor, changes; "
    "the parameter and FLOP budget does not.",
    teaching="Splitting into heads changes the divisor (the root of the per-head width), not "
    "the parameter or FLOP budget.",
    build=build_head_width,
    controls=(
        steps("d_model", "d_model", 512, D_MODELS),
        steps("heads", "Heads h", 8, HEAD_COUNTS),
        steps("n", "Tokens N", 512, (128, 256, 512, 1024, 2048, 4096)),
    ),
)

FIGURES = (FOUR_HEADS, SPLIT_CONCAT, HEAD_WIDTH)
