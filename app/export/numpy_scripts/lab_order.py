"""Copy as NumPy for the order lab: E1's shuffle (attention on the sentence and its
permutation) and E2's positional encoding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.export.numpy_scripts.lab_common import (
    ATTENTION_CODE,
    PE_CODE,
    SOFTMAX_CODE,
    literal,
    script,
)


def shuffle(body: Mapping[str, Any], perm: Sequence[int], positional: bool) -> str:
    return script(
        "Shuffle the tokens: permutation equivariance",
        "E1",
        "order",
        "shuffle",
        SOFTMAX_CODE,
        ATTENTION_CODE,
        PE_CODE,
        f"tokens = {literal(body['tokens'])}\nx = np.array({literal(body['x'])}, dtype=float)\n"
        f"w_q = {literal(body['w_q'])}\nw_k = {literal(body['w_k'])}\n"
        f"w_v = {literal(body['w_v'])}\n"
        f"perm = {literal(list(perm))}  # position i shows token perm[i]\n"
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
    return script(
        "Sinusoidal positional encoding",
        "E2",
        "order",
        "positional-encoding",
        PE_CODE,
        f"pe = positional_encoding({positions}, {d_model}, {base!r})\n",
        'print(json.dumps({"pe": pe.tolist()}))\n',
    )
