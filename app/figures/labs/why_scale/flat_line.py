"""C4, the flat line: under the width-scaling model the scaled weights do not change
with d_k. Runs the engine's softmax stage directly. PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.attention import softmax_stage
from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import number, steps
from app.figures.labs.parts import root_text
from app.figures.labs.why_scale.common import POW2
from app.figures.labs.words import source_of

PATTERN = np.array([2.0, 1.0, 0.0])


ITEMS = ["item 1", "item 2", "item 3"]


def _plot(t: Any, d: int, flat: Any, at: Any) -> Json:
    """The leading weight against log₂ d, unscaled and scaled, with d marked."""
    exps = np.linspace(0, 10, 81)
    lead = [float(softmax_stage(PATTERN, math.sqrt(2**e)).max_weight[0]) for e in exps]
    x = exps.tolist()
    data = [
        charts.line(
            x,
            lead,
            t.roles["k"],
            "unscaled: softmax((2, 1, 0)·√d)",
            hover=[
                f"d = {fmt.significant(2**e, 4)}: leading weight {fmt.weight(w, 6)}"
                for e, w in zip(exps, lead, strict=True)
            ],
        ),
        charts.line(
            x,
            [float(flat.max_weight[0])] * len(x),
            t.roles["q"],
            "scaled: softmax(2, 1, 0)",
            hover=[f"leading weight {fmt.weight(flat.max_weight[0], 6)}"] * len(x),
        ),
        charts.line(
            [math.log2(d)] * 2,
            [float(at.max_weight[0]), float(flat.max_weight[0])],
            t.fg,
            f"d = {d}",
            mode="markers",
            marker={"size": 11, "symbol": "diamond"},
        ),
    ]
    layout = charts.layout(
        t,
        320,
        charts.value_axis(t, "log₂ d", [0, 10], dtick=1),
        charts.value_axis(t, "leading weight", [0, 1.05], dtick=0.25),
        **charts.legend(t),
    )
    return {"data": data, "layout": layout}


QUOTES = [
    {
        **source_of("qkv-notes"),
        "text": "dividing by the square root "
        "of the key length “holds the three weights at 0.665, 0.245 and 0.090 at every "
        "width”; “with keys of length two, the divisor is about 1.414, so a raw score of 2 "
        "becomes 1.414.”",
    },
    {**source_of("course-module"), "text": "at d_k = 128, “gaps of 20 are common”."},
]


def build_flat_line(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, d, g = ctx.theme, int(v["d"]), float(v["gap"])
    flat = softmax_stage(PATTERN)
    at = softmax_stage(PATTERN, math.sqrt(d))
    cells = [
        [fmt.weight(float(a), 3), fmt.weight(float(b), 3)]
        for a, b in zip(at.weights[0], flat.weights[0], strict=True)
    ]
    eg = math.exp(g)
    caption = (
        f"At d = {d} the raw scores are (2, 1, 0)·√{d} = "
        f"({', '.join(fmt.derived(x, 2) for x in PATTERN * math.sqrt(d))}); unscaled, the "
        f"weights are {', '.join(fmt.weight(w, 3) for w in at.weights[0])}. Divided by √{d} "
        f"they are {', '.join(fmt.weight(w, 3) for w in flat.weights[0])} at every width — in "
        "this model. With random vectors the scaled weights fluctuate from draw to draw (C3)."
    )
    return lab_figure(
        FLAT_LINE,
        caption=caption,
        plot=_plot(t, d, flat, at),
        alt="Leading weight against log₂ d: unscaled rises toward 1, scaled stays at "
        f"{fmt.weight(flat.max_weight[0], 3)}.",
        tables=[table(f"The three weights at d = {d}", ["unscaled", "scaled"], ITEMS, cells)],
        readout=[
            f"a gap of {fmt.significant(g)} in the scores: one weight is e^{fmt.significant(g)} "
            f"≈ {fmt.exponential(eg)} times the other",
            f"stretch {root_text(d)}",
        ],
        quotes=QUOTES,
    )


FLAT_LINE = LabFigure(
    name="flat-line",
    entry="C4",
    title="The flat line, the stretch and the typical size",
    intro="A model of width alone: at width d the raw scores are (2, 1, 0)·√d. Unscaled, "
    "softmax sees them stretched; scaled, it sees (2, 1, 0) at every width. This model is "
    "our reconstruction of a figure in {qkv-notes} (see Sources).",
    teaching="Scaling removes the growth that comes from width alone; without it the same "
    "pattern hardens into a one-hot.",
    build=build_flat_line,
    badges=("our reconstruction",),
    controls=(
        steps("d", "Width d", 64, POW2),
        number("gap", "Gap g between two scores", 20, 0, 30, 0.5, extra={"slider": True}),
    ),
)
