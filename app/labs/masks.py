"""The masks of LABS.md D1 as allowed-sets, and their additive form. Pure numpy.

Query i and key j count from 0. Each mask is an (L_Q, L_K) bool array, True where query
i may read key j; a mask's additive form is 0 where allowed and −∞ where blocked, so
adding additive masks is ANDing allowed sets (−∞ + anything = −∞).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

BoolMatrix = NDArray[np.bool_]
Matrix = NDArray[np.float64]


def causal(l_q: int, l_k: int) -> BoolMatrix:
    """(L_Q, L_K): key j only when j ≤ i (top-left aligned, as the engine's)."""
    return np.tril(np.ones((l_q, l_k), dtype=np.bool_))


def padding(l_q: int, padded: Sequence[bool]) -> BoolMatrix:
    """(L_Q, L_K): a padded key is blocked for every query."""
    keep = ~np.asarray(padded, dtype=np.bool_)  # (L_K,)
    return np.broadcast_to(keep[None, :], (l_q, keep.size)).copy()


def window(l_q: int, l_k: int, width: int, causal_too: bool = False) -> BoolMatrix:
    """(L_Q, L_K) sliding window of ``width`` w (ours): |i − j| < w, or 0 ≤ i − j < w
    with causal."""
    if width < 1:
        raise ValueError("width must be at least 1")
    gap = np.arange(l_q)[:, None] - np.arange(l_k)[None, :]  # i − j
    inside: BoolMatrix = (gap >= 0) & (gap < width) if causal_too else np.abs(gap) < width
    return inside


def additive(allowed: BoolMatrix) -> Matrix:
    """0 where allowed, −∞ where blocked."""
    return np.where(allowed, 0.0, -np.inf)


def combine(masks: Sequence[BoolMatrix], shape: tuple[int, int]) -> BoolMatrix:
    """The AND of ``masks`` (every cell allowed when there are none)."""
    out = np.ones(shape, dtype=np.bool_)
    for m in masks:
        out = out & m
    return out
