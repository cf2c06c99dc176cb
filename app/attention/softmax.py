"""Softmax on its own (Figure 12): how a stretch factor saturates the weights.

For one score vector (or each row of a matrix) times ``stretch``: the weights, the
exponentials and their sum, the entropy, the largest weight p and p(1 − p), the factor
in the softmax gradient that vanishes as p → 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.attention import ops
from app.attention.ops import Matrix


@dataclass(frozen=True)
class SoftmaxStage:
    """Row-wise softmax of ``stretched = scores · stretch``; every array is 2-D (rows, n)."""

    scores: Matrix
    stretch: float
    stretched: Matrix
    exps: Matrix  # e^(stretched − exp_shift)
    exp_shift: Matrix  # (rows,) 0 unless the row would overflow
    exp_sum: Matrix  # (rows,)
    weights: Matrix
    entropy: Matrix  # (rows,) bits
    argmax: tuple[int, ...]
    max_weight: Matrix  # (rows,) p
    gradient_term: Matrix  # (rows,) p (1 − p)


def softmax_stage(scores: Matrix, stretch: float = 1.0) -> SoftmaxStage:
    """Softmax of each row of ``scores`` (a vector is treated as one row) after stretching."""
    grid = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    stretched = grid * stretch
    weights = ops.softmax_rows(stretched)
    shift = ops.exp_shift(stretched)
    exps = np.exp(stretched - shift[:, None])
    p = weights.max(axis=1)
    return SoftmaxStage(
        scores=grid,
        stretch=float(stretch),
        stretched=stretched,
        exps=exps,
        exp_shift=shift,
        exp_sum=exps.sum(axis=1),
        weights=weights,
        entropy=ops.entropy_bits(weights),
        argmax=tuple(int(i) for i in np.argmax(weights, axis=1)),
        max_weight=p,
        gradient_term=p * (1.0 - p),
    )
