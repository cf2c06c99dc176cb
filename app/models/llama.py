"""The maths of a Llama-architecture decoder layer, pure numpy (float32 as the weights).

Pre-norm: each layer reads ``h = RMSNorm(x)``; attention is grouped-query (``heads`` query
heads share ``kv_heads`` key/value heads, query head ``j`` reading key/value head
``j // (heads // kv_heads)``) with RoPE rotating q and k by their position; the
feed-forward is SwiGLU, ``(SiLU(h W_gateᵀ) ⊙ h W_upᵀ) W_downᵀ``; both add to the residual
stream. RoPE is the "rotate half" form: dimension ``i < d/2`` pairs with ``i + d/2`` and
the pair turns by ``position · θ^(-2i/d)`` (llama.cpp's GGUF conversion reorders the rows
of W_q and W_k so that its own kernel pairs neighbours instead; ``unpermute_rows`` gives
the order this form reads).
"""

from __future__ import annotations

import math

import numpy as np


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """(n, d) → (n, d): each row divided by its root mean square, then scaled."""
    mean_square = (x * x).mean(axis=-1, keepdims=True)
    out: np.ndarray = x / np.sqrt(mean_square + np.float32(eps)) * weight
    return out


def rope_angles(n: int, d_head: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin (n, d_head) float32 of position p · θ^(-2i/d), each half repeated."""
    inverse = base ** (-np.arange(0, d_head, 2, dtype=np.float64) / d_head)  # (d/2,)
    angles = np.arange(n, dtype=np.float64)[:, None] * inverse[None, :]  # (n, d/2)
    both = np.concatenate((angles, angles), axis=-1)
    return np.cos(both).astype(np.float32), np.sin(both).astype(np.float32)


def rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """(heads, n, d) → (heads, n, d): RoPE, x·cos + rotate_half(x)·sin, where
    rotate_half(x) = (−x[d/2:], x[:d/2])."""
    half = x.shape[-1] // 2
    turned = np.concatenate((-x[..., half:], x[..., :half]), axis=-1)
    out: np.ndarray = x * cos + turned * sin
    return out


def unpermute_rows(heads: int, d_head: int) -> np.ndarray:
    """The row order that undoes the GGUF conversion's permutation of W_q or W_k.

    The conversion moved row ``s · d/2 + i`` of each head (half ``s`` of the rotate-half
    form, dimension ``i``) to row ``2i + s``, so that RoPE pairs neighbouring rows; taking
    rows in this order puts each back: entry ``s · d/2 + i`` of a head is ``2i + s``."""
    within = np.arange(d_head).reshape(d_head // 2, 2).T.reshape(d_head)
    return (np.arange(heads)[:, None] * d_head + within[None, :]).reshape(-1)


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """(…, n) → (…, n): each row's softmax, shifted by its maximum (no overflow)."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


def causal_mask(n: int) -> np.ndarray:
    """(n, n) bool: True above the diagonal (a token never sees a later one)."""
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def grouped_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """q (heads, n_q, d), k and v (kv_heads, n_k, d), mask (n_q, n_k) → the weights
    (heads, n_q, n_k) and outputs (heads, n_q, d): softmax(q kᵀ / √d) v per query head
    with its group's key/value head; blocked cells get weight exactly 0."""
    heads, kv_heads, d = len(q), len(k), q.shape[-1]
    group = heads // kv_heads
    qg = q.reshape(kv_heads, group * q.shape[1], d)  # a group's queries side by side
    scores = (qg @ k.transpose(0, 2, 1)).reshape(heads, q.shape[1], k.shape[1])
    scores /= np.float32(math.sqrt(d))
    scores[:, mask] = -np.inf
    weights = softmax_rows(scores)
    outputs = (weights.reshape(kv_heads, -1, k.shape[1]) @ v).reshape(heads, q.shape[1], d)
    return weights, outputs


def silu(x: np.ndarray) -> np.ndarray:
    """x · σ(x), written with exp(−|x|) so that no exp overflows."""
    e = np.exp(-np.abs(x))
    sigmoid = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    out: np.ndarray = x * sigmoid.astype(x.dtype)
    return out
