"""Attention sinks: keep the first k tokens plus a window of recent ones.

Source: Xiao et al., "Efficient Streaming Language Models with Attention Sinks" (ICLR 2024).
A window cache alone fails once the first tokens are evicted: they receive a large share
of every row's attention (the "attention sink"), and without them the softmax gives that
share to the remaining keys. StreamingLLM keeps k sink tokens (k = 4 in the paper) and
the W most recent ones. Evicting keys and recomputing the softmax over the rest is exactly
the rest's old weights divided by 1 − (the evicted keys' mass): ``renormalised`` shows it.
"""

from __future__ import annotations

import numpy as np

from app.labs.attend import BoolMatrix, Matrix, attention


def _check(sinks: int, window: int) -> None:
    if isinstance(sinks, bool) or not isinstance(sinks, int) or sinks < 0:
        raise ValueError(f"sinks: must be a whole number ≥ 0, got {sinks!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window: must be a positive integer, got {window!r}")


def allowed(n: int, sinks: int, window: int) -> BoolMatrix:
    """(n, n): query i reads key j iff j ≤ i and (j < k or i − j < W)."""
    _check(sinks, window)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    keep: BoolMatrix = (j <= i) & ((j < sinks) | (i - j < window))
    return keep


def kept(t: int, sinks: int, window: int) -> tuple[int, ...]:
    """The positions the cache holds while decoding token t: the first k and the last W."""
    _check(sinks, window)
    first = range(min(sinks, t + 1))
    recent = range(max(min(sinks, t + 1), t + 1 - window), t + 1)
    return (*first, *recent)


def renormalised(weights: Matrix, evicted: BoolMatrix) -> tuple[Matrix, Matrix]:
    """(rows, n) weights and the keys evicted -> (the new weights, each row's evicted
    mass). The new weight of a kept key is w_j / (1 − Σ evicted w); evicted keys get 0."""
    mass = np.where(evicted, weights, 0.0).sum(axis=-1)  # (rows,)
    rest = np.where(evicted, 0.0, weights)
    left = 1.0 - mass
    out: Matrix = rest / np.where(left > 0, left, 1.0)[..., None]
    return out, mass


def evict_first(q_t: Matrix, k: Matrix, v: Matrix, evict: int = 1) -> dict[str, Matrix]:
    """The last query (d_k,) against a cache k (n, d_k), v (n, d_v) with and without its
    first ``evict`` keys: both weight rows (the evicted keys 0 in the second) and outputs."""
    if not 0 <= evict < k.shape[0]:
        raise ValueError(f"evict: must be between 0 and {k.shape[0] - 1}, got {evict}")
    keep = np.arange(k.shape[0]) >= evict  # (n,)
    w_full, o_full = attention(q_t[None, :], k, v)
    w_cut, o_cut = attention(q_t[None, :], k, v, allowed=keep[None, :])
    return {
        "weights": w_full[0],
        "output": o_full[0],
        "evicted_weights": w_cut[0],
        "evicted_output": o_cut[0],
        "sink_mass": np.asarray(w_full[0][~keep].sum()),
    }
