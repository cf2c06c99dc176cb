"""The engine's additive options (issue 31): rotary positions, ALiBi, a sliding window with
sinks, shared key/value heads. Each is off by default, and then the engine's numbers are
the ones it has always computed.

Sources, by title (the labs' twins in ``app.labs`` teach them step by step; the engine may
import numpy only, so it keeps its own copy and a test holds the two equal):
- rotary: Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding"
  (2021): pair (x_2i, x_2i+1) of the row at position m turns by m·θ_i, θ_i = base^(−2i/d_k);
- ALiBi: Press, Smith and Lewis, "Train Short, Test Long: Attention with Linear Biases
  Enables Input Length Extrapolation" (ICLR 2022): −m·(i − j) on each score, slopes
  2^(−8h/n) (n a power of two; else the closest power of two's, then every other of twice it);
- window and sinks: Beltagy et al., "Longformer" (2020), Jiang et al., "Mistral 7B" (2023)
  and Xiao et al., "Efficient Streaming Language Models with Attention Sinks" (ICLR 2024):
  key j is in query i's window when |i − j| < W (with the causal mask: 0 ≤ i − j < W), and
  the first k keys (the sinks) are always kept;
- kv_heads: Ainslie et al., "GQA: Training Generalized Multi-Query Transformer Models from
  Multi-Head Checkpoints" (EMNLP 2023): the h key and value heads mean-pooled into
  kv_heads groups of h / kv_heads consecutive heads, each shared by its group's queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.attention.errors import InputError
from app.attention.ops import BoolMatrix, Matrix


class Given(Protocol):
    """The fields of ``AttentionInput`` the options read (a protocol: the input's module
    imports this one)."""

    @property
    def rope_base(self) -> float | None: ...
    @property
    def positions(self) -> tuple[float, ...] | None: ...
    @property
    def alibi(self) -> bool: ...
    @property
    def window(self) -> int | None: ...
    @property
    def sinks(self) -> int | None: ...
    @property
    def kv_heads(self) -> int | None: ...
    @property
    def tiling(self) -> tuple[int, int] | None: ...
    @property
    def heads(self) -> int: ...
    @property
    def mask(self) -> str: ...
    @property
    def source_x(self) -> Matrix | None: ...


@dataclass(frozen=True)
class Options:
    """The additive options as the engine used them (checked, defaults filled in)."""

    rope_base: float | None
    positions: Matrix  # (L_Q,) the queries' positions (0 … L_Q − 1 unless given)
    key_positions: Matrix  # (L_K,) the queries' own in self-attention, else 0 … L_K − 1
    alibi_slopes: tuple[float, ...] | None
    window: int | None
    sinks: int
    kv_heads: int | None
    tiling: tuple[int, int] | None  # (block_rows, block_cols)


def _whole(value: object, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InputError(name, f"{name} must be a whole number ≥ {least}, got {value!r}")
    return value


def _positions(inp: Given, l_q: int, l_k: int) -> tuple[Matrix, Matrix]:
    if inp.positions is None:
        pos = np.arange(l_q, dtype=np.float64)
    elif len(inp.positions) != l_q:
        raise InputError(
            "positions", f"positions has {len(inp.positions)} entries but there are {l_q} queries"
        )
    else:
        pos = np.asarray(inp.positions, dtype=np.float64)
    self_attention = inp.source_x is None and l_k == l_q  # keys are the queries' tokens
    return pos, (pos if self_attention else np.arange(l_k, dtype=np.float64))


def _check_rope(inp: Given, d_head: int) -> None:
    base = inp.rope_base
    if base is None:
        if inp.positions is not None:
            raise InputError("positions", "positions place the rotary embedding: give rope too")
        return
    if not (math.isfinite(base) and base > 1):
        raise InputError("rope.base", f"the rotary base must be a number above 1, got {base!r}")
    if d_head % 2:
        raise InputError(
            "rope", f"the rotary embedding turns pairs, so d_k per head must be even, not {d_head}"
        )


def _check_window(inp: Given) -> None:
    if inp.window is not None:
        _whole(inp.window, "window", 1)
    if inp.sinks is not None:
        _whole(inp.sinks, "sinks", 0)
        if inp.window is None:
            raise InputError("sinks", "sinks are kept beside a sliding window: give window too")


def _check_heads(inp: Given) -> None:
    if inp.kv_heads is not None:
        g = _whole(inp.kv_heads, "kv_heads", 1)
        if g > inp.heads or inp.heads % g:
            raise InputError(
                "kv_heads", f"kv_heads = {g} must divide heads = {inp.heads} (groups of equal size)"
            )
    if inp.alibi and inp.mask != "causal":
        raise InputError(
            "alibi", "ALiBi's bias −m·(i − j) is defined for keys j ≤ i: set mask to 'causal'"
        )
    if inp.tiling is not None:
        for name, size in zip(("block_rows", "block_cols"), inp.tiling, strict=True):
            _whole(size, f"tiling.{name}", 1)


def resolve(inp: Given, l_q: int, l_k: int, d_head: int) -> Options | None:
    """The options of ``inp``, checked (InputError naming the field), or None when none is on."""
    given = (inp.rope_base, inp.positions, inp.window, inp.sinks, inp.kv_heads, inp.tiling)
    if not inp.alibi and all(g is None for g in given):
        return None
    _check_rope(inp, d_head)
    _check_window(inp)
    _check_heads(inp)
    pos, key_pos = _positions(inp, l_q, l_k)
    return Options(
        rope_base=None if inp.rope_base is None else float(inp.rope_base),
        positions=pos,
        key_positions=key_pos,
        alibi_slopes=alibi_slopes(inp.heads) if inp.alibi else None,
        window=inp.window,
        sinks=inp.sinks or 0,
        kv_heads=inp.kv_heads,
        tiling=inp.tiling,
    )


def rope_rotate(x: Matrix, positions: Matrix, base: float) -> Matrix:
    """(L, d_k) -> (L, d_k): each pair of row m turned by m·θ_i (d_k even, checked before)."""
    d = x.shape[1]
    thetas = np.float64(base) ** (-2.0 * np.arange(d // 2, dtype=np.float64) / d)  # (d/2,)
    angles = positions[:, None] * thetas[None, :]  # (L, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def _power_of_two_slopes(n: int) -> list[float]:
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def alibi_slopes(heads: int) -> tuple[float, ...]:
    """One slope per head, steepest first (the paper's rule for any head count)."""
    n0 = 1 << (heads.bit_length() - 1)  # 2^⌊log₂ heads⌋
    slopes = _power_of_two_slopes(n0)
    if n0 < heads:
        slopes += _power_of_two_slopes(2 * n0)[0::2][: heads - n0]
    return tuple(slopes)


def alibi_bias(slope: float, l_q: int, l_k: int) -> Matrix:
    """(L_Q, L_K): −m·(i − j)."""
    gap = (np.arange(l_q)[:, None] - np.arange(l_k)[None, :]).astype(np.float64)
    out: Matrix = -slope * gap
    return out


def window_allowed(l_q: int, l_k: int, window: int, sinks: int) -> BoolMatrix:
    """(L_Q, L_K): |i − j| < W, or j < k (a sink)."""
    i, j = np.arange(l_q)[:, None], np.arange(l_k)[None, :]
    inside: BoolMatrix = (np.abs(i - j) < window) | (j < sinks)
    return inside


def shared_kv(heads: list[Matrix], kv_heads: int) -> list[Matrix]:
    """h × (L_K, d) -> h × (L_K, d): each head replaced by the mean of its group of h / g
    consecutive heads, so the h query heads read g distinct key (or value) heads."""
    size = len(heads) // kv_heads
    means = [np.mean(heads[g * size : (g + 1) * size], axis=0) for g in range(kv_heads)]
    return [means[h // size] for h in range(len(heads))]
