"""Small helpers the order lab's figures share: the tolerance of E1's comparison, a
permuted body, a row of numbers and dimension names. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.figures import fmt

TOL = 1e-12  # per entry: equal in arithmetic, but the summation order changes (E1)


def permuted_body(body: Mapping[str, Any], perm: Sequence[int]) -> dict[str, Any]:
    return {**body, "x": [body["x"][i] for i in perm], "tokens": [body["tokens"][i] for i in perm]}


def row_text(values: Any) -> str:
    return "(" + ", ".join(fmt.derived(float(x), 3) for x in values) + ")"


def dim_names(d: int) -> list[str]:
    return [f"d{j}" for j in range(d)]
