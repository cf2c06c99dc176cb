"""What the lab figures' scripts share: the header, the numpy code they spell out
(softmax, masks, attention with heads and W^O, positional encoding) and literals of the
state's numbers. Every script is standalone: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HEAD_CODE = '''"""{title} (Attention Lab, {entry}: /labs/{lab}#{figure}).

Recomputes the numbers of this figure for the state it was copied in, with numpy alone.
Run: python this_file.py (prints them as JSON).
"""

import json
import math

import numpy as np

'''


SOFTMAX_CODE = '''
def softmax_rows(s, allowed=None, order="before"):
    """Row-wise softmax, the row's maximum subtracted first.

    order "before" (attention proper): blocked scores become -inf, so their weights are
    exactly 0; a row with no allowed key would be 0/0 = NaN, and is all zeros instead
    (the engine's guard). order "after" (the wrong way round): the softmax of the whole
    row, then the blocked weights set to 0, so the row keeps less than 1."""
    s = np.asarray(s, dtype=np.float64)
    ok = np.ones(s.shape, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    if order == "after":
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return np.where(ok, e / e.sum(axis=1, keepdims=True), 0.0)
    out = np.zeros_like(s)
    for i in range(s.shape[0]):
        if ok[i].any():
            row = np.where(ok[i], s[i], -np.inf)
            e = np.exp(row - row.max())
            out[i] = e / e.sum()
    return out

'''


MASKS_CODE = '''
def causal(n):
    """Query i may read key j only when j <= i."""
    return np.tril(np.ones((n, n), dtype=bool))


def padding(n, padded):
    """A padded key is blocked for every query."""
    keep = np.array([j not in padded for j in range(n)])
    return np.broadcast_to(keep, (n, n)).copy()


def window(n, w, causal_too):
    """|i - j| < w, or 0 <= i - j < w together with causal."""
    gap = np.arange(n)[:, None] - np.arange(n)[None, :]
    return ((gap >= 0) & (gap < w)) if causal_too else (np.abs(gap) < w)

'''


ATTENTION_CODE = '''
def attention(x, w_q, w_k, w_v, heads=1, w_o=None, scale=True, allowed=None):
    """Self-attention with `heads` heads: each head takes a contiguous block of columns of
    Q, K and V and divides its scores by the square root of its own width d_k; the heads'
    outputs are concatenated, then multiplied by W^O when there is one."""
    x = np.asarray(x, dtype=np.float64)
    q = x @ np.asarray(w_q, dtype=np.float64)
    k = x @ np.asarray(w_k, dtype=np.float64)
    v = x @ np.asarray(w_v, dtype=np.float64)
    d_k, d_v = q.shape[1] // heads, v.shape[1] // heads
    weights, outputs = [], []
    for h in range(heads):
        qh, kh = q[:, h * d_k:(h + 1) * d_k], k[:, h * d_k:(h + 1) * d_k]
        vh = v[:, h * d_v:(h + 1) * d_v]
        scores = qh @ kh.T / (math.sqrt(d_k) if scale else 1.0)
        a = softmax_rows(scores, allowed)
        weights.append(a)
        outputs.append(a @ vh)
    concat = np.concatenate(outputs, axis=1)
    out = concat if w_o is None else concat @ np.asarray(w_o, dtype=np.float64)
    return weights, concat, out

'''


PE_CODE = '''
def positional_encoding(positions, d_model, base=10000.0):
    """PE(pos, 2i) = sin(pos / base^(2i/d_model)), PE(pos, 2i+1) = cos(the same angle),
    for pos = 0 ... positions - 1 (interleaved; an odd d_model ends with a sine)."""
    pe = np.zeros((positions, d_model))
    pos = np.arange(positions, dtype=np.float64)[:, None]
    even = np.arange(0, d_model, 2)  # the dimensions 2i
    angles = pos / base ** (even / d_model)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe

'''


def literal(value: Any) -> str:
    """A Python literal of plain numbers, lists and strings (JSON is valid Python here
    once true/false/null are spelled the Python way)."""
    return repr(plain_value(value))


def plain_value(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if hasattr(value, "tolist"):
        return plain_value(value.tolist())
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    raise TypeError(f"not a literal: {value!r}")


def script(title: str, entry: str, lab: str, figure: str, *parts: str) -> str:
    head = HEAD_CODE.format(title=title, entry=entry, lab=lab, figure=figure)
    return head + "".join(parts)
