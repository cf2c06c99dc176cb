"""Sinusoidal positional encoding (LABS.md E2; the textbook chapter's Eq. 16.4).

PE(pos, 2i)   = sin(pos / base^(2i/d_model))
PE(pos, 2i+1) = cos(pos / base^(2i/d_model))

for pos = 0 … positions − 1. The layout is interleaved: dimension 2i is a sine and 2i + 1
the cosine of the same frequency, so an odd d_model ends with a sine. PE is added to X
before the projections.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float64]

DEFAULT_BASE = 10000.0


def wavelengths(d_model: int, base: float = DEFAULT_BASE) -> Matrix:
    """(d_model,): base^(2i/d_model) for each dimension, the divisor of pos; dimensions 2i
    and 2i + 1 share i, so they share one frequency."""
    pair = np.arange(d_model) // 2  # (d_model,) i for dimension 2i and 2i + 1
    return np.asarray(np.float64(base) ** (2.0 * pair / d_model), dtype=np.float64)


def sinusoidal(positions: int, d_model: int, base: float = DEFAULT_BASE) -> Matrix:
    """(positions, d_model): the sinusoidal encoding of positions 0 … positions − 1."""
    if positions < 0 or d_model < 1:
        raise ValueError("positions must be ≥ 0 and d_model ≥ 1")
    if not base > 0:
        raise ValueError("base must be greater than 0")
    pos = np.arange(positions, dtype=np.float64)[:, None]  # (positions, 1)
    angles = pos / wavelengths(d_model, base)[None, :]  # (positions, d_model)
    pe = np.empty((positions, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe
