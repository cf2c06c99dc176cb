"""One head of a real model as an ordinary state of the figures (a body for POST
/api/v1/attention).

X is the rows the head's projections read (the layer's input), with a column of ones
appended; W^Q is the head's query weights with its bias as one more row, and the same
for W^K and W^V: then X W^Q = x W_q + b_q exactly, and the app's seven steps (scaling by
√d_k, the causal mask when the model is causal) give that head's own attention weights.
A model with RoPE (SmolLM2) rotates q and k after the projection, which no W^Q can do:
there X is the head's rotated q, rotated k and v side by side and each W picks its part
(``note`` says which of the two a body is).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.models import registry
from app.models.base import ModelSpec, Trace
from app.models.errors import ModelInputError

NOTE = (
    "The biases are folded in as a column of ones on X: its last column is all 1, and the "
    "last row of W^Q, W^K and W^V holds that head's bias."
)


def check_head(spec: ModelSpec, layer: int, head: int) -> None:
    """``ModelInputError`` naming ``layer`` or ``head`` when out of range (0-based)."""
    for field, value, count in (("layer", layer, spec.layers), ("head", head, spec.heads)):
        if not 0 <= value < count:
            raise ModelInputError(
                field, f"{spec.name} has {count} {field}s, numbered 0 to {count - 1}; got {value}"
            )


def _with_bias(weights: np.ndarray, bias: np.ndarray) -> list[list[float]]:
    """(d_model, d) and (d,) → (d_model + 1, d): the bias as the last row."""
    return np.vstack([weights, bias[None, :]]).astype(np.float64).tolist()  # type: ignore[no-any-return]


ROPE_NOTE = (
    "RoPE rotates q and k by their position, so X is this head's rotated q, rotated k and "
    "v side by side (64 columns each) and W^Q, W^K, W^V pick them out; the scale is √64."
)


def note(spec: ModelSpec) -> str:
    """What the body of ``head_body`` holds, in words, for this model."""
    return ROPE_NOTE if spec.rope_base is not None else NOTE


def _rotated_body(trace: Trace, spec: ModelSpec, layer: int, head: int) -> dict[str, Any]:
    """A RoPE model's head: X = [q | k | v] after RoPE (n, 3·d_k), W^Q, W^K, W^V the
    identity on their third; no bias. X W^Q is the rotated q, so the app's seven steps
    give the head's own weights (its key/value head is the group's)."""
    assert trace.queries is not None
    assert trace.keys is not None
    assert trace.values is not None
    kv = spec.kv_head(head)
    q, k, v = trace.queries[layer, head], trace.keys[layer, kv], trace.values[layer, kv]
    d = spec.d_k
    pick = [np.eye(3 * d, dtype=np.float64)[:, i * d : (i + 1) * d].tolist() for i in range(3)]
    return {
        "tokens": list(trace.tokens),
        "x": np.hstack([q, k, v]).astype(np.float64).tolist(),
        "w_q": pick[0],
        "w_k": pick[1],
        "w_v": pick[2],
        "scale": True,
        "mask": "causal" if spec.causal else "none",
    }


def head_body(model_id: str, text: str, layer: int, head: int) -> dict[str, Any]:
    """A request body for POST /api/v1/attention whose weights are ``text``'s attention
    in head ``head`` of layer ``layer`` (both 0-based)."""
    model = registry.get(model_id)
    check_head(model.spec, layer, head)
    trace = registry.trace(model_id, text)
    if trace.queries is not None:
        return _rotated_body(trace, model.spec, layer, head)
    x = trace.layer_inputs[layer]
    ones = np.ones((len(x), 1), dtype=x.dtype)
    w = model.head(layer, head)
    return {
        "tokens": list(trace.tokens),
        "x": np.hstack([x, ones]).astype(np.float64).tolist(),
        "w_q": _with_bias(w.W_q, w.b_q),
        "w_k": _with_bias(w.W_k, w.b_k),
        "w_v": _with_bias(w.W_v, w.b_v),
        "scale": True,
        "mask": "causal" if model.spec.causal else "none",
    }
