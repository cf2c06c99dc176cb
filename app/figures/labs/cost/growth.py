"""G3, what the sequence length costs: score cells, float32 memory and quadratic FLOPs
for N (and 4 N). PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import steps, toggle
from app.figures.labs.cost.common import BASE, byte_text
from app.figures.labs.parts import chart
from app.figures.labs.words import source_of
from app.labs import cost


def build_growth(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    n = int(v["n"])
    sizes = [n, 4 * n] if v["x4"] else [n]
    runs = [cost.cost(cost.Config(n=s)) for s in sizes]
    scale = BASE.heads * BASE.layers if v["all"] else 1
    where = f"× h = {BASE.heads} × {BASE.layers} layers" if v["all"] else "one head, one layer"
    rows = [
        [
            fmt.count(c.score_cells),
            byte_text(c.memory.score_table_bytes * scale),
            fmt.count(c.flops.quadratic),
        ]
        for c in runs
    ]
    labels = [f"N = {fmt.count(s)}" for s in sizes]
    cells = [c.score_cells for c in runs]
    bars, layout = charts.count_bars(
        t,
        labels,
        cells,
        [fmt.count(x) for x in cells],
        [f"{lab}: {fmt.count(x)} score cells" for lab, x in zip(labels, cells, strict=True)],
        t.roles["scores"],
        "score cells N²",
    )
    readout = [
        f"score table: {fmt.count(runs[0].score_cells)} cells",
        f"float32 memory ({where}): {byte_text(runs[0].memory.score_table_bytes * scale)}",
        f"quadratic FLOPs 2·N²·d_model: {fmt.count(runs[0].flops.quadratic)}",
    ]
    caption = (
        f"The score table is N × N = {fmt.count(n)}² = {fmt.count(runs[0].score_cells)} cells."
    )
    if v["x4"]:
        ratio = runs[1].score_cells // runs[0].score_cells
        qratio = runs[1].flops.quadratic // runs[0].flops.quadratic
        caption += (
            f" Four times the context, N = {fmt.count(4 * n)}, means ×{ratio} the cells "
            f"and ×{qratio} the quadratic work."
        )
        readout.append(f"after ×4: cells ×{ratio}, memory ×{ratio}, quadratic FLOPs ×{qratio}")
    return lab_figure(
        GROWTH,
        caption=caption,
        alt="Bars of the score cells at N" + (" and 4·N" if v["x4"] else "") + ".",
        plot=chart([bars], layout),
        readout=readout,
        tables=[
            table(
                f"What N costs (d_model = {BASE.d_model}; memory {where})",
                ["score cells N²", "float32 memory", "quadratic FLOPs"],
                labels,
                rows,
            )
        ],
        table_view=True,
        quotes=[
            {
                **source_of("textbook"),
                "text": "“Quadruple the context and the attention cost rises sixteen-fold.”",
            }
        ],
    )


GROWTH = LabFigure(
    name="growth",
    entry="G3",
    title="O(N²): what the sequence length costs",
    intro="Every query scores every key, so one head's score table has N × N cells.",
    teaching="The score table is N × N. Four times the context means sixteen times the cells "
    "and the quadratic work.",
    build=build_growth,
    numpy="growth",
    controls=(
        steps("n", "Sequence length N", 512, tuple(2**k for k in range(7, 18))),
        toggle("x4", "×4: compare with four times the context", True),
        toggle("all", f"Memory for every head and layer (× {BASE.heads} × {BASE.layers})", False),
    ),
)
