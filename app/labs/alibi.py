"""ALiBi: a linear bias −m·(i − j) on each score, a different slope m per head.

Source: Press, Smith and Lewis, "Train Short, Test Long: Attention with Linear Biases
Enables Input Length Extrapolation" (ICLR 2022), §3. No positional embedding: query i's
score for key j ≤ i gets −m·(i − j) before the softmax. For n heads, n a power of two, the
slopes are the geometric sequence 2^(−8/n), 2^(−16/n), …, 2^(−8) (8 heads: 1/2, 1/4, …,
1/256; 16 heads: 1/√2, 1/2, …, 1/256). For other n the paper's reference code takes the n₀
slopes of the closest power of two below, n₀ = 2^⌊log₂ n⌋, then the first n − n₀ of every
other slope of 2·n₀ heads (the ones between n₀'s, interleaved in value).

The locality each head gets: with every content score equal, the weights are the softmax
of the bias alone (``flat_weights``): query i's weight on key j falls by e^(−m) per step
back, so a steep head reads its neighbours and a flat one the whole prefix; the mean
distance Σ_j w_ij (i − j) (``mean_distance``) says how far back a head reads on average.
"""

from __future__ import annotations

import numpy as np

from app.labs.attend import Matrix, causal, softmax_rows


def _power_of_two_slopes(n: int) -> list[float]:
    """m_h = 2^(−8h/n) for h = 1 … n (n a power of two)."""
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def slopes(heads: int) -> Matrix:
    """(heads,): the slope m of each head, in the paper's order. For a power of two that is
    steepest first; otherwise the n₀ of the power of two below come first, steepest first,
    then the others, which fall between them (6 heads: 1/4, 1/16, 1/64, 1/256, 1/2, 1/8)."""
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
        raise ValueError(f"heads: must be a positive integer, got {heads!r}")
    n0 = 1 << (heads.bit_length() - 1)  # 2^⌊log₂ heads⌋
    out = _power_of_two_slopes(n0)
    if n0 < heads:  # the odd-numbered slopes of 2·n₀ heads fall between n₀'s
        out += _power_of_two_slopes(2 * n0)[0::2][: heads - n0]
    return np.asarray(out, dtype=np.float64)


def distances(l_q: int, l_k: int) -> Matrix:
    """(L_Q, L_K): i − j, the distance from query i back to key j (negative for j > i)."""
    out: Matrix = (np.arange(l_q)[:, None] - np.arange(l_k)[None, :]).astype(np.float64)
    return out


def bias(slope: float, l_q: int, l_k: int) -> Matrix:
    """(L_Q, L_K): −m·(i − j), added to the scaled scores before the softmax (a causal
    mask still blocks j > i, as in the paper's decoder)."""
    out: Matrix = -slope * distances(l_q, l_k)
    return out


def biases(heads: int, l_q: int, l_k: int) -> Matrix:
    """(heads, L_Q, L_K): every head's bias."""
    out: Matrix = -slopes(heads)[:, None, None] * distances(l_q, l_k)[None, :, :]
    return out


def flat_weights(slope: float, n: int) -> Matrix:
    """(n, n): softmax_j(−m·(i − j)) over keys j ≤ i: the weights when every content score
    is equal, what the bias alone makes of each causal row."""
    out: Matrix = softmax_rows(np.where(causal(n, n), bias(slope, n, n), -np.inf))
    return out


def mean_distance(weights: Matrix) -> Matrix:
    """(n,): Σ_j w_ij (i − j), how far back each query reads on average."""
    n_q, n_k = weights.shape
    out: Matrix = (weights * np.maximum(distances(n_q, n_k), 0.0)).sum(axis=1)
    return out
