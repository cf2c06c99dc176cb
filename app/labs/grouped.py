"""Multi-query and grouped-query attention: g key/value heads shared by h query heads.

Sources: Shazeer, "Fast Transformer Decoding: One Write-Head is All You Need" (2019):
multi-query attention, one K and one V head for all h query heads (g = 1). Ainslie et al.,
"GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints"
(EMNLP 2023): g groups of h / g query heads each share one K/V head, from g = h (multi-head)
down to g = 1 (multi-query); a multi-head checkpoint becomes a grouped one by mean-pooling
the key and value heads of each group (§2.1, "Uptraining").

Heads are stacked on the first axis: q (h, L, d_k), k and v (g, L, d_k / d_v). Query head
j reads K/V head j // (h / g): consecutive query heads share, as the paper's Figure 2.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app.labs.attend import BoolMatrix, attention

Stack = NDArray[np.float64]  # (heads, L, d)


def kv_head_options(heads: int) -> tuple[int, ...]:
    """Every valid kv_heads for ``heads`` query heads, from heads down to 1: its divisors."""
    if heads < 1:
        raise ValueError(f"heads: must be at least 1, got {heads}")
    return tuple(g for g in range(heads, 0, -1) if heads % g == 0)


def group_of(head: int, heads: int, kv_heads: int) -> int:
    """The K/V head query head ``head`` reads: head // (heads / kv_heads)."""
    return head // (heads // kv_heads)


def mean_pool(kv: Stack, kv_heads: int) -> Stack:
    """(h, L, d) -> (g, L, d): each group of h / g consecutive heads replaced by their mean
    (GQA §2.1: the grouped checkpoint's K and V projections)."""
    heads = kv.shape[0]
    if kv_heads < 1 or heads % kv_heads:
        raise ValueError(f"kv_heads: {kv_heads} must divide heads = {heads}")
    size = heads // kv_heads
    pooled: Stack = kv.reshape(kv_heads, size, *kv.shape[1:]).mean(axis=1)
    return pooled


def grouped_attention(
    q: Stack, k: Stack, v: Stack, allowed: BoolMatrix | None = None
) -> tuple[Stack, Stack]:
    """q (h, L_Q, d_k), k (g, L_K, d_k), v (g, L_K, d_v) -> weights (h, L_Q, L_K) and
    outputs (h, L_Q, d_v): each query head against its group's shared K and V."""
    heads, kv_heads = q.shape[0], k.shape[0]
    if kv_heads < 1 or heads % kv_heads or v.shape[0] != kv_heads:
        raise ValueError(f"kv_heads: {kv_heads} must divide heads = {heads}")
    pairs = [
        attention(q[j], k[group_of(j, heads, kv_heads)], v[group_of(j, heads, kv_heads)], allowed)
        for j in range(heads)
    ]
    return np.stack([w for w, _ in pairs]), np.stack([o for _, o in pairs])


def grouped_from_multihead(
    q: Stack, k: Stack, v: Stack, kv_heads: int, allowed: BoolMatrix | None = None
) -> tuple[Stack, Stack]:
    """A multi-head state (h K/V heads) made grouped by mean-pooling, then attended:
    (weights (h, L_Q, L_K), outputs (h, L_Q, d_v))."""
    return grouped_attention(q, mean_pool(k, kv_heads), mean_pool(v, kv_heads), allowed)


def cache_rows(kv_heads: int, tokens: int) -> int:
    """Rows the cache keeps per layer: one K and one V row per K/V head per token."""
    return 2 * kv_heads * tokens
