"""The choice kinds: ``attends_most`` (which key a row weighs most) and ``order`` (a
row's keys from most to least weight), with their common mistakes."""

from __future__ import annotations

import numpy as np

from app.figures import fmt
from app.lessons import mistakes
from app.lessons.asked import TIE, Answer, Asked, key_choices, ranked, score_terms


def attends_most(a: Asked) -> Answer:
    i, keys = a.allowed_row()
    w = a.head.weights
    best = ranked(a, w, keys, i, top=True)[0]
    where = f"of the keys row {i + 1} may see" if keys.size < w.shape[1] else f"in row {i + 1}"
    scores = ", ".join(fmt.value(a.head.scores[i, j]) for j in keys)
    why = (
        (
            f"{score_terms(a, i, best)} is the only score row {i + 1} may use, so "
            f"{a.key(best)} takes all its weight, {fmt.weight(w[i, best])}."
        )
        if keys.size == 1
        else (
            f"{score_terms(a, i, best)} is the largest score {where} ({scores}), and "
            f"softmax keeps the order, so {a.key(best)} gets the largest weight, "
            f"{fmt.weight(w[i, best])}."
        )
    )
    out: Answer = {
        "kind": "attends_most",
        "answer": a.key(best),
        "accept": {"choice": f"k{best + 1}"},
        "why": why,
        "choices": key_choices(a, range(w.shape[1])),
    }
    wrong = _attends_mistake(a, i, best)
    if wrong is not None:
        out["misconception"] = wrong
    return out


def _attends_mistake(a: Asked, i: int, best: int) -> dict[str, str] | None:
    """The first common mistake that names another key for row i."""
    if mistakes.is_masked(a.stages):
        m = int(np.argmax(mistakes.unmasked(a.head)[i]))
        if m != best:
            return {"answer": a.key(m), "why": (
                f"{a.key(m)} would win with the mask ignored, but the mask blocks it for "
                f"row {i + 1}: a blocked key gets weight 0."
            )}  # fmt: skip
    col = mistakes.columns(a.stages, a.head)
    m = int(np.argmax(col[i]))
    if m != best and abs(col[i, m] - col[i, best]) > TIE:
        return {"answer": a.key(m), "why": (
            f"Softmax down each column would give {a.key(m)} the most "
            f"({fmt.weight(col[i, m])}), but softmax runs along each row: row {i + 1}'s "
            "weights are shares of one total and sum to 1."
        )}  # fmt: skip
    if not a.stages.cross and i != best and a.stages.allowed[i, i]:
        return {"answer": a.key(i), "why": (
            f"A token need not attend most to itself: {score_terms(a, i, i)} is smaller "
            f"than {score_terms(a, i, best)}."
        )}  # fmt: skip
    return None


def order(a: Asked) -> Answer:
    i, keys = a.allowed_row()
    w = a.head.weights
    seq = ranked(a, w, keys, i)
    shown = " > ".join(f"{a.key(j)} {fmt.weight(w[i, j])}" for j in seq)
    scores = ", ".join(score_terms(a, i, j) for j in seq)
    out: Answer = {
        "kind": "order",
        "answer": ", ".join(a.key(j) for j in seq),
        "accept": {"sequence": [f"k{j + 1}" for j in seq]},
        "why": f"Softmax keeps the order of the scores ({scores}), so the weights of row "
        f"{i + 1} are {shown}.",
        "choices": key_choices(a, sorted(seq)),
    }
    col = mistakes.columns(a.stages, a.head)
    wrong = sorted(seq, key=lambda j: -col[i, j])
    if wrong != seq:
        out["misconception"] = {
            "answer": ", ".join(a.key(j) for j in wrong),
            "why": "That is the order softmax down each column would give; softmax runs "
            f"along row {i + 1}, where a larger score always means a larger weight.",
        }
    return out
