"""D3, a row with no allowed key: the engine's guarded zeros, the naive NaN and the
uniform row a large finite negative gives. The padded example runs through
``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.attention import softmax_stage
from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, toggle
from app.figures.labs.masks.common import D1, d1_allowed, keys, queries, scores_of, shared
from app.figures.labs.parts import matrix_grid
from app.figures.labs.words import cite
from app.figures.labs.words import row as row_name
from app.labs import masks
from app.presets import RUNNING_EXAMPLE

PAD_TOKENS = ("<pad>", "I", "love", "LLMs")


LARGE_NEGATIVE = -1e9


def pad_first_body() -> dict[str, Any]:
    return {
        **RUNNING_EXAMPLE,
        "tokens": list(PAD_TOKENS),
        "x": [[0, 0, 0, 0], *RUNNING_EXAMPLE["x"]],
        "mask": "causal",
        "padding": [True, False, False, False],
    }


def d1_case_allowed(v: Mapping[str, Any], d1: Mapping[str, Any]) -> Any:
    """On D1's S: key k_1 padded with causal on, or D1's own combination."""
    n = int(d1["L"])
    if v["case"] == "pad-key0":
        return masks.causal(n, n) & masks.padding(n, [j == 0 for j in range(n)])
    return d1_allowed(d1)


def _example(v: Mapping[str, Any], ctx: FigureContext) -> tuple[Any, ...]:
    """(row labels, column labels, masked scores, allowed, warnings, weights) of the case."""
    if v["case"] == "pad-first":
        stages = ctx.run["attention"](pad_first_body())
        h = stages.head
        return (stages.tokens, stages.key_tokens, h.scaled, stages.allowed,
                list(stages.warnings), h.weights)  # fmt: skip
    d1 = shared(ctx, v)
    n = int(d1["L"])
    allowed = d1_case_allowed(v, d1)
    st = softmax_stage(scores_of(d1), allowed=allowed)
    return queries(n), keys(n), st.scores, allowed, list(st.warnings), st.weights


def _grids(
    v: Mapping[str, Any], theme: str, labels: tuple[Any, Any], weights: Any, finite: Any,
    allowed: Any, outline: Json,
) -> list[Json]:  # fmt: skip
    """The guarded weights, and (with ``large``) the weights under a −10⁹ mask."""
    rows, cols = labels
    grids = [
        grid_item(
            matrix_grid(
                "weights",
                "A (guarded)",  # two grids named A: one legend entry each in an export
                weights,
                rows,
                cols,
                theme,
                blocked=~allowed,
                hover_name="weight",
                outline=outline,
            ),
            "weights, guarded (the engine): the empty row is all zeros",
        )
    ]
    if v["large"]:
        grids.append(
            grid_item(
                matrix_grid(
                    "weights-finite",
                    "A (−10⁹ mask)",
                    finite.weights,
                    rows,
                    cols,
                    theme,
                    hover_name="weight (−10⁹ mask)",
                    outline=outline,
                    # hatched: "masked (weight 0)"; the empty row's blocked keys get 1/4
                    # each under −10⁹, so they are not drawn as removed
                    masked=~allowed & (finite.weights == 0.0),
                ),
                "weights with −10⁹ instead of −∞: the empty row is uniform",
            )
        )
    return grids


QUOTES = [
    cite(
        "course-module",
        "“Every row must keep at least one allowed key, or the softmax computes 0/0 = NaN.”",
    ),
    cite("qkv-notes", "implementations “guard that row or accept a useless output”."),
]


def build_empty_row(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    rows, cols, masked_scores, allowed, warnings, weights = _example(v, ctx)
    empty = [i for i in range(len(rows)) if not allowed[i].any()]
    r = empty[0] if empty else 0
    outline = {"rows": empty, "cols": [], "cells": []}
    # The large-finite variant: −10⁹ instead of −∞, a uniform row.
    finite = softmax_stage(np.where(allowed, masked_scores, LARGE_NEGATIVE))
    grids = _grids(v, ctx.theme.name, (rows, cols), weights, finite, allowed, outline)
    n = len(cols)
    naive = [
        [
            ("−∞" if not allowed[r, j] else fmt.value(float(masked_scores[r, j]))),
            "0" if not allowed[r, j] else "its exponential",
            "0/0 = NaN",
            "0",
            fmt.weight(float(finite.weights[r, j])),
        ]
        for j in range(n)
    ]
    who = row_name(rows[r], r) if v["case"] == "pad-first" else f"row {rows[r]}"
    caption = (
        f"{who[0].upper()}{who[1:]} has no allowed key: every score is −∞, so a naive "
        "softmax divides e^−∞ = 0 by their sum 0 and gets NaN. The engine guards the row "
        "(zeros and a warning); a large finite negative such as −10⁹ instead gives a uniform "
        f"row, 1/{n} each."
        if empty
        else "Every row has at least one allowed key, so no row needs guarding."
    )
    return lab_figure(
        EMPTY_ROW,
        caption=caption,
        alt=f"The weight grid with {who} flagged as empty, and the naive softmax of that row: NaN.",
        grids=grids,
        tables=[
            table(
                f"{who[0].upper()}{who[1:]} three ways",
                [
                    "masked score",
                    "naive exponential",
                    "naive weight",
                    "guarded weight",
                    "−10⁹ weight",
                ],
                list(cols),
                naive,
            )
        ],
        table_view=True,
        warnings=[
            f"The engine's warning, verbatim (the engine counts rows from 0): “{w}”"
            for w in warnings
        ],
        quotes=QUOTES,
    )


EMPTY_ROW = LabFigure(
    name="empty-row",
    entry="D3",
    title="A row with no allowed key",
    intro="“<pad>” in front of the running example, padded and causal: <pad> (row 1) may "
    "read only itself, and itself is padding. What should its weights be?",
    teaching="Every query needs at least one key to read. An empty row has no meaningful "
    "answer, so implementations must guard it: {course-module} and {qkv-notes} say NaN, "
    "this engine gives "
    "zeros and a warning.",
    build=build_empty_row,
    numpy="empty-row",
    badges=("our example",),
    controls=(
        choice(
            "case",
            "Example",
            "pad-first",
            (
                ("pad-first", "<pad> I love LLMs (causal)"),
                ("pad-key0", "D1's S with key k_1 padded (causal)"),
                ("d1", "D1's S with D1's masks"),
            ),
        ),
        toggle("large", "Also show −10⁹ instead of −∞", True),
    ),
    reads=(D1,),
)
