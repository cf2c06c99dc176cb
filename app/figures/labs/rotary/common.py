"""What the rotary lab's figures share: the small state of J1 (q and k drawn from a seed),
the rotary scores at two placements, and how slopes and positions are printed. PURE:
every number from ``app.labs.rotary`` and ``app.labs.alibi``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.figures import fmt
from app.labs import rotary
from app.labs.attend import Matrix

MAX_N = 8  # tokens of J1: the score grids stay printed tables
WIDTHS = (2, 4, 6, 8)  # d of J1 (even: RoPE turns pairs)
# Positions stay below 4096, where rotate-then-dot is within TOL of the offset-only form
# (its rounding grows with the position: tests/unit/test_labs_rotary_alibi.py).
MAX_SHIFT = 4096 - MAX_N
ENTRY = 3  # q and k entries are whole numbers in −3 … 3
BASES = (10_000.0, 100_000.0)  # RoFormer's base, and the larger one of newer models
# Rotate-then-dot agrees with the offset-only form to rounding, not to the bit: the
# tolerance of "the same score", relative to |q||k| (app/labs/rotary.py says why).
TOL = 1e-12


@dataclass(frozen=True)
class Placement:
    """q and k at positions ``start`` … ``start`` + N − 1, rotated and dotted."""

    start: int
    positions: Matrix  # (N,)
    scores: Matrix  # (N, N) R_m q · R_n k, rotate then dot (what a model computes)
    relative: Matrix  # (N, N) Eq. 16 from m − n only


@dataclass(frozen=True)
class State:
    q: Matrix  # (N, d)
    k: Matrix  # (N, d)
    base: float
    here: Placement  # positions 0 … N − 1
    moved: Placement  # positions s … s + N − 1

    @property
    def n(self) -> int:
        return int(self.q.shape[0])

    @property
    def d(self) -> int:
        return int(self.q.shape[1])

    @property
    def shift(self) -> int:
        return self.moved.start - self.here.start

    @property
    def max_diff(self) -> float:
        """max |moved − here| of rotate-then-dot."""
        return float(np.max(np.abs(self.moved.scores - self.here.scores)))

    @property
    def bound(self) -> Matrix:
        """(N, N) the tolerance of each cell: TOL·(1 + |q_m||k_n|)."""
        norms = np.linalg.norm(self.q, axis=1)[:, None] * np.linalg.norm(self.k, axis=1)[None, :]
        out: Matrix = TOL * (1.0 + norms)
        return out

    @property
    def same(self) -> bool:
        return bool(np.all(np.abs(self.moved.scores - self.here.scores) <= self.bound))

    @property
    def relative_equal(self) -> bool:
        """The offset-only form, equal to the last digit after the shift."""
        return bool(np.array_equal(self.moved.relative, self.here.relative))


def inputs(n: int, d: int, seed: int) -> tuple[Matrix, Matrix]:
    """q and k (N × d each) of whole numbers in −3 … 3, drawn in that order from
    ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    q, k = (rng.integers(-ENTRY, ENTRY + 1, (n, d)).astype(np.float64) for _ in range(2))
    return q, k


def place(q: Matrix, k: Matrix, start: int, base: float) -> Placement:
    pos = np.arange(q.shape[0], dtype=np.float64) + start
    return Placement(
        start,
        pos,
        rotary.scores(q, k, pos, pos, base),
        rotary.relative_scores(q, k, pos, pos, base),
    )


def run(q: Matrix, k: Matrix, shift: int, base: float) -> State:
    return State(q, k, base, place(q, k, 0, base), place(q, k, shift, base))


def span(start: int, n: int) -> str:
    return f"{fmt.count(start)} … {fmt.count(start + n - 1)}"


def base_text(base: float) -> str:
    """10,000 and 100,000 with separators; another base as the shortest decimal."""
    return fmt.count(int(base)) if float(base).is_integer() else fmt.significant(base, 10)


def positions_text(x: float) -> str:
    """A wavelength in positions, to 2 decimals with separators ('54,410.14')."""
    return fmt.grouped(x, 2)


def slope_text(m: float) -> str:
    """A slope as the paper writes it: 1/2 … 1/256 for whole powers of two, else 2^−e
    with e to 4 significant digits ('2^−0.5'), and its decimal."""
    e = -math.log2(m)
    if abs(e - round(e)) < 1e-9:
        return f"1/{fmt.count(2 ** round(e))}"
    return f"2^−{fmt.significant(e, 4)} ≈ {fmt.derived(m, 4)}"
