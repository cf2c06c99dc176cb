"""Stages -> JSON bytes for API v1, with no NaN or ±Infinity on the wire.

orjson writes numpy arrays directly and turns −inf (a blocked cell) into ``null``. Each
array is encoded once and reused as a pre-encoded fragment wherever it appears again
(head 1's stages sit both at the top level and in ``heads``; with no mask ``masked`` is
``scaled``), which roughly halves the encoding time for long sequences.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson

from app.attention import HeadStages, SoftmaxStage, Stages

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


class _Encoder:
    """Encodes arrays once each, keyed by identity."""

    def __init__(self) -> None:
        self._done: dict[int, orjson.Fragment] = {}
        self._keep: list[Any] = []  # keep arrays alive so ids stay unique

    def __call__(self, a: np.ndarray[Any, Any]) -> orjson.Fragment:
        key = id(a)
        if key not in self._done:
            self._done[key] = orjson.Fragment(
                orjson.dumps(np.ascontiguousarray(a), option=_OPTIONS)
            )
            self._keep.append(a)
        return self._done[key]


def _head_fields(h: HeadStages, enc: _Encoder, unmasked: bool) -> dict[str, Any]:
    return {
        "q": enc(h.q),
        "k": enc(h.k),
        "v": enc(h.v),
        "scores": enc(h.scores),
        "scaled": enc(h.scaled),
        "masked": enc(h.scaled) if unmasked else enc(h.masked),
        "weights": enc(h.weights),
        "output": enc(h.output),
        "d_k": h.d_k,
        "divisor": h.divisor,
        "row_sum": enc(h.row_sum),
        "row_entropy": enc(h.row_entropy),
        "row_argmax": list(h.row_argmax),
        "row_max": enc(h.row_max),
    }


def stages_to_dict(stages: Stages) -> dict[str, Any]:
    """The API v1 attention response, ready for ``encode``."""
    enc = _Encoder()
    unmasked = bool(stages.allowed.all())
    heads = [_head_fields(h, enc, unmasked) for h in stages.heads]
    return {
        **heads[0],
        "heads": heads,
        "output": enc(stages.output),
        "concat": enc(stages.concat),
        "d_v": int(stages.v.shape[1]),
        "tokens": list(stages.tokens),
        "key_tokens": list(stages.key_tokens),
        "allowed": enc(stages.allowed),
        "scale": stages.scale,
        "mask": stages.mask,
        "num_heads": len(stages.heads),
        "warnings": list(stages.warnings),
    }


def softmax_to_dict(s: SoftmaxStage, vector: bool) -> dict[str, Any]:
    """The softmax response; a vector request gets vectors back, a matrix gets matrices."""

    def pick(a: Any) -> Any:
        return a[0] if vector else a

    return {
        "scores": pick(s.scores),
        "stretch": s.stretch,
        "stretched": pick(s.stretched),
        "weights": pick(s.weights),
        "exps": pick(s.exps),
        "exp_shift": pick(s.exp_shift),
        "exp_sum": pick(s.exp_sum),
        "entropy": pick(s.entropy),
        "argmax": pick(list(s.argmax)),
        "max_weight": pick(s.max_weight),
        "gradient_term": pick(s.gradient_term),
    }


def encode(payload: Any) -> bytes:
    """JSON bytes; NaN and ±inf become null (orjson's rule), numpy arrays become lists."""
    return orjson.dumps(payload, option=_OPTIONS)
