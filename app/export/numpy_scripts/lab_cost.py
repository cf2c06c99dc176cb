"""Copy as NumPy for the cost lab (G1–G3): the FLOP, parameter and memory formulas,
written out as integer arithmetic.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from app.export.numpy_scripts.lab_common import script

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
    return script(
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
