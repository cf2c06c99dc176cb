"""Split Q, K, V into heads and merge the head outputs back (multi-head attention).

Head h takes the h-th contiguous block of columns, as ``nn.MultiheadAttention`` does
after its input projection; merging concatenates the head outputs in order.
"""

from __future__ import annotations

import numpy as np

from app.attention.ops import Matrix


def split_heads(m: Matrix, heads: int) -> list[Matrix]:
    """(L, d) -> heads × (L, d / heads): head 1 gets columns 0 … d/heads − 1, and so on."""
    if heads == 1:
        return [m]
    width = m.shape[1] // heads
    return [m[:, h * width : (h + 1) * width] for h in range(heads)]


def merge_heads(outputs: list[Matrix]) -> Matrix:
    """heads × (L_Q, d_v / heads) -> (L_Q, d_v), side by side in head order."""
    return np.concatenate(outputs, axis=1)
