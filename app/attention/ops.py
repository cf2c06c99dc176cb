"""The elementary operations of scaled dot-product attention, each a pure numpy function.

Shapes use the chapter's names: L_Q queries, L_K keys, d_k the width of Q and K, d_v the
width of V. Every function is float64 in, float64 out, and never produces NaN: a blocked
cell is −inf before the softmax and exactly 0 after it.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

# exp() overflows float64 just above 709.78; inside ±EXP_SAFE the unshifted exponentials
# the chapter prints (e^2.5 = 12.182) are exact enough to show, beyond it we shift.
EXP_SAFE = 700.0
# Up to this many numbers a check reads Python floats (``tolist``) rather than calling
# numpy: on a few rows each numpy call costs more than the numbers themselves.
SMALL = 64


def project(x: Matrix, w: Matrix) -> Matrix:
    """X W: (L, d_model) @ (d_model, d) -> (L, d)."""
    return x @ w


def scores(q: Matrix, k: Matrix) -> Matrix:
    """Q Kᵀ: (L_Q, d_k) @ (d_k, L_K) -> (L_Q, L_K). Entry (i, j) is q_i · k_j."""
    return q @ k.T


def divisor(d_k: int, scale: bool) -> float:
    """√d_k when scaling is on, 1 when off."""
    return math.sqrt(d_k) if scale else 1.0


def causal_allowed(l_q: int, l_k: int) -> BoolMatrix:
    """(L_Q, L_K): query i may see key j iff j ≤ i (top-left aligned, as PyTorch's is_causal)."""
    return np.tril(np.ones((l_q, l_k), dtype=np.bool_))


def apply_mask(scaled: Matrix, allowed: BoolMatrix) -> Matrix:
    """(L_Q, L_K) -> (L_Q, L_K) with −inf wherever a key is not allowed; raw values elsewhere."""
    return np.where(allowed, scaled, -np.inf)


def row_top(m: Matrix) -> Matrix:
    """(L_Q, L_K) -> (L_Q, 1): each row's largest cell, −inf for a row with no allowed key."""
    # The ufunc's own reduce, not ``ndarray.max``: the same loop without the Python
    # wrapper, which costs as much as the work on a 3 × 3 grid.
    top: Matrix = np.maximum.reduce(m, axis=-1, keepdims=True)
    return top


def softmax_rows(masked: Matrix, top: Matrix | None = None) -> Matrix:
    """Row softmax of (L_Q, L_K) with −inf for blocked cells.

    The row maximum is subtracted first (softmax is shift-invariant, and this keeps exp()
    from overflowing). A row whose every cell is blocked becomes all zeros rather than
    0/0 = NaN: such a query attends to nothing. ``top`` (L_Q, 1), when the caller has it,
    is the row maximum of a ``masked`` known to have no fully blocked row.
    """
    row_max = row_top(masked) if top is None else top
    if top is None and (row_max == -np.inf).any():  # a fully blocked row: shift it by 0
        row_max = np.where(row_max == -np.inf, 0.0, row_max)
    exps = np.exp(masked - row_max)  # exp(−inf) = 0 exactly
    totals = np.add.reduce(exps, axis=-1, keepdims=True)
    # A row with an allowed key sums to ≥ 1 (its maximum contributes e^0); a fully
    # blocked row sums to 0 and is divided by 1, giving zeros. With ``top`` given no row
    # is blocked, so every total is already ≥ 1 (or NaN, which maximum keeps as NaN).
    weights: Matrix = exps / (totals if top is not None else np.maximum(totals, 1.0))
    return weights


def weighted_sum(weights: Matrix, v: Matrix) -> Matrix:
    """A V: (L_Q, L_K) @ (L_K, d_v) -> (L_Q, d_v). Row i blends the rows of V by row i of A."""
    return weights @ v


def entropy_bits(weights: Matrix) -> NDArray[np.float64]:
    """Per-row Shannon entropy −Σ p log₂ p in bits, with 0 log 0 = 0. Shape (L_Q,)."""
    logs = np.log2(weights, out=np.zeros(weights.shape), where=weights > 0)
    # 0 − Σ rather than −Σ: the same numbers, and −0.0 becomes 0.0 in the same call
    entropy: NDArray[np.float64] = 0.0 - np.add.reduce(weights * logs, axis=-1)
    return entropy


def exp_shift(row_scores: Matrix) -> NDArray[np.float64]:
    """Per-row amount subtracted before showing exponentials: 0 when e^s is safe to print.

    For teaching, the unshifted exponentials (e^1 = 2.718) are what a learner checks by
    hand; only rows that would overflow or underflow are shifted by their maximum.
    """
    hi = np.max(row_scores, axis=-1)  # −inf only for a fully blocked row
    hi = np.where(np.isfinite(hi), hi, 0.0)
    return np.where(np.abs(hi) <= EXP_SAFE, 0.0, hi)


def is_printable(top: Matrix) -> bool:
    """True when every row maximum ``top`` (L_Q, 1) is within ±EXP_SAFE: no row needs an
    exp_shift, and none is fully blocked (|−inf| is not within it)."""
    if top.size <= SMALL:  # a few rows: Python floats beat two numpy calls
        return top.size > 0 and all(-EXP_SAFE <= t <= EXP_SAFE for t in top.ravel().tolist())
    return bool(np.abs(top).max() <= EXP_SAFE)
