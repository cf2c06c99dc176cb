"""The numpy encoder agrees with two independent implementations of all-MiniLM-L6-v2.

Both are written here from BERT's definition, not from app/models: a float64 numpy one
(heads one by one, ``math.erf`` for the GELU, variance with ``np.var``), which always
runs, and a PyTorch one (``torch.nn.functional``'s layer_norm, gelu, softmax), which runs
when torch is installed. Both read the weights with safetensors directly and take the
token ids from the ``tokenizers`` library. Every layer's input and every head's weights
must agree to 1e-5.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from models_support import minilm_folder, needs_minilm

from app.models import registry

pytestmark = needs_minilm
TOL = 1e-5
LAYERS, HEADS, D_K = 6, 12, 32
TEXTS = [
    "I love LLMs",
    "The bank raised interest rates; we sat on the river bank, unbelievably calm. "
    "Naïve café owners in 東京 don't mind emoji 😀!",
]


def weights() -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return dict(load_file(str(minilm_folder() / "model.safetensors")))


def encoded(text: str) -> tuple[list[int], list[str]]:
    """(ids, tokens) of the reference tokenizer, padding and truncation off."""
    tokenizers = pytest.importorskip("tokenizers")
    tk = tokenizers.Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tk.no_padding()
    tk.no_truncation()
    found = tk.encode(text)
    return list(found.ids), list(found.tokens)


class Float64:
    """The weights in float64, converted when first read (not the 30522-row embedding
    table: only the rows a text uses)."""

    def __init__(self, w: dict[str, np.ndarray], wrap: Any = lambda a: a) -> None:
        self.w, self.wrap = w, wrap
        self.done: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.done:
            self.done[name] = self.wrap(self.w[name].astype(np.float64))
        return self.done[name]

    def rows(self, name: str, ids: list[int]) -> Any:
        return self.wrap(self.w[name][ids].astype(np.float64))


def reference_float64(w: dict[str, np.ndarray], ids: list[int]) -> tuple[list[Any], Any]:
    """(layer inputs, attentions (layers, heads, n, n)) in float64, head by head."""
    p = Float64(w)

    def norm(x: np.ndarray, prefix: str) -> np.ndarray:
        return (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-12) * p[
            f"{prefix}.weight"
        ] + p[f"{prefix}.bias"]

    def dense(x: np.ndarray, prefix: str) -> np.ndarray:
        return np.einsum("ni,oi->no", x, p[f"{prefix}.weight"]) + p[f"{prefix}.bias"]

    n = len(ids)
    x = (
        p.rows("embeddings.word_embeddings.weight", ids)
        + p["embeddings.position_embeddings.weight"][:n]
    )
    x = norm(x + p["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    inputs, attentions = [], []
    erf = np.vectorize(math.erf)
    for layer in range(LAYERS):
        pre = f"encoder.layer.{layer}"
        inputs.append(x)
        q, k, v = (dense(x, f"{pre}.attention.self.{m}") for m in ("query", "key", "value"))
        heads, outs = [], []
        for h in range(HEADS):
            c = slice(h * D_K, (h + 1) * D_K)
            s = q[:, c] @ k[:, c].T / math.sqrt(D_K)
            e = np.exp(s - s.max(1, keepdims=True))
            a = e / e.sum(1, keepdims=True)
            heads.append(a)
            outs.append(a @ v[:, c])
        attentions.append(heads)
        x = norm(x + dense(np.hstack(outs), f"{pre}.attention.output.dense"),
                 f"{pre}.attention.output.LayerNorm")  # fmt: skip
        hidden = dense(x, f"{pre}.intermediate.dense")
        hidden = 0.5 * hidden * (1 + erf(hidden / math.sqrt(2)))
        x = norm(x + dense(hidden, f"{pre}.output.dense"), f"{pre}.output.LayerNorm")
    return inputs, np.array(attentions)


def reference_torch(w: dict[str, np.ndarray], ids: list[int]) -> tuple[list[Any], Any]:
    """The same in PyTorch (float64), whole-tensor, with torch's own layer_norm and gelu."""
    torch = pytest.importorskip("torch", reason="PyTorch is optional")
    f = torch.nn.functional
    torch.set_num_threads(1)
    p = Float64(w, torch.from_numpy)

    def norm(x: Any, prefix: str) -> Any:
        return f.layer_norm(x, (384,), p[f"{prefix}.weight"], p[f"{prefix}.bias"], eps=1e-12)

    def lin(x: Any, prefix: str) -> Any:
        return f.linear(x, p[f"{prefix}.weight"], p[f"{prefix}.bias"])

    n = len(ids)
    x = (
        p.rows("embeddings.word_embeddings.weight", ids)
        + p["embeddings.position_embeddings.weight"][:n]
    )
    x = norm(x + p["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    inputs, attentions = [], []
    for layer in range(LAYERS):
        pre = f"encoder.layer.{layer}"
        inputs.append(x.numpy())
        q, k, v = (lin(x, f"{pre}.attention.self.{m}").view(n, HEADS, D_K).transpose(0, 1)
                   for m in ("query", "key", "value"))  # fmt: skip
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D_K), dim=-1)
        attentions.append(a.numpy())
        z = (a @ v).transpose(0, 1).reshape(n, HEADS * D_K)
        x = norm(x + lin(z, f"{pre}.attention.output.dense"), f"{pre}.attention.output.LayerNorm")
        hidden = f.gelu(lin(x, f"{pre}.intermediate.dense"))  # exact erf (approximate='none')
        x = norm(x + lin(hidden, f"{pre}.output.dense"), f"{pre}.output.LayerNorm")
    return inputs, np.array(attentions)


@pytest.fixture(scope="module")
def w() -> dict[str, np.ndarray]:
    return weights()


@pytest.mark.parametrize(
    "reference", [reference_float64, reference_torch], ids=["numpy64", "torch"]
)
@pytest.mark.parametrize("text", TEXTS, ids=["short", "long"])
def test_every_layer_input_and_head_agrees_with_an_independent_implementation(
    w: dict[str, np.ndarray], reference: Any, text: str
) -> None:
    model = registry.get("minilm")
    trace = model.trace(text)
    ids, tokens = encoded(text)
    assert list(trace.tokens) == tokens
    inputs, attentions = reference(w, ids)
    assert trace.attentions.shape == (LAYERS, HEADS, len(ids), len(ids))
    assert trace.attentions.dtype == np.float32
    assert np.abs(trace.attentions - attentions).max() <= TOL
    for layer in range(LAYERS):
        assert np.abs(trace.layer_inputs[layer] - inputs[layer]).max() <= TOL * 10, layer
    assert trace.mask is None
    assert np.allclose(trace.attentions.sum(-1), 1, atol=1e-6)


def test_a_head_is_its_slice_of_the_projections(w: dict[str, np.ndarray]) -> None:
    head = registry.get("minilm").head(2, 5)
    q = w["encoder.layer.2.attention.self.query.weight"]
    assert head.W_q.shape == (384, 32)
    assert head.b_q.shape == (32,)
    assert np.array_equal(head.W_q, q[5 * 32 : 6 * 32].T)
    assert np.array_equal(head.b_v, w["encoder.layer.2.attention.self.value.bias"][160:192])
    assert head.W_k.dtype == np.float32


def test_a_text_longer_than_the_model_takes_is_refused_naming_text() -> None:
    from app.models.errors import ModelInputError

    model = registry.get("minilm")
    with pytest.raises(ModelInputError) as info:
        model.trace("word " * 127)  # 127 words + [CLS] + [SEP] = 129 tokens
    assert info.value.field == "text"
    assert "129 tokens" in info.value.message
    assert len(model.trace("word " * 126).tokens) == 128
