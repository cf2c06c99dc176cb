"""A1, the softmax table: scores become exponentials, weights that sum to 1, and a
shift that changes nothing. Runs the engine's softmax stage. PURE.
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
from app.figures.labs.controls import number, vector
from app.figures.labs.one_query.common import ITEMS
from app.figures.labs.words import source_of


def build_softmax_table(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    scores = np.asarray(v["scores"], dtype=np.float64) + float(v["shift"])
    values = np.asarray(v["values"], dtype=np.float64)
    s = softmax_stage(scores, values=values)
    exps, weights = s.exps[0] * np.exp(s.exp_shift[0]), s.weights[0]
    contrib = weights * values
    assert s.output is not None
    output = float(s.output[0][0])
    cells = [
        [
            fmt.derived(scores[j]),
            fmt.exponential(exps[j]),
            fmt.weight(weights[j], 3),
            fmt.derived(values[j]),
            fmt.derived(contrib[j]),
        ]
        for j in range(3)
    ]
    cols = ["score", "exponential", "weight", "value", "weight × value"]
    main = table("Three scores become weights and an output (3 decimals)", cols, list(ITEMS), cells)
    total = table(
        "Totals",
        ["value"],
        ["sum of the exponentials", "output Σ weight × value"],
        [[fmt.exponential(float(exps.sum()))], [fmt.derived(output)]],
    )
    top = int(np.argmax(weights))
    caption = (
        f"{ITEMS[top]} has the highest score and takes {fmt.weight(weights[top], 3)} of the weight"
        + (", not all of it" if weights[top] < 1 - 5e-4 else "")
        + f". The output {fmt.derived(output)} is the weighted average of the values "
        f"{', '.join(fmt.derived(x) for x in values)}."
    )
    shift = float(v["shift"])
    if shift != 0:
        caption += (
            f" Adding {fmt.derived(shift, 1)} to every score multiplied every exponential and "
            f"their sum by e^{fmt.derived(shift, 1)} = {fmt.exponential(math.exp(shift))}, so "
            f"the weights "
            "are those of the unshifted scores."
        )
    plot = charts.weight_bars(t, ITEMS, weights.tolist())
    return lab_figure(
        SOFTMAX_TABLE,
        caption=caption,
        plot=plot,
        tables=[main, total],
        table_view=True,
        alt="Weight bars: "
        + ", ".join(f"{i} {fmt.weight(w, 3)}" for i, w in zip(ITEMS, weights, strict=True)),
        readout=[
            f"sum of exponentials {fmt.exponential(float(exps.sum()))}",
            f"output {fmt.derived(output)}",
        ],
        quotes=[
            {
                **source_of("qkv-notes"),
                "text": "For scores 2, 1 and 0 they call the first weight “approximately two "
                "thirds”.",
            }
        ],
    )


SOFTMAX_TABLE = LabFigure(
    name="softmax-table",
    entry="A1",
    title="Three scores become weights and an output",
    intro="Edit the three scores and values. The table follows each score through its "
    "exponential to its weight, and each weight times its value into the output.",
    teaching="The top score takes most of the weight, not all of it, and the output is a "
    "weighted average of the values. Try the shift: what does adding the same number to "
    "every score change?",
    build=build_softmax_table,
    controls=(
        vector("scores", "Scores", (2, 1, 0), -10, 10, 0.1, labels=ITEMS),
        vector("values", "Values", (1, 2, 3), -10, 10, 0.1, labels=ITEMS),
        number("shift", "Shift c, added to every score", 0, -5, 5, 0.1, extra={"slider": True}),
    ),
)
