"""B2, one position's equations on any example: its scores, weights and output, with
the grids the page highlights. Attention runs through ``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, integer, toggle
from app.figures.labs.step_by_step.common import d4, grid4, vec


def _key_rows(h: Any, i: int, keys: list[str], allowed: Any) -> tuple[list[str], list[Any]]:
    """Position i against every key: e, s, a, a·v, and whether the key is in P(i)."""
    rows, cells = [], []
    for j, key in enumerate(keys):
        rows.append(f"k{j} {key}")
        if allowed[j]:
            cells.append(
                [
                    d4(float(h.scores[i, j])),
                    d4(float(h.scaled[i, j])),
                    d4(float(h.weights[i, j])),
                    vec(h.weights[i, j] * h.v[j]),
                    "in P(i)",
                ]
            )
        else:
            cells.append([d4(float(h.scores[i, j])), "—", "0", "—", "outside P(i): greyed"])
    return rows, cells


def _score_grid(h: Any, i: int, perm: list[int], tok: list[str], keys: list[str], t: Any) -> Json:
    """The scores e, row i outlined and the keys of P(i) boxed."""
    return grid4(
        "scores",
        "S",
        h.scores,
        tok,
        [f"k{j}" for j in range(len(keys))],
        t,
        row_title="queries",
        col_title="keys k_0 … k_(L_K−1)",
        outline={"rows": [i], "cells": [[i, j] for j in perm]},
        hover=[
            [
                f"e_{a}{b} = q_{a}ᵀk_{b} = {fmt.significant(h.scores[a, b], 10)}"
                for b in range(len(keys))
            ]
            for a in range(len(tok))
        ],
    )


def build_per_position(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    body = {k: val for k, val in (ctx.body or {}).items() if k not in ("allowed",)}
    body.update(mask=str(v["mask"]), scale=bool(v["scale"]))
    st = ctx.run["attention"](body)
    h, tok, keys = st.head, list(st.tokens), list(st.key_tokens)
    i, warnings = int(v["focus"]), []
    if i >= len(tok):
        warnings.append(
            f"Position {i} does not exist here (positions 0 … {len(tok) - 1}); "
            f"showing position {len(tok) - 1}."
        )
        i = len(tok) - 1
    allowed = np.isfinite(h.masked[i])
    perm = [j for j in range(len(keys)) if allowed[j]]
    div = f"(√{h.d_k} = {fmt.derived(h.divisor, 4)})" if st.scale else "1 (scaling off)"
    rows, cells = _key_rows(h, i, keys, allowed)
    pset = "every key" if len(perm) == len(keys) else "{" + ", ".join(str(j) for j in perm) + "}"
    eqs = [
        f"e_{i}j = q_{i}ᵀk_j = {vec(h.scores[i, perm])} for j in P({i}) = {pset}",
        f"s_{i}j = e_{i}j / {div} = {vec(h.scaled[i, perm])}",
        f"a_{i}j = exp(s_{i}j) / Σ_(j′∈P({i})) exp(s_{i}j′) = {vec(h.weights[i, perm])}",
        f"o_{i} = Σ_(j∈P({i})) a_{i}j v_j = {vec(h.output[i])}",
    ]
    score = _score_grid(h, i, perm, tok, keys, ctx.theme)
    shape = f"{len(tok)} × {len(keys)}"
    square = (
        "square, as in self-attention" if len(tok) == len(keys) else "not square: cross-attention"
    )
    caption = (
        f"Position {i} ({tok[i]}) reads {len(perm)} of {len(keys)} keys"
        + (" (causal: j ≤ i)" if len(perm) < len(keys) else "")
        + f"; its output is "
        f"{vec(h.output[i])}. The weights are L_Q × L_K = {shape}, {square}."
    )
    return lab_figure(
        PER_POSITION,
        caption=caption,
        grids=[grid_item(score, f"Scores e (row {i} outlined, P({i}) boxed)")],
        alt=" ".join(eqs),
        readout=eqs,
        tables=[table(f"Position {i}: every key", ["e", "s", "a", "a·v", "P(i)"], rows, cells)],
        table_view=True,
        warnings=warnings,
    )


PER_POSITION = LabFigure(
    name="per-position",
    entry="B2",
    title="One position's output",
    intro="Pick a position i and read its four equations with live numbers. P(i) is every "
    "key, or {0 … i} under the causal mask; terms outside it are marked. The state comes "
    "from the main page (default: “I love LLMs”).",
    teaching="Each position's output depends only on its own query and the keys it may see. "
    "Causal masking shortens the sum, and no position waits for another.",
    build=build_per_position,
    uses_body=True,
    controls=(
        integer("focus", "Position i (from 0)", 2, 0, 511),
        choice("mask", "Mask", "none", [("none", "none"), ("causal", "causal")]),
        toggle("scale", "Divide by √d_k", True),
    ),
)
