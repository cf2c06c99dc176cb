"""Softmax on its own (Figure 12 and the labs): stretch, mask, weights and a weighted output.

For one score vector (or each row of a matrix) times ``stretch``: the weights, the
exponentials and their sum, the entropy, the largest weight p and p(1 − p), the factor
in the softmax gradient that vanishes as p → 1.

Masks (``LABS.md`` §1.2). ``allowed`` (True where row i may use key j) comes from
``mask_allowed``. With ``mask_order="before"`` (attention proper) a blocked score becomes
−∞ and its weight exactly 0, so each row sums to 1 over its allowed keys. With "after"
(a teaching contrast) the softmax of the unmasked row is taken first and the blocked
cells are then set to 0, so a row may sum to less than 1. Either way a row with no
allowed key is all zeros (weights and output) and gets a warning naming it (0-based).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.attention import ops
from app.attention.ops import BoolMatrix, Matrix
from app.attention.pipeline import InputError

MASK_ORDERS = ("before", "after")


@dataclass(frozen=True)
class SoftmaxStage:
    """Row-wise softmax of ``stretched = scores · stretch``; every array is 2-D (rows, n)."""

    scores: Matrix
    stretch: float
    stretched: Matrix
    exps: Matrix  # e^(row − exp_shift); blocked cells 0 under "before"
    exp_shift: Matrix  # (rows,) 0 unless the row would overflow
    exp_sum: Matrix  # (rows,)
    weights: Matrix
    entropy: Matrix  # (rows,) bits
    argmax: tuple[int, ...]
    max_weight: Matrix  # (rows,) p
    gradient_term: Matrix  # (rows,) p (1 − p)
    row_sums: Matrix  # (rows,) 1, less under "after", 0 for a row with no allowed key
    allowed: BoolMatrix | None = None  # (rows, n) None: every key allowed
    mask_order: str = "before"
    output: Matrix | None = None  # (rows, d_v) weights @ values, when values are given
    warnings: tuple[str, ...] = field(default=())


def mask_allowed(shape: tuple[int, int], mask: str, allowed: BoolMatrix | None) -> BoolMatrix:
    """(rows, n): the causal rule (row i uses key j iff j ≤ i) ANDed with ``allowed``."""
    if mask not in ("none", "causal"):
        raise InputError("mask", f"mask must be none or causal, got {mask!r}")
    rows, n = shape
    out = ops.causal_allowed(rows, n) if mask == "causal" else np.ones(shape, dtype=np.bool_)
    if allowed is not None:
        grid = np.atleast_2d(np.asarray(allowed, dtype=np.bool_))
        if grid.shape != shape:
            raise InputError(
                "allowed",
                f"allowed is {grid.shape[0]} × {grid.shape[1]} but the scores are "
                f"{rows} × {n}; give one flag per score",
            )
        out = out & grid
    return out


def _values_grid(values: Matrix | None, n: int) -> Matrix | None:
    """(n, d_v): a vector of n values is one column; a matrix needs one row per key."""
    if values is None:
        return None
    v = np.asarray(values, dtype=np.float64)
    grid = v[:, None] if v.ndim == 1 else v
    if grid.shape[0] != n:
        what = ("entry" if v.ndim == 1 else "row") + ("" if grid.shape[0] == 1 else "s")
        raise InputError(
            "values",
            f"values has {grid.shape[0]} {what} but there are {n} keys (scores per row); "
            "give one value (or one value row) per key",
        )
    return grid


def softmax_stage(
    scores: Matrix,
    stretch: float = 1.0,
    *,
    allowed: BoolMatrix | None = None,
    mask_order: str = "before",
    values: Matrix | None = None,
) -> SoftmaxStage:
    """Softmax of each row of ``scores`` (a vector is one row) after stretching and masking.

    ``allowed``: (rows, n) or None (no mask); ``values``: (n,) or (n, d_v) or None.
    """
    if mask_order not in MASK_ORDERS:
        raise InputError("mask_order", f"mask_order must be before or after, got {mask_order!r}")
    grid = np.atleast_2d(np.asarray(scores, dtype=np.float64))  # (rows, n)
    v = _values_grid(values, grid.shape[1])  # (n, d_v) or None
    stretched = grid * stretch
    if allowed is not None:
        allowed = mask_allowed(grid.shape, "none", allowed)  # checks the shape
        if allowed.all():
            allowed = None
    if allowed is not None and mask_order == "before":
        exp_input = ops.apply_mask(stretched, allowed)  # −inf where blocked
        weights = ops.softmax_rows(exp_input)
    else:
        exp_input = stretched
        weights = ops.softmax_rows(stretched)
        if allowed is not None:  # "after": discard, do not redistribute
            weights = np.where(allowed, weights, 0.0)
    shift = ops.exp_shift(exp_input)
    exps = np.exp(exp_input - shift[:, None])
    p = weights.max(axis=1)
    warnings: tuple[str, ...] = ()
    if allowed is not None:
        warnings = tuple(
            f"row {i} has no allowed key: its weights{' and output' if v is not None else ''} "
            "are all zero"
            for i in np.flatnonzero(~allowed.any(axis=1))
        )
    return SoftmaxStage(
        scores=grid,
        stretch=float(stretch),
        stretched=stretched,
        exps=exps,
        exp_shift=shift,
        exp_sum=exps.sum(axis=1),
        weights=weights,
        entropy=ops.entropy_bits(weights),
        argmax=tuple(int(i) for i in np.argmax(weights, axis=1)),
        max_weight=p,
        gradient_term=p * (1.0 - p),
        row_sums=weights.sum(axis=1),
        allowed=allowed,
        mask_order=mask_order,
        output=None if v is None else ops.weighted_sum(weights, v),
        warnings=warnings,
    )
