"""B2, one position's equations on any example: its scores, weights and output, with
the grids the page highlights. Attention runs through ``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, toggle
from app.figures.labs.step_by_step.common import grid4
from app.figures.labs.words import row as row_name
from app.figures.labs.words import vec as vec_name


def _key_rows(h: Any, i: int, keys: list[str], allowed: Any) -> tuple[list[str], list[Any]]:
    """Row i against every key: s, s ÷ √d_k, a, a·v, and whether the key is in P(i)."""
    rows, cells = [], []
    for j, key in enumerate(keys):
        rows.append(vec_name("k", j, key))
        if allowed[j]:
            cells.append(
                [
                    fmt.value(float(h.scores[i, j])),
                    fmt.value(float(h.scaled[i, j])),
                    fmt.weight(float(h.weights[i, j]), 3),
                    _vec(h.weights[i, j] * h.v[j]),
                    "in P(i)",
                ]
            )
        else:
            cells.append([fmt.value(float(h.scores[i, j])), "masked", "0", "—", "outside P(i)"])
    return rows, cells


def _vec(xs: Any) -> str:
    return "[" + ", ".join(fmt.output(float(x)) for x in xs) + "]"


def _scores(xs: Any) -> str:
    return "[" + ", ".join(fmt.value(float(x)) for x in xs) + "]"


def _score_grid(h: Any, i: int, perm: list[int], tok: list[str], keys: list[str], t: Any) -> Json:
    """The scores, row i outlined, the keys of P(i) boxed, masked cells hatched."""
    blocked = ~np.isfinite(h.masked)
    return grid4(
        "scores",
        "S",
        h.scores,
        tok,
        [vec_name("k", j) for j in range(len(keys))],
        t,
        row_title="queries",
        col_title=f"keys k_1 … k_{len(keys)}",
        outline={"rows": [i], "cells": [[i, j] for j in perm]},
        masked=blocked if blocked.any() else None,
        hover=[
            [
                f"s_{a + 1}{b + 1} = q_{a + 1}·k_{b + 1} = {fmt.significant(h.scores[a, b], 10)}"
                + (" (masked: −∞ before the softmax)" if blocked[a, b] else "")
                for b in range(len(keys))
            ]
            for a in range(len(tok))
        ],
    )


def _equations(h: Any, i: int, perm: list[int], keys: list[str], scale: bool) -> list[str]:
    """The four equations of row i in words and the notation key's symbols (i, j from 1)."""
    pset = (
        "every key"
        if len(perm) == len(keys)
        else "the keys " + ", ".join(vec_name("k", j) for j in perm) + " (causal: j ≤ i)"
    )
    div = f"√d_k = √{h.d_k} = {fmt.value(h.divisor)}" if scale else "1 (scaling off)"
    return [
        f"P(i) = {pset}; s_ij = q_i·k_j = {_scores(h.scores[i, perm])}",
        f"divided by {div}: {_scores(h.scaled[i, perm])}",
        "a_ij = the exponential of each divided score over the sum of those exponentials "
        "for j in P(i) = "
        + "["
        + ", ".join(fmt.weight(float(a), 3) for a in h.weights[i, perm])
        + "]",
        f"z_i = Σ a_ij · v_j over j in P(i) = {_vec(h.output[i])}",
    ]


def build_per_position(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    body = {k: val for k, val in (ctx.body or {}).items() if k not in ("allowed",)}
    body.update(mask=str(v["mask"]), scale=bool(v["scale"]))
    st = ctx.run["attention"](body)
    h, tok, keys = st.head, list(st.tokens), list(st.key_tokens)
    i, warnings = int(v["focus"]), []
    if i >= len(tok):
        warnings.append(
            f"Row {i + 1} does not exist here (rows 1 … {len(tok)}); showing the last row, "
            f"{row_name(tok[-1], len(tok) - 1)}."
        )
        i = len(tok) - 1
    allowed = np.isfinite(h.masked[i])
    perm = [j for j in range(len(keys)) if allowed[j]]
    rows, cells = _key_rows(h, i, keys, allowed)
    eqs = [f"i = {i + 1}, {row_name(tok[i], i)}", *_equations(h, i, perm, keys, st.scale)]
    score = _score_grid(h, i, perm, tok, keys, ctx.theme)
    shape = f"{len(tok)} × {len(keys)}"
    square = (
        "square, as in self-attention" if len(tok) == len(keys) else "not square: cross-attention"
    )
    caption = (
        f"{row_name(tok[i], i)} reads {len(perm)} of {len(keys)} keys"
        + (" (causal: j ≤ i)" if len(perm) < len(keys) else "")
        + f"; its output is z_{i + 1} = {_vec(h.output[i])}. The weights are L_Q × L_K = "
        f"{shape}, {square}."
    )
    return lab_figure(
        PER_POSITION,
        caption=caption,
        grids=[grid_item(score, f"Scores s (row {i + 1} outlined, the keys it may read boxed)")],
        alt=" ".join(eqs),
        readout=eqs,
        tables=[
            table(
                f"{row_name(tok[i], i)} against every key",
                ["s", "s ÷ √d_k", "a", "a·v", "P(i)"],
                rows,
                cells,
            )
        ],
        table_view=True,
        warnings=warnings,
        choice_labels={"focus": [row_name(t, k) for k, t in enumerate(tok)]},
    )


FOCUS_ROWS = 512  # the URL's focus 0 … 511, as before


PER_POSITION = LabFigure(
    name="per-position",
    entry="B2",
    title="One position's output",
    intro="Pick a row i and read its four equations with live numbers, as "
    "{per-position-notes} write them. P(i), the keys row i may read, is every key, or k_1 … "
    "k_i under the causal mask; the others are marked masked. The state comes from the main "
    "page (default: “I love LLMs”).",
    teaching="Each position's output depends only on its own query and the keys it may see. "
    "Causal masking shortens the sum, and no position waits for another.",
    build=build_per_position,
    uses_body=True,
    controls=(
        # focus stays a 0-based index in the URL (LABS.md §2); each option is named by its
        # row and, once the state is drawn, its token (choice_labels).
        choice("focus", "Row i", 2, [(k, f"row {k + 1}") for k in range(FOCUS_ROWS)]),
        choice("mask", "Mask", "none", [("none", "none"), ("causal", "causal")]),
        toggle("scale", "Divide by √d_k", True),
    ),
)
