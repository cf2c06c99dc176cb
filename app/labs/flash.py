"""FlashAttention's tiles and online softmax, tile by tile, and its memory traffic.

Sources: Dao et al., "FlashAttention: Fast and Memory-Efficient Exact Attention with
IO-Awareness" (NeurIPS 2022), Algorithm 1 and Theorem 2; Milakov and Gimelshein, "Online
normalizer calculation for softmax" (2018). For an on-chip memory of M numbers and width d:
B_c = ⌈M / 4d⌉ key rows and B_r = min(⌈M / 4d⌉, d) query rows per tile (Algorithm 1, line 1),
T_r = ⌈N / B_r⌉ row tiles and T_c = ⌈N / B_c⌉ column tiles. The outer loop walks the
column tiles j, the inner one the row tiles i; each row keeps a running max m and sum ℓ:

    m̃ = rowmax(S_ij)   P̃ = e^(S_ij − m̃)   ℓ̃ = rowsum(P̃)
    m_new = max(m, m̃)  ℓ_new = e^(m − m_new)·ℓ + e^(m̃ − m_new)·ℓ̃
    O ← (ℓ·e^(m − m_new)·O + e^(m̃ − m_new)·P̃ V_j) / ℓ_new

so when a larger score arrives (m̃ > m) the old sum and output are rescaled by e^(m − m_new)
< 1. Blocked cells are −∞: a tile row with no allowed key contributes e^(−∞) = 0 (we never
form −∞ − (−∞)), and a row with no allowed key at all ends as zeros, as the engine's.
Theorem 2: standard attention makes Θ(Nd + N²) high-bandwidth memory accesses, FlashAttention
Θ(N²d²M⁻¹): orders of growth with the constants left out, not counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.labs.attend import BoolMatrix, Matrix


@dataclass(frozen=True)
class Blocks:
    """Algorithm 1's tile sizes for N tokens of width d and an on-chip memory of M numbers."""

    block_cols: int  # B_c = ⌈M / 4d⌉
    block_rows: int  # B_r = min(⌈M / 4d⌉, d)
    row_tiles: int  # T_r = ⌈N / B_r⌉
    col_tiles: int  # T_c = ⌈N / B_c⌉


@dataclass(frozen=True)
class Tile:
    """One inner step (column tile j, row tile i): each row's m and ℓ before and after."""

    col_tile: int
    row_tile: int
    rows: tuple[int, int]  # [start, stop) of the query rows
    cols: tuple[int, int]  # [start, stop) of the keys
    m_before: Matrix  # (rows,) running max before the tile (−∞ at first)
    m_tile: Matrix  # (rows,) m̃, the tile's row max (−∞ for a fully blocked tile row)
    m_after: Matrix  # (rows,) max(m, m̃)
    l_before: Matrix  # (rows,) running sum before
    l_tile: Matrix  # (rows,) ℓ̃
    l_after: Matrix  # (rows,) e^(m − m_new)·ℓ + e^(m̃ − m_new)·ℓ̃
    rescale: Matrix  # (rows,) e^(m − m_new): the old sum's factor (1: no larger score came)


def _positive(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: must be a positive integer, got {value!r}")


def blocks(n: int, d: int, sram: int) -> Blocks:
    """The tile sizes and counts of Algorithm 1 (``sram`` is M, in numbers)."""
    for name, value in (("n", n), ("d", d), ("sram", sram)):
        _positive(name, value)
    b_c = math.ceil(sram / (4 * d))
    b_r = min(b_c, d)
    return Blocks(b_c, b_r, math.ceil(n / b_r), math.ceil(n / b_c))


def exp_diff(a: Matrix, b: Matrix) -> Matrix:
    """e^(a − b), with 0 where a = −∞ (b = −∞ too then means "nothing yet", never NaN)."""
    blocked = np.isneginf(a)
    safe_b = np.where(np.isneginf(b), 0.0, b)
    with np.errstate(over="ignore"):  # a − b below −1.8e308 is −∞, and e^(−∞) = 0: right
        out: Matrix = np.where(blocked, 0.0, np.exp(np.where(blocked, 0.0, a) - safe_b))
    return out


def _step(s: Matrix, v_j: Matrix, o: Matrix, m: Matrix, ell: Matrix) -> tuple[Matrix, ...]:
    """One tile's update of (o, m, ℓ) for scores s (B_r, B_c) and values v_j (B_c, d_v)."""
    m_tile = s.max(axis=1)  # (B_r,) −∞ when every cell of the row is blocked
    p = exp_diff(s, m_tile[:, None])  # (B_r, B_c) P̃, 0 in blocked cells
    l_tile = p.sum(axis=1)
    m_new = np.maximum(m, m_tile)
    old, new = exp_diff(m, m_new), exp_diff(m_tile, m_new)  # e^(m − m_new), e^(m̃ − m_new)
    l_new = old * ell + new * l_tile
    total = (ell * old)[:, None] * o + new[:, None] * (p @ v_j)  # (B_r, d_v) unnormalised
    o_new = total / np.where(l_new > 0, l_new, 1.0)[:, None]
    return o_new, m_tile, m_new, l_tile, l_new, old


def tiled_attention(
    scores: Matrix, v: Matrix, block_rows: int, block_cols: int, allowed: BoolMatrix | None = None
) -> tuple[Matrix, tuple[Tile, ...]]:
    """softmax(scores) V computed tile by tile: scores (N, N_k) already scaled, v (N_k, d_v)
    -> (output (N, d_v), the trace of every tile in Algorithm 1's order)."""
    _positive("block_rows", block_rows)
    _positive("block_cols", block_cols)
    s_all = scores if allowed is None else np.where(allowed, scores, -np.inf)
    n, n_k = s_all.shape
    o = np.zeros((n, v.shape[1]))
    m, ell = np.full(n, -np.inf), np.zeros(n)
    trace = []
    for j, c0 in enumerate(range(0, n_k, block_cols)):  # outer loop: K_j, V_j
        c1 = min(c0 + block_cols, n_k)
        for i, r0 in enumerate(range(0, n, block_rows)):  # inner loop: Q_i, O_i, ℓ_i, m_i
            r1 = min(r0 + block_rows, n)
            rows = slice(r0, r1)
            o_i, m_tile, m_new, l_tile, l_new, old = _step(
                s_all[rows, c0:c1], v[c0:c1], o[rows], m[rows], ell[rows]
            )
            trace.append(Tile(j, i, (r0, r1), (c0, c1), m[rows].copy(), m_tile, m_new,
                              ell[rows].copy(), l_tile, l_new, old))  # fmt: skip
            o[rows], m[rows], ell[rows] = o_i, m_new, l_new
    return o, tuple(trace)


@dataclass(frozen=True)
class Traffic:
    """Theorem 2's high-bandwidth memory accesses as orders of growth (constants omitted)."""

    standard: float  # Θ(N·d + N²)
    tiled: float  # Θ(N²·d²·M⁻¹)
    label: str = "order of growth (Theorem 2), not a count"


def traffic(n: int, d: int, sram: int) -> Traffic:
    """The two expressions of Theorem 2 at N = n, d, M = sram."""
    for name, value in (("n", n), ("d", d), ("sram", sram)):
        _positive(name, value)
    return Traffic(standard=float(n * d + n * n), tiled=n * n * d * d / sram)
