"""The cell kinds: ``cell_value`` (a stage's number within a tolerance) and ``click_cell``
(the largest or smallest cell of a stage, every tie accepted), with their common mistakes.

Stages are one head's grids as the figures draw them: Q, K, V (L × d_k or d_v), the raw
``scores``, the ``scaled`` scores (a masked cell is −∞ there, as Figure 7 shows it), the
``weights`` and Z, the head's output (L_Q × d_v).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from app.attention.ops import Matrix
from app.figures import fmt
from app.lessons import mistakes
from app.lessons.asked import TIE, Answer, Asked, root
from app.lessons.format import LessonError

# Default tolerances: a value read off a grid printed to 2 decimals, or worked by hand
# with rounded steps (an output sums several rounded products).
TOLERANCE = {"Q": 0.01, "K": 0.01, "V": 0.01, "scores": 0.01, "scaled": 0.01,
             "weights": 0.01, "Z": 0.02}  # fmt: skip
NAMES = {"Q": "Q", "K": "K", "V": "V", "scores": "raw score", "scaled": "scaled score",
         "weights": "weight", "Z": "output"}  # fmt: skip
GRIDS = ("scores", "scaled", "weights")  # L_Q × L_K: columns are keys
MAX_TERMS = 8  # a sum written out term by term up to this many terms


def grid(a: Asked, stage: str) -> Matrix:
    h = a.head
    grids = {"Q": h.q, "K": h.k, "V": h.v, "scores": h.scores, "scaled": h.masked,
             "weights": h.weights, "Z": h.output}  # fmt: skip
    return grids[stage]


def printed(stage: str) -> Callable[[float], str]:
    roles: dict[str, Callable[[float], str]] = {"weights": fmt.weight, "Z": fmt.output}
    return roles.get(stage, fmt.value)


def _sum(pairs: list[tuple[str, str]], total: str) -> str:
    if len(pairs) > MAX_TERMS:
        return f"a sum of {len(pairs)} products, {total}"
    return " + ".join(f"{x}·{y}" for x, y in pairs) + f" = {total}"


def why_value(a: Asked, stage: str, i: int, j: int) -> str:
    """One sentence: how cell (i, j) of ``stage`` is made, with this state's numbers."""
    h, s, v = a.head, a.stages, printed(stage)(grid(a, stage)[i, j])
    if stage in ("Q", "K", "V"):
        return _why_projection(a, stage, i, j, v)
    if stage == "scores":
        pairs = [(fmt.factor(x), fmt.factor(y)) for x, y in zip(h.q[i], h.k[j], strict=True)]
        return f"q_{i + 1}·k_{j + 1} = {_sum(pairs, v)}."
    if stage == "scaled":
        if not s.allowed[i, j]:
            raise LessonError(a.at("col"), f"the mask blocks this cell (row {i + 1}, column "
                              f"{j + 1}): its scaled score is −∞, not a number")  # fmt: skip
        if not s.scale:
            return f"Scaling is off, so the scaled score is the raw q_{i + 1}·k_{j + 1} = {v}."
        return (f"q_{i + 1}·k_{j + 1} = {fmt.value(h.scores[i, j])} divided by "
                f"{root(h.d_k)} gives {v}.")  # fmt: skip
    if stage == "weights":
        if not s.allowed[i, j]:
            return f"The mask blocks {a.key(j)} for row {i + 1}, so its weight is exactly 0."
        share = f"{fmt.exponential(h.exps[i, j])} of the row's {fmt.exponential(h.exps[i].sum())}"
        top = "" if h.exp_shift[i] == 0 else (
            f" (after subtracting the row's largest score, {fmt.value(h.exp_shift[i])}, "
            "which leaves the shares unchanged)"
        )  # fmt: skip
        return f"Softmax along row {i + 1}: its exponential is {share}{top}, a share of {v}."
    pairs = [(fmt.weight(w), fmt.factor(x)) for w, x in zip(h.weights[i], h.v[:, j], strict=True)]
    return f"Row {i + 1} of the weights times column {j + 1} of V: {_sum(pairs, v)}."


def _why_projection(a: Asked, stage: str, i: int, j: int, v: str) -> str:
    s, h = a.stages, a.head
    w = {"Q": s.w_q, "K": s.w_k, "V": s.w_v}[stage]
    source = s.source_x if stage != "Q" and s.cross else s.x
    if w is None or source is None:
        return f"{stage} is given directly in this state: row {i + 1}, column {j + 1} is {v}."
    width = h.q.shape[1] if stage != "V" else h.v.shape[1]
    col = (a.question.head - 1) * width + j  # this head's columns of W
    rows = "S" if stage != "Q" and s.cross else "X"
    added = " (with its positions added)" if s.positional is not None else ""
    pairs = [(fmt.factor(x), fmt.factor(y)) for x, y in zip(source[i], w[:, col], strict=True)]
    return f"Row {i + 1} of {rows}{added} times column {col + 1} of W^{stage}: {_sum(pairs, v)}."


def _cell_mistakes(a: Asked, stage: str, i: int, j: int) -> list[tuple[float, str]]:
    """(value, why) of the common mistakes that apply to this cell, most telling first."""
    h, s = a.head, a.stages
    out: list[tuple[float, str]] = []
    wrong: list[tuple[Matrix, str]] = []
    if mistakes.is_masked(s) and not s.allowed[i].all():
        wrong.append((mistakes.unmasked(h), "the mask ignored"))
    if mistakes.is_scaled(h):
        wrong.append((mistakes.unscaled(s, h), f"the division by {root(h.d_k)} forgotten"))
    wrong.append(
        (mistakes.columns(s, h), "softmax taken down each column instead of along each row")
    )
    if stage == "weights":
        out += [(m[i, j], f"That is the weight with {what}.") for m, what in wrong]
    elif stage == "Z":
        out += [
            (mistakes.blend(m, h)[i, j], f"That is the output with {what}.") for m, what in wrong
        ]
    elif stage == "scaled" and mistakes.is_scaled(h):
        out.append((h.scores[i, j], f"That is the raw score; scaled means divided by "
                    f"{root(h.d_k)}."))  # fmt: skip
    elif stage == "scores" and not s.cross and i != j and i < h.scores.shape[1]:
        out.append((h.scores[j, i], f"That is q_{j + 1}·k_{i + 1}, row {j + 1}'s score for key "
                    f"{i + 1}: scores are not symmetric (q_i·k_j is not q_j·k_i)."))  # fmt: skip
    return out


def cell_value(a: Asked) -> Answer:
    q = a.question
    assert q.stage is not None
    assert q.col is not None
    m = grid(a, q.stage)
    i = a.row(m.shape[0])
    if q.col > m.shape[1]:
        raise LessonError(a.at("col"), f"must be at most {m.shape[1]}: {q.stage} has "
                          f"{m.shape[1]} columns")  # fmt: skip
    j = q.col - 1
    why = why_value(a, q.stage, i, j)
    value = float(m[i, j])
    tol = q.tolerance if q.tolerance is not None else TOLERANCE[q.stage]
    out: Answer = {
        "kind": "cell_value",
        "answer": printed(q.stage)(value),
        "accept": {"min": round(value - tol, 12), "max": round(value + tol, 12)},
        "why": why,
    }
    for wrong, reason in _cell_mistakes(a, q.stage, i, j):
        if abs(wrong - value) > tol:
            out["misconception"] = {"answer": printed(q.stage)(wrong), "why": reason}
            break
    return out


def _extreme(a: Asked, m: Matrix, cells: np.ndarray, which: str) -> tuple[float, list[list[int]]]:
    values = m[cells[:, 0], cells[:, 1]]
    best = float(values.max() if which == "max" else values.min())
    hits = cells[np.abs(values - best) <= TIE]
    return best, [[int(r) + 1, int(c) + 1] for r, c in hits]


def _where(a: Asked, stage: str, cell: list[int]) -> str:
    r, c = cell
    if stage in GRIDS:
        return f"row {r} ({a.stages.tokens[r - 1]}), column {c} ({a.stages.key_tokens[c - 1]})"
    return f"row {r}, column {c}"


def click_cell(a: Asked) -> Answer:
    q = a.question
    assert q.stage is not None
    assert q.which is not None
    m = grid(a, q.stage)
    rows = [a.row(m.shape[0])] if q.row is not None else list(range(m.shape[0]))
    masked = q.stage in ("scaled", "weights")
    cells = np.array([(r, c) for r in rows for c in range(m.shape[1])
                      if not masked or a.stages.allowed[r, c]])  # fmt: skip
    if cells.size == 0:
        raise LessonError(a.at("row"), "the mask blocks every cell asked about")
    best, hits = _extreme(a, m, cells, q.which)
    size = "largest" if q.which == "max" else "smallest"
    scope = f"in row {rows[0] + 1}" if q.row is not None else "in the grid"
    among = " among the cells the mask allows" if masked and mistakes.is_masked(a.stages) else ""
    places = " and ".join(_where(a, q.stage, h) for h in hits)
    value = printed(q.stage)(best)
    out: Answer = {
        "kind": "click_cell",
        "answer": f"{places}: {value}",
        "accept": {"cells": hits},
        "why": f"The {size} {NAMES[q.stage]} {scope}{among} is {value}, at {places}.",
    }
    if q.stage == "weights":
        wrong_best, wrong = _extreme(a, mistakes.columns(a.stages, a.head), cells, q.which)
        if not set(map(tuple, wrong)) & set(map(tuple, hits)):
            where = " and ".join(_where(a, q.stage, h) for h in wrong)
            out["misconception"] = {"answer": where, "why": (
                f"That is where softmax down each column would put the {size} weight "
                f"({fmt.weight(wrong_best)}); softmax runs along each row."
            )}  # fmt: skip
    return out
