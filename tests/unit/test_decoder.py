"""The tiny decoder's files, tokenizer and numpy forward pass (app/models/decoder.py).

The forward pass is checked three ways: against the training script's PyTorch model on
the same weights (1e-5; skipped without torch), against a float64 re-implementation
written here one head at a time (1e-5; always runs), and head by head against its own
slices (x W_q + b_q … gives back that head's weights, as the figures will compute them).
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.models import decoder, registry
from app.models.errors import ModelInputError
from app.models.weights import load_tensors, sha256_of

TEXTS = ["", "a", "abcabc", "the quick brown fox jumps over the lazy dog", "qwerty" * 6 + "zxcv"]
TRAINING = Path(__file__).resolve().parents[2] / "training" / "train_decoder.py"


@pytest.fixture(scope="module")
def model() -> decoder.TinyDecoder:
    loaded = registry.get("tiny-decoder")
    assert isinstance(loaded, decoder.TinyDecoder)
    return loaded


def test_the_files_are_the_pinned_ones_and_the_json_records_the_weights() -> None:
    entry = registry.entry("tiny-decoder")
    assert set(entry.files) == {decoder.WEIGHTS, decoder.CONFIG}
    for name, digest in entry.files.items():
        assert sha256_of(decoder.DATA / name) == digest, name
    config = json.loads((decoder.DATA / decoder.CONFIG).read_text(encoding="utf-8"))
    assert config["sha256"] == entry.files[decoder.WEIGHTS]
    assert registry.installed("tiny-decoder")
    assert entry.install is None  # it ships with the app


def test_the_weights_are_small_float32_and_match_the_spec() -> None:
    assert (decoder.DATA / decoder.WEIGHTS).stat().st_size <= 2 * 1024 * 1024
    tensors = load_tensors(decoder.DATA / decoder.WEIGHTS)
    assert {t.dtype for t in tensors.values()} == {np.dtype(np.float32)}
    s = decoder.SPEC
    assert s.d_model <= 128
    assert s.d_k * s.heads == s.d_model
    assert tensors["tok_embed"].shape == (len(decoder.ALPHABET) + 1, s.d_model)
    assert tensors["pos_embed"].shape == (s.max_tokens, s.d_model)
    assert tensors[f"layers.{s.layers - 1}.W_q"].shape == (s.d_model, s.d_model)
    assert s.causal
    assert s.special_tokens == (decoder.BOS,)


def test_tokenize_reads_letters_skips_spaces_and_folds_capitals(
    model: decoder.TinyDecoder,
) -> None:
    assert model.tokenize("Ab c") == [decoder.BOS, "a", "b", "c"]
    assert decoder.tokenize("") == [decoder.BOS]


@pytest.mark.parametrize("text", ["ab1", "hÉllo", "a-b", "bc\u0130"])
def test_an_unknown_character_is_named_with_the_alphabet(text: str) -> None:
    with pytest.raises(ModelInputError) as caught:
        decoder.tokenize(text)
    bad = next(c for c in text if c.lower() not in decoder.ALPHABET)
    assert caught.value.field == "text"
    assert repr(bad) in caught.value.message
    assert decoder.ALPHABET in caught.value.message


def test_a_text_past_the_context_is_refused_naming_the_limit() -> None:
    longest = "ab" * ((decoder.SPEC.max_tokens - 1) // 2)
    assert len(decoder.tokenize(longest)) <= decoder.SPEC.max_tokens
    with pytest.raises(ModelInputError) as caught:
        decoder.tokenize("a" * decoder.SPEC.max_tokens)
    assert caught.value.field == "text"
    assert str(decoder.SPEC.max_tokens - 1) in caught.value.message


@pytest.mark.parametrize("text", TEXTS)
def test_trace_is_causal_float32_and_rows_sum_to_one(model: decoder.TinyDecoder, text: str) -> None:
    trace = model.trace(text)
    n, s = len(trace.tokens), decoder.SPEC
    assert trace.tokens == tuple(decoder.tokenize(text))
    assert trace.attentions.shape == (s.layers, s.heads, n, n)
    assert trace.attentions.dtype == np.float32
    assert trace.mask is not None
    np.testing.assert_array_equal(trace.mask, np.triu(np.ones((n, n), dtype=bool), 1))
    assert (trace.attentions[..., trace.mask] == 0).all()  # exactly 0, not small
    np.testing.assert_allclose(trace.attentions.sum(axis=-1), 1, atol=1e-6)
    assert [x.shape for x in trace.layer_inputs] == [(n, s.d_model)] * s.layers


def reference(t: dict[str, np.ndarray], ids: list[int], eps: float) -> tuple[Any, Any]:
    """The model in float64, one head at a time with explicit loops over rows."""
    t = {k: v.astype(np.float64) for k, v in t.items()}
    s, n = decoder.SPEC, len(ids)

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mu, sd = x.mean(1, keepdims=True), np.sqrt(x.var(1, keepdims=True) + eps)
        return np.asarray((x - mu) / sd * t[f"{name}.weight"] + t[f"{name}.bias"])

    x = np.stack([t["tok_embed"][i] + t["pos_embed"][p] for p, i in enumerate(ids)])
    weights = np.zeros((s.layers, s.heads, n, n))
    for layer in range(s.layers):
        h, p = norm(x, f"layers.{layer}.ln"), f"layers.{layer}."
        out = np.tile(t[p + "b_o"], (n, 1))
        for head in range(s.heads):
            c = slice(head * s.d_k, (head + 1) * s.d_k)
            q, k, v = (h @ t[p + f"W_{m}"][:, c] + t[p + f"b_{m}"][c] for m in "qkv")
            for i in range(n):
                e = np.exp(k[: i + 1] @ q[i] / math.sqrt(s.d_k))
                weights[layer, head, i, : i + 1] = e / e.sum()
            out += weights[layer, head] @ v @ t[p + "W_o"][c]
        x = x + out
    return norm(x, "ln_f") @ t["unembed.W"] + t["unembed.b"], weights


@pytest.mark.parametrize("text", TEXTS)
def test_forward_equals_an_independent_float64_reference(
    model: decoder.TinyDecoder, text: str
) -> None:
    tokens = decoder.tokenize(text)
    ids = [model.ids[token] for token in tokens]
    logits, weights = reference(dict(model.t), ids, model.eps)
    f = model.forward(tokens)
    np.testing.assert_allclose(f.attentions, weights, atol=1e-5)
    np.testing.assert_allclose(f.logits, logits, atol=1e-5, rtol=1e-5)


def test_each_head_slice_reproduces_its_weights(model: decoder.TinyDecoder) -> None:
    trace = model.trace("abcdefgh abcdefgh")
    assert trace.mask is not None
    for layer in range(decoder.SPEC.layers):
        x = trace.layer_inputs[layer].astype(np.float64)
        for head in range(decoder.SPEC.heads):
            w = model.head(layer, head)
            assert w.W_q.shape == (decoder.SPEC.d_model, decoder.SPEC.d_k)
            q, k = x @ w.W_q + w.b_q, x @ w.W_k + w.b_k
            s = np.where(trace.mask, -np.inf, q @ k.T / math.sqrt(decoder.SPEC.d_k))
            a = np.exp(s - s.max(1, keepdims=True))
            np.testing.assert_allclose(
                a / a.sum(1, keepdims=True), trace.attentions[layer, head], atol=1e-5
            )


def test_forward_equals_the_training_model_in_torch(
    model: decoder.TinyDecoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch = pytest.importorskip("torch", reason="training extra: pip install -e '.[training]'")
    pytest.importorskip("safetensors.torch")
    # By its path: training/ is a folder of scripts, not a package on sys.path.
    spec = importlib.util.spec_from_file_location("train_decoder", TRAINING)
    assert spec is not None
    assert spec.loader is not None
    training = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, training)  # its dataclass looks itself up
    spec.loader.exec_module(training)
    Recipe, TinyDecoder = training.Recipe, training.TinyDecoder

    config = json.loads((decoder.DATA / decoder.CONFIG).read_text(encoding="utf-8"))
    trained = TinyDecoder(Recipe(**config["recipe"]))
    for name, array in model.t.items():
        trained.w(name).data.copy_(torch.from_numpy(array.copy()))
    for text in TEXTS:
        tokens = decoder.tokenize(text)
        with torch.no_grad():
            logits, attentions = trained(torch.tensor([[model.ids[t] for t in tokens]]))
        f = model.forward(tokens)
        np.testing.assert_allclose(f.logits, logits[0].numpy(), atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(f.attentions, torch.stack(attentions)[:, 0].numpy(), atol=1e-5)
