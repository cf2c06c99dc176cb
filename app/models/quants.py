"""ggml's block quantizations, kept as blocks and dequantized on use, exactly as defined.

A matrix of ``rows × cols`` values is stored row by row in blocks of 32 consecutive values
of a row (ggml's ``QK4_1 = QK8_0 = 32``):

- **Q4_1** (20 bytes a block): ``d`` and ``m`` (float16), then 16 bytes ``qs``; value
  ``j < 16`` is ``(qs[j] & 0xF) · d + m`` and value ``j + 16`` is ``(qs[j] >> 4) · d + m``
  (ggml's ``dequantize_row_q4_1``, computed in float32).
- **Q8_0** (34 bytes a block): ``d`` (float16), then 32 signed bytes ``qs``; value ``j`` is
  ``qs[j] · d``.

The blocks are kept as they are (about 0.75 bytes a value once ``d`` and ``m`` are
float32), so 135 M parameters take about 110 MB, not the 540 MB of float32; a layer's
matrices are dequantized when the layer runs. ``take_rows`` reorders rows (the
un-permutation of Q and K for RoPE is a row reordering, done on the blocks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BLOCK = 32
Q4_1, Q8_0, F32 = 3, 8, 0


@dataclass(frozen=True)
class Q41Matrix:
    """(rows, cols) in Q4_1 blocks: d, m (rows, blocks) float32, qs (rows, blocks, 16)."""

    d: np.ndarray
    m: np.ndarray
    qs: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        rows, blocks = self.d.shape
        return rows, blocks * BLOCK

    @property
    def nbytes(self) -> int:
        return self.d.nbytes + self.m.nbytes + self.qs.nbytes

    def dequantize(self) -> np.ndarray:
        """(rows, cols) float32: (nibble · d) + m, low nibbles first in each block."""
        codes = np.concatenate((self.qs & 0x0F, self.qs >> 4), axis=-1).astype(np.float32)
        codes *= self.d[..., None]
        codes += self.m[..., None]
        return codes.reshape(self.shape)

    def take_rows(self, order: np.ndarray) -> Q41Matrix:
        return Q41Matrix(self.d[order], self.m[order], self.qs[order])


@dataclass(frozen=True)
class Q80Matrix:
    """(rows, cols) in Q8_0 blocks: d (rows, blocks) float32, qs (rows, blocks, 32) int8."""

    d: np.ndarray
    qs: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        rows, blocks = self.d.shape
        return rows, blocks * BLOCK

    @property
    def nbytes(self) -> int:
        return self.d.nbytes + self.qs.nbytes

    def dequantize(self) -> np.ndarray:
        """(rows, cols) float32: qs · d."""
        return self.rows(slice(None))

    def rows(self, which: slice | np.ndarray) -> np.ndarray:
        """(len(which), cols) float32: only the rows asked for (an embedding lookup)."""
        values = self.qs[which].astype(np.float32)
        values *= self.d[which][..., None]
        return values.reshape(len(values), -1)

    def take_rows(self, order: np.ndarray) -> Q80Matrix:
        return Q80Matrix(self.d[order], self.qs[order])


# Rows dequantized at a time by ``project``: 2^17 float32 values (512 KiB) stay in the
# core's cache between being written and being read by the matrix product, which made a
# layer about twice as fast as dequantizing whole matrices (measured: 12.5 ms vs 25 ms).
CHUNK_VALUES = 1 << 17


def _dequantize_rows(w: Q41Matrix | Q80Matrix, r0: int, r1: int, out: np.ndarray) -> None:
    """Rows r0:r1 of ``w`` into ``out`` (r1 - r0, blocks, 32), exactly as ``dequantize``."""
    if isinstance(w, Q41Matrix):
        qs = w.qs[r0:r1]
        np.bitwise_and(qs, 0x0F, out=out[..., :16], casting="unsafe")
        np.right_shift(qs, 4, out=out[..., 16:], casting="unsafe")
        out *= w.d[r0:r1, :, None]
        out += w.m[r0:r1, :, None]
    else:
        np.multiply(w.qs[r0:r1], w.d[r0:r1, :, None], out=out, casting="unsafe")


def project(x: np.ndarray, w: Q41Matrix | Q80Matrix) -> np.ndarray:
    """(n, cols) @ (rows, cols)ᵀ → (n, rows) float32: x Wᵀ with W dequantized a few rows
    at a time (the whole float32 matrix never exists)."""
    rows, cols = w.shape
    step = max(1, CHUNK_VALUES // cols)
    buffer = np.empty((min(step, rows), cols // BLOCK, BLOCK), np.float32)
    y = np.empty((len(x), rows), np.float32)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        part = buffer[: r1 - r0]
        _dequantize_rows(w, r0, r1, part)
        y[:, r0:r1] = x @ part.reshape(r1 - r0, cols).T
    return y


def _halves(raw: np.ndarray, at: int) -> np.ndarray:
    """The float16 at byte ``at`` of every block, as float32 (rows, blocks)."""
    return raw[..., at : at + 2].copy().view(np.float16)[..., 0].astype(np.float32)


def from_bytes(raw: np.ndarray, shape: tuple[int, ...], ggml_type: int) -> Q41Matrix | Q80Matrix:
    """A quantized (rows, cols) matrix from its bytes as a GGUF file stores them."""
    rows, cols = shape
    if ggml_type == Q4_1:
        blocks = raw.reshape(rows, cols // BLOCK, 20)
        return Q41Matrix(_halves(blocks, 0), _halves(blocks, 2), blocks[..., 4:].copy())
    if ggml_type == Q8_0:
        blocks = raw.reshape(rows, cols // BLOCK, 34)
        return Q80Matrix(_halves(blocks, 0), blocks[..., 2:].copy().view(np.int8))
    raise ValueError(f"ggml type {ggml_type} is neither Q4_1 nor Q8_0")


def float32(raw: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """An F32 tensor from its bytes (a copy: the file may be closed after loading)."""
    out: np.ndarray = raw.copy().view("<f4").reshape(shape).astype(np.float32)
    return out
