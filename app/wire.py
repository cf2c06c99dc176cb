"""Stages -> JSON bytes for API v1, with no NaN or ±Infinity on the wire.

orjson writes numpy arrays directly and turns −inf (a blocked cell) into ``null``. Each
array is encoded once and reused wherever it appears again (head 1's stages sit both at
the top level and in ``heads``; with no mask ``masked`` is ``scaled``), which roughly
halves the encoding time for long sequences.

``stages_to_chunks`` goes one step further for the API response: it returns the JSON as
a list of byte chunks in which a repeated array is the same bytes object, never joined.
For L = 512 the response is ~48 MB, and joining it into one buffer costs as much as
encoding it; the chunks are written to the socket one after another instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import orjson

from app.attention import HeadStages, SoftmaxStage, Stages

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


class Encoded:
    """One array's JSON, encoded once; ``stages_to_chunks`` emits it as its own chunk."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class _Encoder:
    """Encodes arrays once each, keyed by identity, as orjson fragments ("fragment") or as
    chunks for ``stages_to_chunks`` ("chunk"). Small responses use ``_as_list`` instead:
    one orjson call over lists beats encoding each array separately, and ``tolist`` plus
    orjson's list writer beats its numpy writer about twofold for 3 × 3 arrays (same
    bytes, −inf becomes null either way)."""

    def __init__(self, mode: str = "fragment") -> None:
        self._done: dict[int, Any] = {}
        self._keep: list[Any] = []  # keep arrays alive so ids stay unique
        self._mode = mode

    def __call__(self, a: np.ndarray[Any, Any]) -> Any:
        key = id(a)
        if key not in self._done:
            raw = orjson.dumps(np.ascontiguousarray(a), option=_OPTIONS)
            self._done[key] = orjson.Fragment(raw) if self._mode == "fragment" else Encoded(raw)
            self._keep.append(a)
        return self._done[key]


# What an array becomes in the dict: an orjson fragment, a chunk or a Python list.
ArrayEncoder = Callable[[np.ndarray[Any, Any]], Any]


def _as_list(a: np.ndarray[Any, Any]) -> Any:
    """A small response's arrays: ``tolist`` costs less than remembering what was already
    encoded (a repeated array is listed twice; orjson writes the same bytes either way)."""
    return a.tolist()


def _head_fields(h: HeadStages, enc: ArrayEncoder) -> dict[str, Any]:
    return {
        "q": enc(h.q),
        "k": enc(h.k),
        "v": enc(h.v),
        "scores": enc(h.scores),
        "scaled": enc(h.scaled),
        "masked": enc(h.masked),  # `scaled` itself when nothing is masked: encoded once
        "weights": enc(h.weights),
        "output": enc(h.output),
        "d_k": h.d_k,
        "divisor": h.divisor,
        "row_sum": enc(h.row_sum),
        "row_entropy": enc(h.row_entropy),
        "row_argmax": h.row_argmax,
        "row_max": enc(h.row_max),
    }


def stages_to_dict(stages: Stages, enc: ArrayEncoder | None = None) -> dict[str, Any]:
    """The API v1 attention response, ready for ``encode``."""
    enc = enc or _Encoder()
    heads = [_head_fields(h, enc) for h in stages.heads]
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
        "positional": None if stages.positional is None else enc(stages.positional),
    }


# Chunks smaller than this are merged, so a response is a few large writes, not hundreds.
_SMALL = 1 << 16


def stages_to_chunks(stages: Stages) -> list[bytes]:
    """The same JSON as ``encode(stages_to_dict(stages))``, as chunks to write in order."""
    if stages.head.weights.size * len(stages.heads) <= _SMALL // 16:
        return [encode(stages_to_dict(stages, _as_list))]  # one orjson call
    chunks: list[bytes] = []
    small = bytearray()

    def emit(part: bytes | Encoded) -> None:
        nonlocal small
        if isinstance(part, Encoded) and len(part.data) >= _SMALL:
            if small:
                chunks.append(bytes(small))
                small = bytearray()
            chunks.append(part.data)  # the same bytes object wherever the array repeats
        else:
            small += part.data if isinstance(part, Encoded) else part

    _walk(stages_to_dict(stages, _Encoder("chunk")), emit)
    if small:
        chunks.append(bytes(small))
    return chunks


def _walk(value: Any, emit: Any) -> None:
    """Write ``value`` as JSON through ``emit``: Encoded arrays as they are, the rest by orjson."""
    if isinstance(value, Encoded):
        emit(value)
    elif isinstance(value, dict):
        emit(b"{")
        for i, (key, item) in enumerate(value.items()):
            emit(orjson.dumps(key) + b":" if i == 0 else b"," + orjson.dumps(key) + b":")
            _walk(item, emit)
        emit(b"}")
    elif isinstance(value, list) and any(isinstance(v, dict | Encoded) for v in value):
        emit(b"[")
        for i, item in enumerate(value):
            if i:
                emit(b",")
            _walk(item, emit)
        emit(b"]")
    else:
        emit(orjson.dumps(value, option=_OPTIONS))


def softmax_to_dict(s: SoftmaxStage, vector: bool, vector_values: bool = False) -> dict[str, Any]:
    """The softmax response; a vector request gets vectors back, a matrix gets matrices.
    ``output`` (only with values) drops the value axis when the values were a vector."""

    def pick(a: Any) -> Any:
        return a[0] if vector else a

    extra: dict[str, Any] = {}
    if s.output is not None:
        extra["output"] = pick(s.output[:, 0] if vector_values else s.output)
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
        "row_sums": pick(s.row_sums),
        **extra,
        "mask_order": s.mask_order,
        "warnings": list(s.warnings),
    }


def encode(payload: Any) -> bytes:
    """JSON bytes; NaN and ±inf become null (orjson's rule), numpy arrays become lists."""
    return orjson.dumps(payload, option=_OPTIONS)


def json_block(payload: Any) -> str:
    """JSON for a ``<script type="application/json">`` block: ``<``, ``>`` and ``&`` are
    escaped, so no text inside can end the element or start markup."""
    text = encode(payload).decode()
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
