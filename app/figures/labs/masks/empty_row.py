"""D3, a row with no allowed key: the engine's guarded zeros, the naive NaN and the
uniform row a large finite negative gives. The padded example runs through
``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.attention import softmax_stage
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, toggle
from app.figures.labs.masks.common import D1, d1_allowed, keys, queries, scores_of, shared
from app.figures.labs.parts import fmt, matrix_grid
from app.labs import lab_scripts, masks
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


def build_empty_row(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    if v["case"] == "pad-first":
        stages = ctx.run["attention"](pad_first_body())
        h = stages.head
        rows, cols = stages.tokens, stages.key_tokens
        masked_scores, allowed, warnings = h.scaled, stages.allowed, list(stages.warnings)
        weights = h.weights
    else:  # on D1's S: key k0 padded with causal on, or D1's own combination
        d1 = shared(ctx, v)
        n = int(d1["L"])
        rows, cols = queries(n), keys(n)
        if v["case"] == "pad-key0":
            allowed = masks.causal(n, n) & masks.padding(n, [j == 0 for j in range(n)])
        else:
            allowed = d1_allowed(d1)
        st = softmax_stage(scores_of(d1), allowed=allowed)
        masked_scores, warnings, weights = st.scores, list(st.warnings), st.weights
    empty = [i for i in range(len(rows)) if not allowed[i].any()]
    r = empty[0] if empty else 0
    outline = {"rows": empty, "cols": [], "cells": []}
    grids = [
        grid_item(
            matrix_grid(
                "weights",
                "A",
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
    # The large-finite variant: −1e9 instead of −∞, a uniform row.
    finite = softmax_stage(np.where(allowed, masked_scores, LARGE_NEGATIVE))
    if v["large"]:
        grids.append(
            grid_item(
                matrix_grid(
                    "weights-finite",
                    "A",
                    finite.weights,
                    rows,
                    cols,
                    theme,
                    hover_name="weight (−1e9 mask)",
                    outline=outline,
                ),
                "weights with −1e9 instead of −∞: the empty row is uniform",
            )
        )
    n = len(cols)
    naive = [
        [
            ("−∞" if not allowed[r, j] else fmt(float(masked_scores[r, j]))),
            "0" if not allowed[r, j] else "e^s",
            "0/0 = NaN",
            "0",
            fmt(float(finite.weights[r, j]), 4),
        ]
        for j in range(n)
    ]
    caption = (
        f"Row {rows[r]} (position {r}) has no allowed key: every score is −∞, so a naive "
        "softmax divides e^−∞ = 0 by their sum 0 and gets NaN. The engine guards the row "
        "(zeros and a warning); a large finite negative such as −1e9 instead gives a uniform "
        f"row, 1/{n} each."
        if empty
        else "Every row has at least one allowed key, so no row needs guarding."
    )
    return lab_figure(
        EMPTY_ROW,
        caption=caption,
        alt=f"The weight grid with row {rows[r]} flagged as empty, and the naive softmax "
        "of that row: NaN.",
        grids=grids,
        tables=[
            table(
                f"Row {rows[r]} three ways",
                ["masked score", "naive e^s", "naive weight", "guarded weight", "−1e9 weight"],
                list(cols),
                naive,
            )
        ],
        table_view=True,
        warnings=[f"The engine's warning, verbatim: “{w}”" for w in warnings],
        quotes=[
            {
                "source": "the course module",
                "text": "“Every row must keep at least one "
                "allowed key, or the softmax computes 0/0 = NaN.”",
            },
            {
                "source": "the queries/keys/values notes",
                "text": "implementations “guard that row or accept a useless output”.",
            },
        ],
    )


def numpy_empty_row(v: Mapping[str, Any], ctx: FigureContext) -> str:
    """D3's script: the padded running example through attention, or the shared S."""
    if v["case"] == "pad-first":
        allowed = masks.causal(4, 4) & masks.padding(4, [True, False, False, False])
        return lab_scripts.empty_row_attention(pad_first_body(), allowed)
    d1 = shared(ctx, v)
    n = int(d1["L"])
    if v["case"] == "pad-key0":
        allowed = masks.causal(n, n) & masks.padding(n, [j == 0 for j in range(n)])
    else:
        allowed = d1_allowed(d1)
    return lab_scripts.empty_row_scores(d1["S"], allowed)


EMPTY_ROW = LabFigure(
    name="empty-row",
    entry="D3",
    title="A row with no allowed key",
    intro="“<pad>” in front of the running example, padded and causal: position 0 may read "
    "only itself, and itself is padding. What should its weights be?",
    teaching="Every query needs at least one key to read. An empty row has no meaningful "
    "answer, so implementations must guard it: the sources say NaN, this engine gives "
    "zeros and a warning.",
    build=build_empty_row,
    numpy=numpy_empty_row,
    badges=("our example",),
    controls=(
        choice(
            "case",
            "Example",
            "pad-first",
            (
                ("pad-first", "<pad> I love LLMs (causal)"),
                ("pad-key0", "D1's S with key k0 padded (causal)"),
                ("d1", "D1's S with D1's masks"),
            ),
        ),
        toggle("large", "Also show −1e9 instead of −∞", True),
    ),
    reads=(D1,),
)
