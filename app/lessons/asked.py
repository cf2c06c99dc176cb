"""A question with its state run: the stages and head it asks about, how the page names
rows and keys ("love (row 2)"), and the checks every kind shares (the row exists, it has
an allowed key, no two keys tie)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.attention import HeadStages, Stages
from app.figures import fmt
from app.lessons.format import LessonError, Question

Answer = dict[str, Any]
TIE = 1e-9  # weights closer than this are the same weight (ties are refused or all accepted)


@dataclass(frozen=True)
class Asked:
    """A question with its state run: the stages, the head it asks about, its path."""

    question: Question
    stages: Stages
    head: HeadStages
    path: str

    def at(self, key: str) -> str:
        return f"{self.path}.{key}"

    def key(self, j: int) -> str:
        """Key j (0-based) as the page names it: "love (row 2)"."""
        return f"{self.stages.key_tokens[j]} (row {j + 1})"

    def row(self, rows: int | None = None) -> int:
        """The question's row, 0-based, checked against the state's query rows (or
        ``rows``: K and V have one row per key)."""
        assert self.question.row is not None
        n = len(self.stages.tokens) if rows is None else rows
        if self.question.row > n:
            raise LessonError(self.at("row"), f"must be at most {n}: the state has {n} rows")
        return self.question.row - 1

    def allowed_row(self) -> tuple[int, np.ndarray]:
        """The row and its allowed keys (LessonError when the mask blocks them all)."""
        i = self.row()
        keys = np.flatnonzero(self.stages.allowed[i])
        if keys.size == 0:
            raise LessonError(
                self.at("row"), f"row {i + 1} has no allowed key (the mask blocks every key): "
                "its weights are all 0 and no key is weighed most"
            )  # fmt: skip
        return i, keys


def key_choices(a: Asked, keys: Any) -> list[dict[str, str]]:
    return [{"id": f"k{j + 1}", "label": a.key(int(j))} for j in keys]


def ranked(
    a: Asked, weights: np.ndarray, keys: np.ndarray, i: int, *, top: bool = False
) -> list[int]:
    """``keys`` by weight in row i, largest first; LessonError when two are tied (with
    ``top``, only a tie for the largest weight counts)."""
    order = sorted((int(j) for j in keys), key=lambda j: -weights[i, j])
    pairs = list(itertools.pairwise(order))
    for first, second in pairs[:1] if top else pairs:
        if abs(weights[i, first] - weights[i, second]) <= TIE:
            raise LessonError(
                a.at("row"), f"in row {i + 1}, {a.key(first)} and {a.key(second)} have the "
                f"same weight ({fmt.weight(weights[i, first])}): the question has no single "
                "answer; ask about another row, or use click_cell, which accepts ties"
            )  # fmt: skip
    return order


def score_terms(a: Asked, i: int, j: int) -> str:
    return f"q_{i + 1}·k_{j + 1} = {fmt.value(a.head.scores[i, j])}"


def root(d_k: int) -> str:
    """ "√d_k = √4 = 2", or "√d_k = √8 ≈ 2.83" when the root is not whole."""
    divisor = d_k**0.5
    sign = "=" if divisor.is_integer() else "≈"
    return f"√d_k = √{d_k} {sign} {fmt.value(divisor)}"
