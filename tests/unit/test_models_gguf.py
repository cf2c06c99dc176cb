"""Our GGUF reader and ggml dequantization agree with the ``gguf`` package (llama.cpp's).

A small file written here by ``gguf.GGUFWriter`` (metadata of every kind we read, F32, Q4_1
and Q8_0 tensors quantized by ``gguf.quants``) always runs; the real SmolLM2 file runs when
installed: every tensor's name, shape and type as ``GGUFReader`` sees them, and its values
bit for bit as ``gguf.dequantize`` gives them. Also: ``project`` is x Wᵀ, and the row order
of ``llama.unpermute_rows`` undoes the conversion's RoPE permutation.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from models_support import needs_smollm2, smollm2_file

from app.models import gguf_file, llama, quants

gguf = pytest.importorskip("gguf")
Q = gguf.GGMLQuantizationType


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, np.ndarray]]:
    """A GGUF file with three tensors, and the float32 values they were made from."""
    rng = np.random.default_rng(0)
    values = {
        "norm": rng.normal(size=64).astype(np.float32),
        "q4": rng.normal(size=(6, 96)).astype(np.float32),
        "q8": rng.normal(scale=3, size=(5, 64)).astype(np.float32),
    }
    path = tmp_path_factory.mktemp("gguf") / "small.gguf"
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_uint32("test.count", 7)
    writer.add_float32("test.eps", 1e-5)
    writer.add_bool("test.flag", False)
    writer.add_string("test.name", "café 🙂")
    writer.add_array("test.tokens", ["a", "Ġb", "東"])
    writer.add_tensor("norm", values["norm"])
    for name, kind in (("q4", Q.Q4_1), ("q8", Q.Q8_0)):
        data = gguf.quants.quantize(values[name], kind)
        writer.add_tensor(name, data, raw_shape=data.shape, raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path, values


def test_the_metadata_and_tensors_of_a_small_file(
    small: tuple[Path, dict[str, np.ndarray]],
) -> None:
    path, values = small
    file = gguf_file.read(path)
    meta = file.metadata
    assert meta["general.architecture"] == "llama"
    assert (meta["test.count"], meta["test.flag"], meta["test.name"]) == (7, False, "café 🙂")
    assert meta["test.eps"] == pytest.approx(1e-5)
    assert meta["test.tokens"] == ["a", "Ġb", "東"]
    assert {n: (t.shape, t.ggml_type) for n, t in file.tensors.items()} == {
        "norm": ((64,), 0), "q4": ((6, 96), 3), "q8": ((5, 64), 8)
    }  # fmt: skip
    reader = gguf.GGUFReader(path)
    for t in reader.tensors:
        ours = _values(file, t.name)
        assert np.array_equal(ours, gguf.dequantize(t.data, t.tensor_type)), t.name
        assert ours.shape == values[t.name].shape
    # Q4_1 keeps a block's range in 16 steps; Q8_0 its largest magnitude in 127.
    assert np.abs(_values(file, "q4") - values["q4"]).max() < 0.5
    assert np.abs(_values(file, "q8") - values["q8"]).max() < 0.1


def _values(file: gguf_file.GGUF, name: str) -> np.ndarray:
    info = file.tensors[name]
    if info.ggml_type == quants.F32:
        return quants.float32(file.raw(name), info.shape)
    return quants.from_bytes(file.raw(name), info.shape, info.ggml_type).dequantize()


def test_a_file_that_is_not_gguf_version_3_is_refused(
    small: tuple[Path, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    data = small[0].read_bytes()
    (tmp_path / "a").write_bytes(b"GGML" + data[4:])
    with pytest.raises(gguf_file.GGUFError, match="not a GGUF file"):
        gguf_file.read(tmp_path / "a")
    (tmp_path / "b").write_bytes(data[:4] + (2).to_bytes(4, "little") + data[8:])
    with pytest.raises(gguf_file.GGUFError, match="version 2"):
        gguf_file.read(tmp_path / "b")
    (tmp_path / "c").write_bytes(data[:-64])
    with pytest.raises(gguf_file.GGUFError, match="past the end"):
        gguf_file.read(tmp_path / "c")


def test_project_is_x_times_the_dequantized_transpose() -> None:
    rng = np.random.default_rng(1)
    w = rng.normal(size=(300, 1536)).astype(np.float32)  # more rows than one chunk holds
    x = rng.normal(size=(7, 1536)).astype(np.float32)
    for kind in (Q.Q4_1, Q.Q8_0):
        blocks = gguf.quants.quantize(w, kind).reshape(-1)
        matrix = quants.from_bytes(blocks, w.shape, int(kind))
        exact = x.astype(np.float64) @ matrix.dequantize().T.astype(np.float64)
        assert np.abs(quants.project(x, matrix) - exact).max() < 1e-3


def test_unpermute_rows_undoes_the_conversions_rope_permutation() -> None:
    # The conversion to GGUF, as llama.cpp's convert script documents it: within each head
    # the two halves (rotate-half form) are interleaved, row s·d/2 + i going to row 2i + s.
    heads, d, cols = 3, 8, 2
    hf = np.arange(heads * d * cols).reshape(heads * d, cols)
    converted = hf.reshape(heads, 2, d // 2, cols).swapaxes(1, 2).reshape(hf.shape)
    assert np.array_equal(converted[llama.unpermute_rows(heads, d)], hf)


@pytest.mark.slow  # a forward pass of SmolLM2 or more: seconds alone
@needs_smollm2
def test_every_tensor_of_smollm2_as_the_gguf_package_reads_it() -> None:
    file = gguf_file.read(smollm2_file())
    reader = gguf.GGUFReader(smollm2_file())
    assert len(file.tensors) == len(reader.tensors) == 272
    for t in reader.tensors:
        info = file.tensors[t.name]
        assert info.shape == tuple(int(n) for n in reversed(t.shape)), t.name
        assert info.ggml_type == int(t.tensor_type), t.name
    for key in ("llama.rope.freq_base", "llama.attention.head_count_kv", "tokenizer.ggml.pre"):
        assert file.metadata[key] == reader.fields[key].contents(), key
    assert (
        file.metadata["tokenizer.ggml.merges"] == reader.fields["tokenizer.ggml.merges"].contents()
    )
    # Bit for bit: the embeddings (Q8_0), a whole first and last layer (Q4_1, F32).
    names = ["token_embd.weight", "output_norm.weight"]
    names += [t.name for t in reader.tensors if t.name.startswith(("blk.0.", "blk.29."))]
    by_name = {t.name: t for t in reader.tensors}
    for name in names:
        t = by_name[name]
        assert np.array_equal(_values(file, name), gguf.dequantize(t.data, t.tensor_type)), name
