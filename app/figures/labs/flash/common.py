"""What the flash lab's figures share: the small state (Q, K, V drawn from a seed), its
tiles from Algorithm 1's block sizes, the tiled run with its trace and the one-shot
softmax it must equal. PURE: every number from ``app.labs.flash`` and ``app.labs.attend``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.figures import fmt
from app.labs import attend, flash
from app.labs.attend import Matrix

# Bounds: the score grid stays a printed table (at most 16 columns, 400 cells).
MAX_N = 16
MAX_D = 8
MAX_SRAM = 512
ENTRY = 3  # Q, K and V entries are whole numbers in −3 … 3: scores a person can read


@dataclass(frozen=True)
class State:
    """One state of the lab: inputs, scaled scores (−∞ where masked), tiles and outputs."""

    q: Matrix
    k: Matrix
    v: Matrix
    scores: Matrix  # (N, N) Q Kᵀ / √d, −∞ in masked cells
    blocks: flash.Blocks
    sram: int  # M as used (at least 4·d: one row each of Q, K, V and O)
    tiled: Matrix  # (N, d) the online softmax's output
    trace: tuple[flash.Tile, ...]
    one_shot: Matrix  # (N, d) softmax(Q Kᵀ / √d) V in one pass
    causal: bool

    @property
    def n(self) -> int:
        return int(self.q.shape[0])

    @property
    def d(self) -> int:
        return int(self.q.shape[1])

    @property
    def max_diff(self) -> float:
        return float(np.max(np.abs(self.tiled - self.one_shot)))


def inputs(n: int, d: int, seed: int) -> tuple[Matrix, Matrix, Matrix]:
    """Q, K, V (N × d each) of whole numbers in −3 … 3, drawn in that order from
    ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.integers(-ENTRY, ENTRY + 1, (n, d)).astype(np.float64) for _ in range(3))
    return q, k, v


def run(q: Matrix, k: Matrix, v: Matrix, sram: int, causal: bool) -> State:
    """Tile the scores of (Q, K, V) for an on-chip memory of ``sram`` numbers and run both
    the online softmax and the one-shot softmax."""
    n, d = q.shape
    allowed = attend.causal(n, n) if causal else None
    scores = attend.masked(attend.scaled_scores(q, k), allowed)
    used = max(sram, 4 * d)
    b = flash.blocks(n, d, used)
    tiled, trace = flash.tiled_attention(scores, v, b.block_rows, b.block_cols)
    _, one_shot = attend.attention(q, k, v, allowed)
    return State(q, k, v, scores, b, used, tiled, trace, one_shot, causal)


def state_of(v: Mapping[str, Any]) -> State:
    """The state the tiles figure's controls name (N, d, M, seed, causal)."""
    q, k, val = inputs(int(v["n"]), int(v["d"]), int(v["seed"]))
    return run(q, k, val, int(v["sram"]), bool(v["causal"]))


def span(a: int, b: int, what: str = "rows") -> str:
    """[a, b) 0-based as a person reads it: 'rows 1–2', 'row 3'."""
    one = what[:-1]
    return f"{one} {a + 1}" if b - a == 1 else f"{what} {a + 1}–{b}"


def num(x: float) -> str:
    """A running number: −∞ bare, whole numbers bare, else up to 4 decimals ('3.5',
    '1.7067'; a power of ten when 4 decimals would print 0)."""
    if math.isinf(x) or float(x).is_integer():
        return fmt.value(x)
    text = fmt.derived(x, 4)
    return text.rstrip("0").rstrip(".") if "×" not in text else text


def tile_edges(b: flash.Blocks, n: int) -> dict[str, list[int]]:
    """Where each tile starts (0-based rows and columns): the grid draws a line there."""
    return {
        "rows": list(range(0, n, b.block_rows)),
        "cols": list(range(0, n, b.block_cols)),
    }


def block_rows(s: State, block: int) -> tuple[int, int]:
    """[start, stop) of row tile ``block``."""
    r0 = block * s.blocks.block_rows
    return r0, min(r0 + s.blocks.block_rows, s.n)


def steps_of(s: State, block: int) -> list[flash.Tile]:
    """The trace of one row tile, in column-tile order (Algorithm 1's outer loop)."""
    return [t for t in s.trace if t.row_tile == block]


def first_rescale(s: State, block: int) -> tuple[int, int] | None:
    """(step, row within the block) of the first rescaling by a factor below 1: a later
    tile held a larger score than any before it for that row."""
    for step, t in enumerate(steps_of(s, block)):
        for r in range(len(t.rescale)):
            if np.isfinite(t.m_before[r]) and t.rescale[r] < 1.0:
                return step, r
    return None


def exps_text(x: float) -> str:
    """e^(m_old − m_new) as printed: 1 and 0 bare, else 4 significant digits ('0.1353',
    '7.485 × 10⁻⁵')."""
    return fmt.significant(float(x), 4)
