"""The weighted sum computed tile by tile with the online softmax (the ``tiling`` option).

Source: Dao et al., "FlashAttention: Fast and Memory-Efficient Exact Attention with
IO-Awareness" (NeurIPS 2022), Algorithm 1; Milakov and Gimelshein, "Online normalizer
calculation for softmax" (2018). Column tiles of ``block_cols`` keys in the outer loop,
row tiles of ``block_rows`` queries in the inner one; each row keeps its running max m and
sum ℓ, and the old sum and output are rescaled by e^(m − m_new) when a larger score arrives.
A blocked cell is −∞ and contributes 0; −∞ − (−∞) is never formed, so a fully blocked tile
(or row) gives no NaN, and a row with no allowed key ends as zeros, as the one-shot softmax.
``app.labs.flash`` is the lab's twin; a test holds the two equal to the bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.attention.ops import Matrix


@dataclass(frozen=True)
class TileTrace:
    """One inner step: the rows' m and ℓ before the tile, from the tile alone, and after."""

    col_tile: int
    row_tile: int
    rows: tuple[int, int]  # [start, stop) of the queries
    cols: tuple[int, int]  # [start, stop) of the keys
    m_before: Matrix  # (rows,) −∞ before the first tile
    m_tile: Matrix  # (rows,) m̃: the tile's row max, −∞ when the tile row is all blocked
    m_after: Matrix  # (rows,) max(m, m̃)
    l_before: Matrix
    l_tile: Matrix  # (rows,) ℓ̃ = Σ e^(s − m̃) over the tile
    l_after: Matrix
    rescale: Matrix  # (rows,) e^(m − m_new), 1 when no larger score arrived


def _exp_diff(a: Matrix, b: Matrix) -> Matrix:
    """e^(a − b), 0 where a = −∞."""
    blocked = np.isneginf(a)
    safe_b = np.where(np.isneginf(b), 0.0, b)
    with np.errstate(over="ignore"):  # a − b below −1.8e308 is −∞, whose e^ is 0
        out: Matrix = np.where(blocked, 0.0, np.exp(np.where(blocked, 0.0, a) - safe_b))
    return out


def _step(s: Matrix, v_j: Matrix, o: Matrix, m: Matrix, ell: Matrix) -> tuple[Matrix, ...]:
    """One tile: scores s (B_r, B_c), values v_j (B_c, d_v) -> new (o, m̃, m, ℓ̃, ℓ, rescale)."""
    m_tile = s.max(axis=1)
    p = _exp_diff(s, m_tile[:, None])  # P̃ (B_r, B_c)
    l_tile = p.sum(axis=1)
    m_new = np.maximum(m, m_tile)
    old, new = _exp_diff(m, m_new), _exp_diff(m_tile, m_new)
    l_new = old * ell + new * l_tile
    total = (ell * old)[:, None] * o + new[:, None] * (p @ v_j)
    return total / np.where(l_new > 0, l_new, 1.0)[:, None], m_tile, m_new, l_tile, l_new, old


def tiled_output(
    masked: Matrix, v: Matrix, block_rows: int, block_cols: int
) -> tuple[Matrix, tuple[TileTrace, ...]]:
    """masked (L_Q, L_K) with −∞ for blocked cells, v (L_K, d_v) -> (softmax(masked) V,
    the trace of every tile in Algorithm 1's order)."""
    n, n_k = masked.shape
    o = np.zeros((n, v.shape[1]))
    m, ell = np.full(n, -np.inf), np.zeros(n)
    trace = []
    for j, c0 in enumerate(range(0, n_k, block_cols)):
        c1 = min(c0 + block_cols, n_k)
        for i, r0 in enumerate(range(0, n, block_rows)):
            r1 = min(r0 + block_rows, n)
            rows = slice(r0, r1)
            o_i, m_tile, m_new, l_tile, l_new, old = _step(
                masked[rows, c0:c1], v[c0:c1], o[rows], m[rows], ell[rows]
            )
            trace.append(TileTrace(j, i, (r0, r1), (c0, c1), m[rows].copy(), m_tile, m_new,
                                   ell[rows].copy(), l_tile, l_new, old))  # fmt: skip
            o[rows], m[rows], ell[rows] = o_i, m_new, l_new
    return o, tuple(trace)
