"""Copy as NumPy for the masks, order, heads and cost figures: a standalone script (numpy
and the standard library only) per figure that recomputes, for the figure's state, the
numbers it shows and prints them as JSON. The scripts spell the computation out for a
reader (masks, softmax, attention with heads and W^O, positional encoding, cost
formulas); their inputs are the state's numbers written as literals. The HTTP tests run
them in a subprocess and compare their output with the figure's numbers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

_HEAD = '''"""{title} (Attention Lab, {entry}: /labs/{lab}#{figure}).

Recomputes the numbers of this figure for the state it was copied in, with numpy alone.
Run: python this_file.py (prints them as JSON).
"""

import json
import math

import numpy as np

'''

_SOFTMAX = '''
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

_MASKS = '''
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

_ATTENTION = '''
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

_PE = '''
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


def _lit(value: Any) -> str:
    """A Python literal of plain numbers, lists and strings (JSON is valid Python here
    once true/false/null are spelled the Python way)."""
    return repr(_plain(value))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    raise TypeError(f"not a literal: {value!r}")


def _script(title: str, entry: str, lab: str, figure: str, *parts: str) -> str:
    head = _HEAD.format(title=title, entry=entry, lab=lab, figure=figure)
    return head + "".join(parts)


# ---------------------------------------------------------------- masks D1–D3


def _mask_state(d1: Mapping[str, Any]) -> str:
    return (
        f"S = np.array({_lit(d1['S'])})  # the shared score matrix, L x L\n"
        f"L = {int(d1['L'])}\n"
        f"CAUSAL = {bool(d1['causal'])}\n"
        f"PADDED = {_lit(list(d1['pad']))}  # padded keys (0-based)\n"
        f"WINDOW = {None if d1['window'] == 'off' else int(d1['window'])}  # None: off\n\n"
        "masks = []\n"
        "if CAUSAL:\n    masks.append(causal(L))\n"
        "if PADDED:\n    masks.append(padding(L, PADDED))\n"
        "if WINDOW is not None:\n    masks.append(window(L, WINDOW, CAUSAL))\n"
        "allowed = np.ones((L, L), dtype=bool)\n"
        "for m in masks:  # adding masks' -inf entries = ANDing what each allows\n"
        "    allowed &= m\n"
    )


def mask_kinds(d1: Mapping[str, Any]) -> str:
    return _script(
        "Kinds of mask, and combining them",
        "D1",
        "masks",
        "mask-kinds",
        _SOFTMAX,
        _MASKS,
        _mask_state(d1),
        """
additive = np.where(allowed, 0.0, -np.inf)  # 0 where allowed, -inf where blocked
weights = softmax_rows(S + additive, allowed)
print(json.dumps({
    "allowed": allowed.tolist(),
    "allowed_per_row": allowed.sum(axis=1).tolist(),
    "weights": weights.tolist(),
    "row_sums": weights.sum(axis=1).tolist(),
}))
""",
    )


def mask_order(d1: Mapping[str, Any], mask: str) -> str:
    choose = (
        "allowed = causal(L)  # D2's mask: causal\n"
        if mask == "causal"
        else "# D2's mask: the combination built in D1 (above)\n"
    )
    return _script(
        "Mask before vs after softmax",
        "D2",
        "masks",
        "mask-order",
        _SOFTMAX,
        _MASKS,
        _mask_state(d1),
        choose,
        """
before = softmax_rows(S, allowed, "before")  # blocked -> -inf, then softmax
after = softmax_rows(S, allowed, "after")  # softmax of the whole row, then blocked -> 0
discarded = softmax_rows(S) - after  # the weight "after" threw away (blocked cells)
print(json.dumps({
    "before": {"weights": before.tolist(), "row_sums": before.sum(axis=1).tolist()},
    "after": {"weights": after.tolist(), "row_sums": after.sum(axis=1).tolist()},
    "discarded": np.where(allowed, 0.0, discarded).tolist(),
}))
""",
    )


def empty_row_attention(body: Mapping[str, Any], allowed: Any) -> str:
    return _script(
        "A row with no allowed key: <pad> I love LLMs, causal and padded",
        "D3",
        "masks",
        "empty-row",
        _SOFTMAX,
        _ATTENTION,
        f"tokens = {_lit(body['tokens'])}\n"
        f"x = {_lit(body['x'])}  # <pad> is the zero vector\n"
        f"w_q = {_lit(body['w_q'])}\nw_k = {_lit(body['w_k'])}\nw_v = {_lit(body['w_v'])}\n"
        f"allowed = np.array({_lit(allowed)})  # causal AND key 0 (<pad>) padded\n",
        """
(weights,), _, output = attention(x, w_q, w_k, w_v, scale=True, allowed=allowed)
# -1e9 instead of -inf: the empty row becomes uniform instead of zeros
x_ = np.asarray(x, float)
scores = (x_ @ np.asarray(w_q, float)) @ (x_ @ np.asarray(w_k, float)).T / math.sqrt(4)
finite = softmax_rows(np.where(allowed, scores, -1e9))
print(json.dumps({
    "empty_rows": [i for i in range(len(tokens)) if not allowed[i].any()],
    "weights": weights.tolist(),
    "output": output.tolist(),
    "weights_large_negative": finite.tolist(),
}))
""",
    )


def empty_row_scores(scores: Any, allowed: Any) -> str:
    return _script(
        "A row with no allowed key, on the shared S",
        "D3",
        "masks",
        "empty-row",
        _SOFTMAX,
        f"S = np.array({_lit(scores)})\nallowed = np.array({_lit(allowed)})\n",
        """
weights = softmax_rows(S, allowed)  # the guarded softmax: an empty row is zeros
finite = softmax_rows(np.where(allowed, S, -1e9))  # -1e9 instead of -inf: uniform
print(json.dumps({
    "empty_rows": [i for i in range(len(S)) if not allowed[i].any()],
    "weights": weights.tolist(),
    "weights_large_negative": finite.tolist(),
}))
""",
    )


# ---------------------------------------------------------------- order E1, E2


def shuffle(body: Mapping[str, Any], perm: Sequence[int], positional: bool) -> str:
    return _script(
        "Shuffle the tokens: permutation equivariance",
        "E1",
        "order",
        "shuffle",
        _SOFTMAX,
        _ATTENTION,
        _PE,
        f"tokens = {_lit(body['tokens'])}\nx = np.array({_lit(body['x'])}, dtype=float)\n"
        f"w_q = {_lit(body['w_q'])}\nw_k = {_lit(body['w_k'])}\nw_v = {_lit(body['w_v'])}\n"
        f"perm = {_lit(list(perm))}  # position i shows token perm[i]\n"
        f"POSITIONS = {bool(positional)}  # add sinusoidal positions before the projections\n",
        """

def run(x):
    if POSITIONS:
        x = x + positional_encoding(len(x), x.shape[1])
    return attention(x, w_q, w_k, w_v)[2]


z = run(x)  # Attention(X)
z_shuffled = run(x[perm])  # Attention(PX)
difference = np.abs(z_shuffled - z[perm])  # against P Attention(X)
print(json.dumps({
    "output": z.tolist(),
    "output_shuffled": z_shuffled.tolist(),
    "max_difference": float(difference.max()),
    "equivariant": bool(difference.max() <= 1e-12),  # per entry, never bit equality
    "same_values": [bool(row.max() <= 1e-12) for row in difference],
}))
""",
    )


def positional(positions: int, d_model: int, base: float) -> str:
    return _script(
        "Sinusoidal positional encoding",
        "E2",
        "order",
        "positional-encoding",
        _PE,
        f"pe = positional_encoding({positions}, {d_model}, {base!r})\n",
        'print(json.dumps({"pe": pe.tolist()}))\n',
    )


# ---------------------------------------------------------------- heads F2


def split_concat(body: Mapping[str, Any], heads: int, w_o: Any) -> str:
    return _script(
        "Split, concatenate, mix with W^O",
        "F2",
        "heads",
        "split-concat",
        _SOFTMAX,
        _ATTENTION,
        f"tokens = {_lit(body['tokens'])}\nx = {_lit(body['x'])}\n"
        f"w_q = {_lit(body['w_q'])}\nw_k = {_lit(body['w_k'])}\nw_v = {_lit(body['w_v'])}\n"
        f"heads = {int(heads)}\nw_o = {_lit(w_o)}  # (h * d_v) x d_model\n",
        """
weights, concat, output = attention(x, w_q, w_k, w_v, heads=heads, w_o=w_o)
print(json.dumps({
    "head_weights": [a.tolist() for a in weights],
    "divisors": [math.sqrt(np.asarray(w_q).shape[1] // heads)] * heads,
    "concat": concat.tolist(),
    "output": output.tolist(),
}))
""",
    )


# ---------------------------------------------------------------- cost G1–G3

_COST = '''
def cost(n, d_model, heads, d_ff, vocab, layers, biases):
    """Multiply-adds of one multi-head attention layer over n tokens, and parameters.
    Python integers: exact at any size. h enters no count (h * d_k = d_model)."""
    d, b = d_model, int(biases)
    assert d % heads == 0, "the heads must divide d_model"
    flops = {
        "projections": 3 * n * d**2,  # Q, K and V from X
        "scores": n**2 * d,  # Q K^T over h heads of width d_k
        "weighted_sum": n**2 * d,  # A V over h heads of width d_v
        "output_projection": n * d**2,  # concat W^O
    }
    flops["linear"] = flops["projections"] + flops["output_projection"]  # 4 N d^2
    flops["quadratic"] = flops["scores"] + flops["weighted_sum"]  # 2 N^2 d
    flops["total"] = flops["linear"] + flops["quadratic"]
    attention = 4 * d * d + b * 4 * d
    ffn = 2 * d * d_ff + b * (d_ff + d)
    per_layer = attention + ffn + b * 2 * 2 * d  # + the two LayerNorms with biases
    params = {"attention": attention, "ffn": ffn, "embedding": vocab * d,
              "per_layer": per_layer, "total": vocab * d + layers * per_layer}
    return {"flops": flops, "crossover_n": 2 * d, "score_cells": n**2, "params": params,
            "score_table_bytes": 4 * n**2}  # one float32 table: one head, one layer

'''


def cost(entry: str, figure: str, configs: Sequence[Mapping[str, Any]], note: str) -> str:
    titles = {
        "G1": "FLOPs and the crossover N = 2 d_model",
        "G2": "Parameter counts",
        "G3": "What the sequence length costs",
    }
    return _script(
        titles[entry],
        entry,
        "cost",
        figure,
        _COST,
        f"configs = {json.dumps([dict(c) for c in configs])}  # {note}\n".replace(
            "false", "False"
        ).replace("true", "True"),
        "print(json.dumps([cost(**c) for c in configs]))\n",
    )
