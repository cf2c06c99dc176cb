"""E3, the reversed sentence: without positions a sentence and its reverse give the same
outputs, row for row reversed. PURE; attention runs through ``ctx.run["attention"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import toggle
from app.figures.labs.order.common import TOL, permuted_body, row_text
from app.figures.labs.parts import matrix_grid
from app.presets import RUNNING_EXAMPLE


def _grids(runs: list[tuple[str, Any]], theme: str) -> list[Json]:
    """Each run's scores and weights."""
    grids = []
    for title, st in runs:
        h = st.head
        grids.append(
            grid_item(
                matrix_grid(
                    "scores" if title == "I love LLMs" else "scores-reversed",
                    "QKᵀ",
                    h.scores,
                    st.tokens,
                    st.key_tokens,
                    theme,
                    role="scores",
                ),
                f"“{title}”: scores",
            )
        )
        grids.append(
            grid_item(
                matrix_grid(
                    "weights" if title == "I love LLMs" else "weights-reversed",
                    "A",
                    h.weights,
                    st.tokens,
                    st.key_tokens,
                    theme,
                ),
                f"“{title}”: weights",
            )
        )
    return grids


def _matched(runs: list[tuple[str, Any]]) -> tuple[list[list[str]], list[str], float]:
    """Each token's output in both runs, its badge, and the largest difference."""
    rows, readout = [], []
    worst = 0.0
    for token in RUNNING_EXAMPLE["tokens"]:
        a = runs[0][1].output[runs[0][1].tokens.index(token)]
        if len(runs) == 2:
            b = runs[1][1].output[runs[1][1].tokens.index(token)]
            gap = float(np.abs(a - b).max())
            worst = max(worst, gap)
            badge = "same values" if gap <= TOL else "different values"
            rows.append([row_text(a), row_text(b), badge])
            readout.append(f"{token}: {badge}")
        else:
            rows.append([row_text(a), "—", "—"])
    return rows, readout, worst


def build_reversed(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    positional = "sinusoidal" if v["positional"] else "none"
    body = {**RUNNING_EXAMPLE, "positional": positional}
    runs = [("I love LLMs", ctx.run["attention"](body))]
    if v["reverse"]:
        runs.append(("LLMs love I", ctx.run["attention"](permuted_body(body, [2, 1, 0]))))
    grids = _grids(runs, ctx.theme.name)
    rows, readout, worst = _matched(runs)
    if len(runs) == 1:
        caption = "Switch on the reversal to run “LLMs love I” beside the original."
    elif worst <= TOL:
        caption = (
            "Without positions the reversed run is the original with its rows and "
            "columns reordered: every token's scores, weights and output are the same."
        )
    else:
        caption = (
            f"With positions on, the reversal is a different computation: outputs "
            f"differ by up to {fmt.derived(worst, 3)}."
        )
    return lab_figure(
        REVERSED,
        caption=caption,
        alt="Score and weight grids of “I love LLMs” and, reversed, “LLMs love I”, with each "
        "token's output matched across the runs.",
        grids=grids,
        tables=[
            table(
                "Each token's output in both orders",
                ["I love LLMs", "LLMs love I", "badge"],
                list(RUNNING_EXAMPLE["tokens"]),
                rows,
            )
        ],
        table_view=True,
        readout=readout,
    )


REVERSED = LabFigure(
    name="reversed",
    entry="E3",
    title="The reversed sentence",
    intro="The running example of {tutorial}, “I love LLMs”, against “LLMs love I”.",
    teaching="With positions off, the reversed run is the original with its rows and columns "
    "reordered, and nothing else. With positions on, it is a different computation.",
    build=build_reversed,
    controls=(
        toggle("reverse", "Reverse the sentence", True),
        toggle("positional", "Add sinusoidal positions", False),
    ),
)
