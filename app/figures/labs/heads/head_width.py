"""F3, change h: the head width d_model / h, the divisor √(d_k) that follows it, and
the counts of ``app.labs.cost`` (the integers of ``POST /api/v1/cost``). PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import steps
from app.figures.labs.parts import chart
from app.figures.labs.words import source_of
from app.labs import cost

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
        [fmt.count(x) for x in values],
        [f"{lab}: {fmt.count(x)} Q/K/V parameters" for lab, x in zip(labels, values, strict=True)],
        t.roles["q"],
        "Q/K/V parameters",
    )
    rows = [
        ["d_k = d_model / h", f"{d} / {h}", fmt.count(d_k)],
        ["divisor √d_k", f"√{d_k}", fmt.derived(math.sqrt(d_k), 4)],
        [
            "one head's maps d_model·(2·d_k + d_v)",
            f"{d}·(3·{d_k})",
            fmt.count(c.heads.one_head_qkv),
        ],
        [
            "all heads h·d_model·(2·d_k + d_v)",
            f"{h}·{fmt.count(c.heads.one_head_qkv)}",
            fmt.count(c.heads.all_heads_qkv),
        ],
        ["one full-width head 3·d_model²", f"3·{d}²", fmt.count(c.heads.full_width_qkv)],
        ["score FLOPs h·N²·d_k", f"{h}·{n}²·{d_k}", fmt.count(c.heads.score_flops)],
        ["= N²·d_model", f"{n}²·{d}", fmt.count(n * n * d)],
    ]
    return lab_figure(
        HEAD_WIDTH,
        caption=f"{h} heads of width d_k = {d_k} divide their scores by √{d_k} = "
        f"{fmt.derived(math.sqrt(d_k), 4)}, yet hold exactly as many Q/K/V parameters "
        f"({fmt.count(c.heads.all_heads_qkv)}) as one head of width {d} and cost the same "
        f"{fmt.count(c.heads.score_flops)} score multiply-adds at N = {n}.",
        alt=f"Bars: {h} heads and one full-width head both hold {fmt.count(values[0])} Q/K/V "
        "parameters.",
        plot=chart([bars], layout),
        readout=[f"d_k = {d_k}", f"divisor √{d_k} = {fmt.derived(math.sqrt(d_k), 4)}"],
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
                **source_of("course-module"),
                "text": "h = 8 and d_model = 512, so d_k = 64: "
                "“eight heads cost about the same as one head of width 512”.",
            },
            {
                **source_of("qkv-notes"),
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
