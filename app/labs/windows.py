"""Sliding-window attention: the band mask, how far it reaches after L layers, and the
rolling buffer cache.

Sources: Beltagy et al., "Longformer: The Long-Document Transformer" (2020), §3.1: each
token attends to a fixed window around it, and stacking L layers widens the receptive
field to L × w. Jiang et al., "Mistral 7B" (2023), §2: with a window W, the hidden state
at position i of layer k reaches the previous layer's positions i − W … i, so "after k
attention layers, information can move forward by up to k × W tokens" (W = 4096 and 32
layers: "approximately 131K tokens"); the cache becomes a rolling buffer of W slots,
position i stored in slot i mod W (Figure 2), which at 32k tokens "reduces the cache
memory usage by 8x".

Our band counts the token itself: query i reads key j when 0 ≤ i − j < W, W keys (as
``app.labs.masks.window`` with causal). Composed over L layers it reaches L·(W − 1)
positions back (``reach``); the paper's W × L (``span``) counts a window as reaching W back.
"""

from __future__ import annotations

import numpy as np

from app.labs.attend import BoolMatrix


def _positive(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: must be a positive integer, got {value!r}")


def band(n: int, window: int) -> BoolMatrix:
    """(n, n): query i reads key j iff 0 ≤ i − j < W (causal, W keys including itself)."""
    _positive("window", window)
    gap = np.arange(n)[:, None] - np.arange(n)[None, :]  # i − j
    inside: BoolMatrix = (gap >= 0) & (gap < window)
    return inside


def span(window: int, layers: int) -> int:
    """W × L, Mistral 7B's theoretical attention span after L layers."""
    _positive("window", window)
    _positive("layers", layers)
    return window * layers


def reach(allowed: BoolMatrix, layers: int) -> BoolMatrix:
    """(n, n): position i depends on position j of the input after ``layers`` layers with
    the mask ``allowed``: the mask composed with itself (boolean matrix power)."""
    _positive("layers", layers)
    a = allowed.astype(np.int64)
    out = a.copy()
    for _ in range(layers - 1):
        out = np.minimum(out @ a, 1)  # stays 0/1: "some path exists"
    result: BoolMatrix = out.astype(np.bool_)
    return result


def reach_back(window: int, layers: int) -> int:
    """How many positions back the band of W reaches after L layers: L · (W − 1)."""
    _positive("window", window)
    _positive("layers", layers)
    return layers * (window - 1)


def buffer_slot(i: int, window: int) -> int:
    """The rolling buffer's slot of position i: i mod W."""
    _positive("window", window)
    return i % window


def buffer_contents(tokens: int, window: int) -> tuple[int, ...]:
    """The position each of the W slots holds after ``tokens`` tokens (−1: still empty).
    Position i overwrites slot i mod W, so the buffer keeps the last W positions."""
    _positive("window", window)
    slots = [-1] * window
    for i in range(max(0, tokens - window), tokens):  # earlier positions are overwritten
        slots[buffer_slot(i, window)] = i
    return tuple(slots)


def buffer_saving(tokens: int, window: int) -> float:
    """tokens / min(tokens, W): how many times smaller the rolling buffer is than a full
    cache (Mistral 7B: 32,768 tokens with W = 4096 gives 8)."""
    _positive("window", window)
    _positive("tokens", tokens)
    return tokens / min(tokens, window)
