"""Copy as NumPy for the masks lab (D1–D3): the masks and the softmax of S with them,
before and after, and the empty row on S or through attention.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.export.numpy_scripts.lab_common import (
    ATTENTION_CODE,
    MASKS_CODE,
    SOFTMAX_CODE,
    literal,
    script,
)


def _mask_state(d1: Mapping[str, Any]) -> str:
    return (
        f"S = np.array({literal(d1['S'])})  # the shared score matrix, L x L\n"
        f"L = {int(d1['L'])}\n"
        f"CAUSAL = {bool(d1['causal'])}\n"
        f"PADDED = {literal(list(d1['pad']))}  # padded keys (0-based)\n"
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
    return script(
        "Kinds of mask, and combining them",
        "D1",
        "masks",
        "mask-kinds",
        SOFTMAX_CODE,
        MASKS_CODE,
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
    return script(
        "Mask before vs after softmax",
        "D2",
        "masks",
        "mask-order",
        SOFTMAX_CODE,
        MASKS_CODE,
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
    return script(
        "A row with no allowed key: <pad> I love LLMs, causal and padded",
        "D3",
        "masks",
        "empty-row",
        SOFTMAX_CODE,
        ATTENTION_CODE,
        f"tokens = {literal(body['tokens'])}\n"
        f"x = {literal(body['x'])}  # <pad> is the zero vector\n"
        f"w_q = {literal(body['w_q'])}\nw_k = {literal(body['w_k'])}\n"
        f"w_v = {literal(body['w_v'])}\n"
        f"allowed = np.array({literal(allowed)})  # causal AND key 0 (<pad>) padded\n",
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
    return script(
        "A row with no allowed key, on the shared S",
        "D3",
        "masks",
        "empty-row",
        SOFTMAX_CODE,
        f"S = np.array({literal(scores)})\nallowed = np.array({literal(allowed)})\n",
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
