"""The common mistakes, computed: what the weights would be if a learner made one.

Each function redoes the softmax step of one head the wrong way, from the engine's own
stages, so a misconception's number is as real as the answer's:

* ``columns``: softmax down each column instead of along each row;
* ``unscaled``: the scores not divided by √d_k (the masked raw scores' row softmax);
* ``unmasked``: the mask ignored (the row softmax of every scaled score).

Shapes: every grid is (L_Q, L_K); ``allowed`` is the state's mask (True: may attend).
"""

from __future__ import annotations

import numpy as np

from app.attention import HeadStages, Stages
from app.attention.ops import Matrix


def _softmax(s: Matrix, allowed: np.ndarray, axis: int) -> Matrix:
    """Softmax of ``s`` along ``axis`` over the allowed cells; a line with none is zeros."""
    masked = np.where(allowed, s, -np.inf)
    top = np.max(masked, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(allowed, np.exp(masked - top), 0.0)
    total = e.sum(axis=axis, keepdims=True)
    out: Matrix = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return out


def columns(stages: Stages, head: HeadStages) -> Matrix:
    """(L_Q, L_K) softmax of the scaled, masked scores down each column."""
    return _softmax(head.scaled, stages.allowed, axis=0)


def unscaled(stages: Stages, head: HeadStages) -> Matrix:
    """(L_Q, L_K) row softmax of the raw scores, the mask applied: ÷√d_k forgotten."""
    return _softmax(head.scores, stages.allowed, axis=1)


def unmasked(head: HeadStages) -> Matrix:
    """(L_Q, L_K) row softmax of every scaled score: the mask ignored."""
    return _softmax(head.scaled, np.ones(head.scaled.shape, dtype=bool), axis=1)


def blend(weights: Matrix, head: HeadStages) -> Matrix:
    """(L_Q, d_v) the outputs those weights would give."""
    out: Matrix = weights @ head.v
    return out


def is_masked(stages: Stages) -> bool:
    return not bool(np.all(stages.allowed))


def is_scaled(head: HeadStages) -> bool:
    """True when dividing by the divisor changed the scores (scaling on, √d_k ≠ 1)."""
    return head.divisor != 1.0
