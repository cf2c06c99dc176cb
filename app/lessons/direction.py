"""The ``direction`` kind: which way a row's entropy, largest weight or one weight moves
when the state changes to the question's ``change`` (up, down or the same), computed by
running both states."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.attention import HeadStages, Stages
from app.figures import fmt
from app.lessons import asked
from app.lessons.asked import TIE, Answer, Asked
from app.lessons.format import LessonError
from app.lessons.states import StepPlan

# Lower case: the reveal quotes a label mid-sentence ("You predicted down. It is up: …").
CHOICES = [{"id": "up", "label": "up"}, {"id": "down", "label": "down"},
           {"id": "same", "label": "the same"}]  # fmt: skip
OPPOSITE = {"up": "down", "down": "up"}


def quantity(a: Asked, head: HeadStages, i: int) -> float:
    q = a.question
    if q.quantity == "entropy":
        return float(head.row_entropy[i])
    if q.quantity == "max_weight":
        return float(head.row_max[i])
    assert q.col is not None
    return float(head.weights[i, q.col - 1])


def described(a: Asked, value: float) -> str:
    if a.question.quantity == "entropy":
        return f"{fmt.derived(value, 2)} bits"
    return fmt.weight(value)


def named(a: Asked, i: int) -> str:
    q = a.question
    if q.quantity == "entropy":
        return f"the entropy of {a.at_row(i)}"
    if q.quantity == "max_weight":
        return f"the largest weight of {a.at_row(i)}"
    assert q.col is not None
    return f"the weight of {a.key(q.col - 1)} in {a.at_row(i)}"


def _head_of(a: Asked, changed: Stages, i: int) -> HeadStages:
    q = a.question
    if q.head > len(changed.heads) or i >= len(changed.tokens):
        raise LessonError(a.at("change"), f"the changed state must have row {i + 1} and head "
                          f"{q.head}, as the step's state does")  # fmt: skip
    head = changed.heads[q.head - 1]
    if q.col is not None and q.col > min(head.weights.shape[1], a.head.weights.shape[1]):
        raise LessonError(a.at("col"), "must be a key of both states")
    return head


def gap(head: HeadStages, allowed: np.ndarray, i: int) -> float:
    """The spread of row i's allowed scaled scores: largest minus smallest."""
    row = head.scaled[i][allowed[i]]
    return float(row.max() - row.min()) if row.size else 0.0


def only_scale(plan: StepPlan) -> bool | None:
    """The changed state's ``scale`` when it differs from the step's in that alone."""
    assert plan.plan is not None
    assert plan.change is not None
    before = plan.plan.request.model_dump()
    after = plan.change.request.model_dump()
    if before.pop("scale") == after.pop("scale") or before != after:
        return None
    return bool(plan.change.request.scale)


def direction(a: Asked, changed: Stages, plan: StepPlan) -> Answer:
    i = a.row()
    if not a.stages.allowed[i].any():
        raise LessonError(a.at("row"), f"{a.at_row(i)} has no allowed key in the step's state")
    head = _head_of(a, changed, i)
    before, after = quantity(a, a.head, i), quantity(a, head, i)
    way = "same" if abs(after - before) <= TIE else ("up" if after > before else "down")
    why = (
        f"{_upper(named(a, i))} is {described(a, before)} in this state and "
        f"{described(a, after)} after the change{_reason(a, changed, head, i)}."
    )
    words = {"up": "up", "down": "down", "same": "the same"}[way]
    out: Answer = {
        "kind": "direction",
        "answer": f"{words}: {described(a, before)} → {described(a, after)}",
        "accept": {"choice": way},
        "why": why,
        "choices": CHOICES,
    }
    wrong = _mistake(a, plan, way)
    if wrong is not None:
        out["misconception"] = wrong
    return out


def _mistake(a: Asked, plan: StepPlan, way: str) -> dict[str, Any] | None:
    """Scaling toggled alone, and the answer is a move: the belief that dividing by √d_k
    sharpens the weights points the other way."""
    scale_after = only_scale(plan)
    if scale_after is None or way == "same" or a.question.quantity == "weight":
        return None
    root = asked.root(a.head.d_k)
    if scale_after:
        why = (f"Turning scaling on divides every score by {root}, which shrinks the gaps "
               "between them, so the weights flatten rather than sharpen.")  # fmt: skip
    else:
        why = (f"Turning scaling off leaves the scores {root} times larger than scaled, "
               "which widens the gaps between them, so the weights sharpen rather than "
               "flatten.")  # fmt: skip
    return {"answer": OPPOSITE[way], "why": why}


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _reason(a: Asked, changed: Stages, head: HeadStages, i: int) -> str:
    """What changed in row i that the numbers show: the keys it may see, or the gap
    between its scaled scores ("" when neither changed)."""
    seen, now = int(a.stages.allowed[i].sum()), int(changed.allowed[i].sum())
    if seen != now:
        return f"; {a.at_row(i)} may see {seen} keys in this state and {now} after it"
    before, after = gap(a.head, a.stages.allowed, i), gap(head, changed.allowed, i)
    if abs(before - after) <= TIE:
        return ""
    return (
        f"; the gap between its largest and smallest scaled score goes from "
        f"{fmt.value(before)} to {fmt.value(after)}"
    )
