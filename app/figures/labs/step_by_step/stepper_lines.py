"""B1's narration: the defaults and extra rows of the stepper, and each step's lines of
arithmetic written from the engine's numbers. PURE.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.step_by_step.common import TWO, d4, n, vec
from app.figures.labs.words import row

MAX_L = 8


# Rows for positions 2 … 7 when the learner picks L > 2 (ours; d_k = 2): the first two
# rows are the preset's, so L = 2 is the course module's example exactly.
EXTRA_Q = ((2, 0), (0, 2), (-1, 1), (1, -2), (0.5, 0.5), (-2, -1))


EXTRA_K = ((2, 1), (-1, 2), (0, -2), (1, 0), (-2, -1), (0.5, 1.5))


EXTRA_V = ((2, 0), (-1, 1), (0, 2), (1, 1), (-2, 0), (0.5, -0.5))


DEFAULTS = {"q": TWO["q"], "k": TWO["k"], "v": TWO["v"]}


EXTRA = {"q": EXTRA_Q, "k": EXTRA_K, "v": EXTRA_V}


TOKENS = tuple(f"token {i + 1}" for i in range(MAX_L))


ALL_LINES = 4  # a step's caption holds every line up to this many, else the focus row's


def _dot(q: np.ndarray[Any, Any], k: np.ndarray[Any, Any]) -> str:
    terms = [f"{n(float(a))}·{n(float(b))}" for a, b in zip(q, k, strict=True)]
    products = [n(float(a * b)) for a, b in zip(q, k, strict=True)]
    joined = " + ".join(products).replace("+ −", "− ")
    return f"{' + '.join(terms)} = {joined} = {n(float(q @ k))}"


Line = tuple[int | None, str]  # (the row it is about, or None for the whole step; text)


def narration_lines(step: int, h: Any, tok: list[str], mask: str, scale: bool) -> list[Line]:
    L = len(tok)
    name = [row(t, i) for i, t in enumerate(tok)]
    if step == 1:
        return [
            (i, f"q_{i + 1}·k_{j + 1} = {_dot(h.q[i], h.k[j])}") for i in range(L) for j in range(L)
        ]
    if step == 2:
        if not scale:
            return [
                (None, "Scaling is off: the divisor is 1, so the scaled scores are the scores.")
            ]
        head = f"√{h.d_k} ≈ {n(h.divisor)}"
        if L <= 2:
            return [
                (None, f"{head}, giving the scaled rows {' and '.join(vec(r) for r in h.scaled)}.")
            ]
        return [(None, f"{head}: every score is divided by it.")] + [
            (i, f"The scaled row of {name[i]} is {vec(h.scaled[i])}.") for i in range(L)
        ]
    if step == 3:
        if mask == "none":
            return [(None, "No mask: every query sees every key, so the scores pass unchanged.")]
        return [
            (
                i,
                f"The causal row of {name[i]} is {vec(h.masked[i])}, "
                f"with weights {vec(h.weights[i])}.",
            )
            for i in range(L)
        ]
    if step == 4:
        lines: list[Line] = []
        for i in range(L):
            allowed = np.isfinite(h.masked[i])
            ex = np.where(allowed, np.exp(np.where(allowed, h.masked[i], 0.0)), 0.0)
            powers = ", ".join(f"e^{n(float(s))}" for s in h.masked[i][allowed])
            lines.append(
                (
                    i,
                    f"Row of {name[i]}: [{powers}] = {vec(ex[allowed])}, with sum "
                    f"{n(float(ex.sum()))} and weights {vec(h.weights[i])}.",
                )
            )
        return lines
    out: list[Line] = []
    for i in range(L):
        parts = [f"{n(float(w))}·{vec(h.v[j])}" for j, w in enumerate(h.weights[i]) if w > 0]
        out.append((i, f"Output of {name[i]}: {' + '.join(parts)} = {vec(h.output[i])}."))
    return out


def shown_lines(lines: list[Line], focus: int) -> list[str]:
    """The lines a step's caption holds: all of them for a small example, else the
    step's own line and the highlighted row's (the rest are in the tables)."""
    if len(lines) <= ALL_LINES:
        return [text for _, text in lines]
    return [text for row, text in lines if row is None or row == focus]


STAGE = {
    1: ("scores", "Scores Q Kᵀ"),
    2: ("scaled", "Scaled scores"),
    3: ("masked", "Masked scores"),
    4: ("weights", "Weights"),
    5: ("output", "Output"),
}


SOURCE = {2: "scores", 3: "scaled", 4: "masked"}  # the grid each step reads


def arith_lines(step: int, h: Any, i: int, j: int, scale: bool) -> str:
    """The arithmetic behind cell (i, j) of the step's grid (i, j from 0; written from 1:
    s_12 is row 1's score for k_2)."""
    a, b = i + 1, j + 1
    if step == 1:
        return f"s_{a}{b} = q_{a}·k_{b} = {_dot(h.q[i], h.k[j])}"
    if step == 2:
        scaled = d4(float(h.scaled[i, j]))
        if not scale:
            return f"s_{a}{b} ÷ 1 (scaling off) = {scaled}"
        return f"s_{a}{b} ÷ √{h.d_k}: {n(float(h.scores[i, j]))} ÷ {n(h.divisor)} = {scaled}"
    if step == 3:
        if not np.isfinite(h.masked[i, j]):
            return f"masked: k_{b} comes after q_{a} (causal: j ≤ i), so its score becomes −∞"
        return f"allowed: k_{b} is not after q_{a}, so the score stays {d4(float(h.masked[i, j]))}"
    if step == 4:
        if not np.isfinite(h.masked[i, j]):
            return f"weight of row {a} on k_{b} = 0: masked, its score was −∞"
        allowed = np.isfinite(h.masked[i])
        total = float(np.exp(h.masked[i][allowed]).sum())
        e = float(np.exp(h.masked[i, j]))
        return (
            f"weight of row {a} on k_{b} = e^{d4(float(h.masked[i, j]))} ÷ Σ = {d4(e)} ÷ "
            f"{d4(total)} = {d4(float(h.weights[i, j]))}"
        )
    terms = [
        f"{fmt.weight(float(w), 4)}·{fmt.factor(float(h.v[k, j]))}"
        for k, w in enumerate(h.weights[i])
        if w > 0
    ]
    return f"z_{a}, column {b} of d_v = {' + '.join(terms) or '0'} = {d4(float(h.output[i, j]))}"


def cell_texts(step: int, h: Any, scale: bool, shape: tuple[int, int]) -> list[list[str]]:
    return [[arith_lines(step, h, i, j, scale) for j in range(shape[1])] for i in range(shape[0])]
