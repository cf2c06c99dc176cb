"""Decoding token by token against a key/value cache, and why it equals full causal attention.

Source: Kwon et al., "Efficient Memory Management for Large Language Model Serving with
PagedAttention" (SOSP 2023), §2.2: at step t the new token's query q_t attends to the keys
and values of tokens 0 … t, which were computed at earlier steps and kept (the KV cache),
so only one new row of K and V is computed per step. Row t of causal attention reads keys
0 … t only, so the step's output is row t of the full causal computation; the two agree
to rounding (float64, within 1e-12) because each row's softmax sees the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.labs.attend import Matrix, attention, causal


@dataclass(frozen=True)
class Step:
    """Decoding step t: the query row against the cache of t + 1 keys and values."""

    t: int
    q_t: Matrix  # (d_k,)
    k_cache: Matrix  # (t + 1, d_k) keys 0 … t, the new one appended last
    v_cache: Matrix  # (t + 1, d_v)
    weights: Matrix  # (t + 1,) softmax(q_t Kᵀ / √d_k)
    output: Matrix  # (d_v,) weights V


def decode_step(t: int, q_t: Matrix, k_cache: Matrix, v_cache: Matrix) -> Step:
    """One step: (d_k,) against (t + 1, d_k) and (t + 1, d_v), no mask (the cache holds
    only the past and the present)."""
    weights, output = attention(q_t[None, :], k_cache, v_cache)  # (1, t + 1), (1, d_v)
    return Step(t, q_t, k_cache, v_cache, weights[0], output[0])


def incremental(q: Matrix, k: Matrix, v: Matrix) -> tuple[Step, ...]:
    """Every step of decoding the L rows of q, k (L, d_k) and v (L, d_v) one at a time,
    appending row t of K and V to the cache before step t."""
    steps = []
    for t in range(q.shape[0]):
        k_cache, v_cache = k[: t + 1], v[: t + 1]  # the cache after appending token t
        steps.append(decode_step(t, q[t], k_cache, v_cache))
    return tuple(steps)


def incremental_output(steps: tuple[Step, ...]) -> Matrix:
    """(L, d_v): the step outputs stacked, to compare with full causal attention."""
    return np.stack([s.output for s in steps])


def full_causal(q: Matrix, k: Matrix, v: Matrix) -> tuple[Matrix, Matrix]:
    """(weights (L, L), output (L, d_v)): the one-shot causal computation."""
    n = q.shape[0]
    return attention(q, k, v, allowed=causal(n, k.shape[0]))
