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
    """An output row, each entry as an output (2 decimals, as in the grids)."""
    return "(" + ", ".join(fmt.output(float(x)) for x in values) + ")"


def dim_names(d: int) -> list[str]:
    """The dimensions of the positional encoding as its formula numbers them, from 0
    (dimension 2i is a sine, 2i + 1 its cosine), like pos."""
    return [f"d{j}" for j in range(d)]


def columns(d: int) -> list[str]:
    """Columns of a matrix as the page counts them, from 1."""
    return [str(j + 1) for j in range(d)]
