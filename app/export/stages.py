"""Every stage of one computation as a list of labelled matrices (pure: numpy + stdlib).

Names are the maths' names. Inputs: ``x``, ``source_x`` (cross-attention), ``w_q``,
``w_k``, ``w_v``, ``w_o``; direct mode has no inputs besides ``q, k, v``. Then ``q, k, v``
(all heads side by side), the per-head stages ``scores, scaled, masked, weights, output``
(prefixed ``head1_`` … when there is more than one head, where each head's ``q, k, v``
slices are listed too), ``concat`` (head outputs side by side, when heads > 1 or W^O is
given) and the final ``output``. ``masked`` holds −inf in blocked cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from app.attention import Stages

Matrix = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class StageMatrix:
    """One matrix with its row and column labels and what it is, in words."""

    name: str
    title: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    values: Matrix
    row_axis: str  # what a row is: "token", "source token", "d_model", …


def _dims(prefix: str, n: int, start: int = 0) -> tuple[str, ...]:
    """Column labels counted from 1, as the chapter labels matrix columns."""
    return tuple(f"{prefix}{start + j + 1}" for j in range(n))


def _inputs(stages: Stages) -> list[StageMatrix]:
    out: list[StageMatrix] = []
    x = stages.x
    if x is None:  # direct mode: Q, K, V were given
        return out
    d_model = x.shape[1]
    out.append(
        StageMatrix(
            "x", "X: the input, one row per token", stages.tokens, _dims("d", d_model), x, "token"
        )
    )
    if stages.source_x is not None:
        out.append(
            StageMatrix(
                "source_x",
                "S: the source sequence (cross-attention)",
                stages.key_tokens,
                _dims("d", d_model),
                stages.source_x,
                "source token",
            )
        )
    for name, title, w, col in (
        ("w_q", "W^Q: Q = X W^Q", stages.w_q, "q"),
        ("w_k", "W^K: K = X W^K" if not stages.cross else "W^K: K = S W^K", stages.w_k, "k"),
        ("w_v", "W^V: V = X W^V" if not stages.cross else "W^V: V = S W^V", stages.w_v, "v"),
    ):
        assert w is not None  # projection mode has all three
        out.append(
            StageMatrix(name, title, _dims("d", d_model), _dims(col, w.shape[1]), w, "d_model")
        )
    return out


def stage_matrices(stages: Stages) -> list[StageMatrix]:
    """Every stage of ``stages`` in the order the computation produces them."""
    tokens, keys = stages.tokens, stages.key_tokens
    n_heads = len(stages.heads)
    out = _inputs(stages)
    out += [
        StageMatrix("q", "Q: queries", tokens, _dims("q", stages.q.shape[1]), stages.q, "token"),
        StageMatrix("k", "K: keys", keys, _dims("k", stages.k.shape[1]), stages.k, "key"),
        StageMatrix("v", "V: values", keys, _dims("v", stages.v.shape[1]), stages.v, "key"),
    ]
    for h, head in enumerate(stages.heads):
        prefix, label = (f"head{h + 1}_", f" (head {h + 1})") if n_heads > 1 else ("", "")
        q0, v0 = h * head.q.shape[1], h * head.v.shape[1]
        if n_heads > 1:
            out += [
                StageMatrix(
                    prefix + "q",
                    "Q" + label,
                    tokens,
                    _dims("q", head.q.shape[1], q0),
                    head.q,
                    "token",
                ),
                StageMatrix(
                    prefix + "k", "K" + label, keys, _dims("k", head.k.shape[1], q0), head.k, "key"
                ),
                StageMatrix(
                    prefix + "v", "V" + label, keys, _dims("v", head.v.shape[1], v0), head.v, "key"
                ),
            ]
        div = f"{head.divisor:g}"
        grids = (
            ("scores", "Q Kᵀ: raw scores" + label, head.scores),
            ("scaled", f"scores ÷ {div}" + label, head.scaled),
            ("masked", "scaled scores with −∞ where a key is blocked" + label, head.masked),
            ("weights", "A = softmax(masked), row by row" + label, head.weights),
        )
        out += [StageMatrix(prefix + n, t, tokens, keys, m, "token") for n, t, m in grids]
        if n_heads > 1 or stages.w_o is None:  # one head with W^O: its output is `concat`
            out.append(
                StageMatrix(
                    prefix + "output",
                    "A V: output" + label,
                    tokens,
                    _dims("z", head.output.shape[1], v0),
                    head.output,
                    "token",
                )
            )
    if n_heads > 1 or stages.w_o is not None:
        out.append(
            StageMatrix(
                "concat",
                "A V per head, side by side",
                tokens,
                _dims("z", stages.concat.shape[1]),
                stages.concat,
                "token",
            )
        )
    if stages.w_o is not None:
        w_o = stages.w_o
        out.append(
            StageMatrix(
                "w_o",
                "W^O: mixes the concatenated heads",
                _dims("z", w_o.shape[0]),
                _dims("o", w_o.shape[1]),
                w_o,
                "d_v",
            )
        )
        out.append(
            StageMatrix(
                "output",
                "output = concat W^O",
                tokens,
                _dims("o", stages.output.shape[1]),
                stages.output,
                "token",
            )
        )
    elif n_heads > 1:
        out.append(
            StageMatrix(
                "output",
                "output = concat",
                tokens,
                _dims("z", stages.output.shape[1]),
                stages.output,
                "token",
            )
        )
    return out
