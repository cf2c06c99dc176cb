"""What the generation lab's figures share: the small state (Q, K, V of whole numbers
drawn from a seed), the names of its rows, and how a byte count is printed. PURE: every
number from ``app.labs`` (decoding, kv_cache, grouped, windows, sinks, attend).
"""

from __future__ import annotations

import numpy as np

from app.figures import fmt
from app.figures.labs.cost.common import byte_text
from app.labs.attend import Matrix

__all__ = ["ENTRY", "D", "byte_text", "inputs", "names", "stack", "widest"]

D = 2  # I4's rows: enough for a score, small enough to read
ENTRY = 3  # entries are whole numbers in −3 … 3: scores a person can read


def inputs(n: int, d: int, seed: int) -> tuple[Matrix, Matrix, Matrix]:
    """Q, K, V (n × d each) of whole numbers in −3 … 3, drawn in that order from
    ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.integers(-ENTRY, ENTRY + 1, (n, d)).astype(np.float64) for _ in range(3))
    return q, k, v


def stack(heads: int, n: int, d: int, seed: int) -> tuple[Matrix, Matrix, Matrix]:
    """Q, K, V of ``heads`` heads, (heads, n, d) each, whole numbers in −3 … 3 drawn in
    that order from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    shape = (heads, n, d)
    q, k, v = (rng.integers(-ENTRY, ENTRY + 1, shape).astype(np.float64) for _ in range(3))
    return q, k, v


def names(letter: str, n: int) -> list[str]:
    """'q_1' … 'q_n': what a person reads counts from 1."""
    return [f"{letter}_{i + 1}" for i in range(n)]


def widest(x: Matrix) -> str:
    """max |x| over every entry, 3 significant digits (float64 noise reads as 10⁻¹⁶)."""
    return fmt.significant(float(np.max(np.abs(x))) if x.size else 0.0, 3)
