"""Rotary position embedding (RoPE): rotate pairs of q and k by an angle per position.

Source: Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding" (2021),
§3.2–3.4. For an even width d, pair i = (x_{2i}, x_{2i+1}), i = 0 … d/2 − 1, turns by m·θ_i
at position m, with θ_i = base^(−2i/d) (base 10,000 in the paper, Eq. 15). Then

    q_m · k_n = Σ_i Re[ q̃_i conj(k̃_i) e^{i (m − n) θ_i} ]     (Eq. 16)

depends on the offset m − n only. Two ways to compute it, both here: rotate then dot
(``rotate``, ``scores``: what a model does) and the relative form (``relative_scores``),
which reads m − n only and so is unchanged to the last digit when both positions shift.
Rotate-then-dot agrees with it to rounding (about 1e-15 relative to |q||k|, growing with the
position), not to the bit: cos(mθ)cos(nθ) + sin(mθ)sin(nθ) equals cos((m − n)θ) only in
exact arithmetic. Pair i's wavelength is 2π / θ_i: from 2π (i = 0) to 2π·base^((d−2)/d).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app.labs.attend import Matrix

DEFAULT_BASE = 10_000.0
Positions = NDArray[np.float64]  # (n,) one position per row; integers, possibly shifted


def _check(d: int, base: float) -> None:
    if d < 2 or d % 2:
        raise ValueError(f"d_k: rotary embedding turns pairs, so d_k must be even, got {d}")
    if not (np.isfinite(base) and base > 1):
        raise ValueError(f"base: must be a finite number greater than 1, got {base!r}")


def thetas(d: int, base: float = DEFAULT_BASE) -> Matrix:
    """(d/2,): θ_i = base^(−2i/d), the angle pair i turns per position."""
    _check(d, base)
    i = np.arange(d // 2, dtype=np.float64)
    out: Matrix = np.float64(base) ** (-2.0 * i / d)
    return out


def wavelengths(d: int, base: float = DEFAULT_BASE) -> Matrix:
    """(d/2,): 2π / θ_i = 2π·base^(2i/d), the positions pair i takes to turn once."""
    out: Matrix = 2.0 * np.pi / thetas(d, base)
    return out


def angles(positions: Positions, d: int, base: float = DEFAULT_BASE) -> Matrix:
    """(n, d/2): m·θ_i for each row's position m."""
    pos = np.asarray(positions, dtype=np.float64)[:, None]  # (n, 1)
    out: Matrix = pos * thetas(d, base)[None, :]
    return out


def rotate(x: Matrix, positions: Positions, base: float = DEFAULT_BASE) -> Matrix:
    """(n, d) -> (n, d): pair (x_2i, x_2i+1) of row m turned by m·θ_i (the paper's Eq. 34)."""
    a = angles(positions, x.shape[1], base)  # (n, d/2)
    cos, sin = np.cos(a), np.sin(a)
    even, odd = x[:, 0::2], x[:, 1::2]  # (n, d/2) each
    out = np.empty_like(x, dtype=np.float64)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def scores(
    q: Matrix, k: Matrix, q_pos: Positions, k_pos: Positions, base: float = DEFAULT_BASE
) -> Matrix:
    """(L_Q, L_K): rotated q · rotated k (unscaled), rotate then dot."""
    return rotate(q, q_pos, base) @ rotate(k, k_pos, base).T


def relative_scores(
    q: Matrix, k: Matrix, q_pos: Positions, k_pos: Positions, base: float = DEFAULT_BASE
) -> Matrix:
    """(L_Q, L_K): Eq. 16 evaluated from the offsets m − n only."""
    d = q.shape[1]
    offset = np.asarray(q_pos, np.float64)[:, None] - np.asarray(k_pos, np.float64)[None, :]
    a = offset[:, :, None] * thetas(d, base)[None, None, :]  # (L_Q, L_K, d/2)
    qe, qo, ke, ko = q[:, 0::2], q[:, 1::2], k[:, 0::2], k[:, 1::2]
    dot = qe[:, None, :] * ke[None, :, :] + qo[:, None, :] * ko[None, :, :]  # Re(q̃ conj k̃)
    cross = qo[:, None, :] * ke[None, :, :] - qe[:, None, :] * ko[None, :, :]  # Im(q̃ conj k̃)
    out: Matrix = (dot * np.cos(a) - cross * np.sin(a)).sum(axis=-1)
    return out
