"""A GGUF file read as data: its metadata, its tensors' names, shapes, types and bytes.

GGUF (version 3, little-endian) is llama.cpp's model file: the magic ``GGUF``, a version,
the number of tensors and of metadata pairs; then each metadata pair (a string key, a
value type, a value: numbers, booleans, strings or arrays of them); then each tensor's
name, dimensions (innermost first, ``ne0``), ggml type and offset; then, from the next
multiple of ``general.alignment`` (32 by default), the tensors' data. ``read`` parses the
header with ``struct`` and maps the file (``numpy.memmap``: nothing is read until used);
``GGUF.raw(name)`` is a tensor's bytes as a read-only ``uint8`` view. Dequantizing is
``app.models.quants``' job. Tested against the ``gguf`` package's ``GGUFReader``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"GGUF"
VERSION = 3
DEFAULT_ALIGNMENT = 32

# Scalar value types of a metadata pair: code → struct format (all little-endian).
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
           10: "<Q", 11: "<q", 12: "<d"}  # fmt: skip
STRING, ARRAY = 8, 9


class GGUFError(ValueError):
    """The file is not a GGUF file this reader understands (message says where)."""


@dataclass(frozen=True)
class TensorInfo:
    """One tensor: ``shape`` in numpy order (outermost first: rows, then columns)."""

    name: str
    shape: tuple[int, ...]
    ggml_type: int  # 0 F32, 1 F16, 2 Q4_0, 3 Q4_1, 8 Q8_0, …
    offset: int  # from the start of the data section
    size: int  # bytes


class _Cursor:
    """Reads little-endian values one after another from a buffer."""

    def __init__(self, buffer: np.ndarray) -> None:
        self.buffer = buffer.data.cast("B")
        self.at = 0

    def unpack(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(fmt, self.buffer, self.at)
        self.at += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        length = self.unpack("<Q")
        text = bytes(self.buffer[self.at : self.at + length]).decode("utf-8")
        self.at += length
        return text

    def value(self, kind: int) -> Any:
        if kind in SCALARS:
            return self.unpack(SCALARS[kind])
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            item, count = self.unpack("<I"), self.unpack("<Q")
            return [self.value(item) for _ in range(count)]
        raise GGUFError(f"unknown metadata value type {kind} at byte {self.at}")


# Bytes of one block and values per block, per ggml type this project reads.
BLOCKS: dict[int, tuple[int, int]] = {0: (4, 1), 1: (2, 1), 3: (20, 32), 8: (34, 32)}


def _tensor_size(shape: tuple[int, ...], ggml_type: int) -> int:
    if ggml_type not in BLOCKS:
        raise GGUFError(f"ggml type {ggml_type} is not one this reader dequantizes")
    block_bytes, per_block = BLOCKS[ggml_type]
    values = int(np.prod(shape))
    return values // per_block * block_bytes


@dataclass(frozen=True)
class GGUF:
    """A parsed GGUF file: metadata by key, tensors by name, the mapped bytes."""

    path: Path
    metadata: dict[str, Any]
    tensors: dict[str, TensorInfo]
    data: np.ndarray  # uint8 memmap of the data section, read-only

    def raw(self, name: str) -> np.ndarray:
        """The bytes of tensor ``name`` (a view of the mapped file, uint8)."""
        info = self.tensors[name]
        return self.data[info.offset : info.offset + info.size]


def _header(cursor: _Cursor) -> tuple[int, int]:
    if bytes(cursor.buffer[:4]) != MAGIC:
        raise GGUFError("not a GGUF file (the first 4 bytes are not 'GGUF')")
    cursor.at = 4
    version = cursor.unpack("<I")
    if version != VERSION:
        raise GGUFError(f"GGUF version {version}; this reader reads version {VERSION}")
    return cursor.unpack("<Q"), cursor.unpack("<Q")


def _tensor_info(cursor: _Cursor) -> TensorInfo:
    name = cursor.string()
    dims = [cursor.unpack("<Q") for _ in range(cursor.unpack("<I"))]
    ggml_type, offset = cursor.unpack("<I"), cursor.unpack("<Q")
    shape = tuple(reversed(dims))  # ne0 is the innermost (contiguous) dimension
    return TensorInfo(name, shape, ggml_type, offset, _tensor_size(shape, ggml_type))


def read(path: Path, mapper: Callable[..., np.ndarray] = np.memmap) -> GGUF:
    """Parse the header of the GGUF file at ``path`` and map its data section."""
    whole = mapper(path, dtype=np.uint8, mode="r")
    cursor = _Cursor(whole)
    n_tensors, n_pairs = _header(cursor)
    metadata: dict[str, Any] = {}
    for _ in range(n_pairs):
        key = cursor.string()
        metadata[key] = cursor.value(cursor.unpack("<I"))
    infos = [_tensor_info(cursor) for _ in range(n_tensors)]
    alignment = int(metadata.get("general.alignment", DEFAULT_ALIGNMENT))
    start = -(-cursor.at // alignment) * alignment
    data = whole[start:]
    for info in infos:
        if info.offset + info.size > len(data):
            raise GGUFError(f"tensor {info.name} runs past the end of the file")
    return GGUF(path, metadata, {t.name: t for t in infos}, data)
