"""Scaled dot-product attention for the lab computations (``app.labs`` may import numpy
only, so not the engine): softmax(Q Kᵀ / √d_k + bias) V with −∞ for blocked keys.

Source: Vaswani et al., "Attention Is All You Need" (NeurIPS 2017), Eq. 1. The same rules
as the engine's: the row maximum is subtracted before exponentiating, a blocked key's
weight is exactly 0, and a row with no allowed key is all zeros (never 0/0 = NaN).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]


def softmax_rows(scores: Matrix) -> Matrix:
    """(rows, n) -> (rows, n): each row's softmax; −∞ cells get 0; an all −∞ row gets 0s."""
    top = np.max(scores, axis=-1, keepdims=True)  # (rows, 1)
    top = np.where(np.isfinite(top), top, 0.0)  # a fully blocked row is shifted by 0
    with np.errstate(over="ignore"):  # a difference below −1.8e308 is −∞: its e^ is 0
        exps = np.exp(scores - top)  # e^(−∞) = 0 exactly
    totals = exps.sum(axis=-1, keepdims=True)
    weights: Matrix = exps / np.where(totals > 0, totals, 1.0)
    return weights


def scaled_scores(q: Matrix, k: Matrix) -> Matrix:
    """Q Kᵀ / √d_k: (L_Q, d_k) @ (d_k, L_K) -> (L_Q, L_K)."""
    out: Matrix = (q @ k.T) / math.sqrt(q.shape[-1])
    return out


def masked(scores: Matrix, allowed: BoolMatrix | None) -> Matrix:
    """(L_Q, L_K) with −∞ where ``allowed`` is False; ``scores`` itself without a mask."""
    return scores if allowed is None else np.where(allowed, scores, -np.inf)


def attention(
    q: Matrix,
    k: Matrix,
    v: Matrix,
    allowed: BoolMatrix | None = None,
    bias: Matrix | None = None,
) -> tuple[Matrix, Matrix]:
    """(weights (L_Q, L_K), output (L_Q, d_v)) of softmax(Q Kᵀ / √d_k + bias) V."""
    scores = scaled_scores(q, k)
    if bias is not None:
        scores = scores + bias
    weights = softmax_rows(masked(scores, allowed))
    return weights, weights @ v


def causal(l_q: int, l_k: int) -> BoolMatrix:
    """(L_Q, L_K): key j only when j ≤ i."""
    return np.tril(np.ones((l_q, l_k), dtype=np.bool_))
