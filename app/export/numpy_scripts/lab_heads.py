"""Copy as NumPy for the heads lab: F2's split, concatenate and mix with W^O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.export.numpy_scripts.lab_common import ATTENTION_CODE, SOFTMAX_CODE, literal, script


def split_concat(body: Mapping[str, Any], heads: int, w_o: Any) -> str:
    return script(
        "Split, concatenate, mix with W^O",
        "F2",
        "heads",
        "split-concat",
        SOFTMAX_CODE,
        ATTENTION_CODE,
        f"tokens = {literal(body['tokens'])}\nx = {literal(body['x'])}\n"
        f"w_q = {literal(body['w_q'])}\nw_k = {literal(body['w_k'])}\n"
        f"w_v = {literal(body['w_v'])}\n"
        f"heads = {int(heads)}\nw_o = {literal(w_o)}  # (h * d_v) x d_model\n",
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
