"""The real-model API: the list, a text's attention in every head, one head as a body
for POST /api/v1/attention (whose weights must be the model's own), and every refusal:
an unknown or uninstalled model (404 with the install command), a text too long, a layer
or head out of range (422 naming the field)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from models_support import needs_minilm

from app.inputs.model_text import MAX_TEXT_CHARS
from app.models import registry

INSTALL = "attention-lab models install minilm"
SENTENCE = "The cat sat on the mat, and the cat slept."


def test_the_list_names_each_model_and_how_to_install_it(client: TestClient) -> None:
    r = client.get("/api/v1/models")
    assert r.status_code == 200
    (minilm,) = [m for m in r.json()["models"] if m["id"] == "minilm"]
    assert minilm == {
        "id": "minilm", "name": "all-MiniLM-L6-v2", "causal": False, "layers": 6,
        "heads": 12, "d_model": 384, "d_k": 32, "installed": registry.installed("minilm"),
        "licence": "Apache-2.0",
        "source": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        "tokenizer": "WordPiece (uncased)", "max_tokens": 128, "install": INSTALL,
        "known_heads": [],
        # multi-head: one key/value head per query head, no RoPE, nothing generated
        "kv_heads": 12, "rope_base": None, "head_groups": [[h] for h in range(12)],
        "generates": False,
    }  # fmt: skip


@pytest.mark.parametrize("route", ["attention", "head"])
def test_a_model_not_installed_is_a_404_with_the_command(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    monkeypatch.setattr(registry, "installed", lambda model_id: False)
    r = client.post(f"/api/v1/models/minilm/{route}", json={"text": "hi"})
    assert r.status_code == 404
    body = r.json()
    assert body["install"] == INSTALL
    (item,) = body["detail"]
    assert item["field"] == "model_id"
    assert item["msg"] == f"all-MiniLM-L6-v2 (minilm) is not installed; install it with: {INSTALL}"
    assert client.get("/api/v1/models").json()["models"][0]["installed"] is False


def test_an_unknown_model_is_a_404_naming_the_known_ones(client: TestClient) -> None:
    r = client.post("/api/v1/models/gpt-9/attention", json={"text": "hi"})
    assert r.status_code == 404
    assert r.json()["detail"][0]["msg"] == "no model 'gpt-9'; known: minilm, tiny-decoder, smollm2"
    assert "install" not in r.json()


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "text", f"at most {MAX_TEXT_CHARS} characters"),
        ({"text": ""}, "text", "at least 1 character"),
        ({}, "text", "required"),
        ({"text": 3}, "text", "string"),
        ({"text": "hi", "extra": 1}, "extra", "unknown field"),
    ],
)
def test_a_bad_body_is_a_422_naming_the_field(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, body: dict, field: str, words: str
) -> None:
    monkeypatch.setattr(registry, "installed", lambda model_id: True)  # refused before loading
    r = client.post("/api/v1/models/minilm/attention", json=body)
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["field"] == field
    assert words in item["msg"]


@needs_minilm
def test_every_layer_and_head_of_a_text(client: TestClient) -> None:
    gate = client.app.state.gate  # type: ignore[attr-defined]
    before = gate.priced
    r = client.post("/api/v1/models/minilm/attention", json={"text": SENTENCE})
    assert r.status_code == 200
    assert gate.priced == before + 1
    out = r.json()
    tokens = out["tokens"]
    assert tokens[0] == "[CLS]"
    assert tokens[-1] == "[SEP]"
    assert out["special"] == [t in ("[CLS]", "[SEP]") for t in tokens]
    assert out["causal"] is False
    a = np.array(out["attentions"])
    assert a.shape == (6, 12, len(tokens), len(tokens))
    assert np.allclose(a.sum(-1), 1, atol=1e-5)
    assert np.array_equal(a, np.round(a, 6))
    trace = registry.get("minilm").trace(SENTENCE)
    assert np.abs(a - trace.attentions).max() <= 5e-7
    assert len(out["summaries"]) == 6
    first = out["summaries"][0][0]
    assert set(first) == {"pattern", "entropy", "scores"}
    assert "induction" in first["scores"]  # "the cat" repeats
    assert {h["pattern"] for layer in out["summaries"] for h in layer} <= {
        "previous", "next", "self", "first", "last", "special", "same_word", "induction", "broad"
    }  # fmt: skip


@needs_minilm
def test_a_text_of_too_many_tokens_is_a_422_naming_text(client: TestClient) -> None:
    r = client.post("/api/v1/models/minilm/attention", json={"text": "word " * 127})
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["field"] == "text"
    assert "129 tokens" in item["msg"]
    assert "at most 128" in item["msg"]


@needs_minilm
@pytest.mark.parametrize(("layer", "head"), [(0, 0), (3, 7), (5, 11)])
def test_a_head_opened_as_a_state_gives_the_models_own_weights(
    client: TestClient, layer: int, head: int
) -> None:
    r = client.post("/api/v1/models/minilm/head",
                    json={"text": SENTENCE, "layer": layer, "head": head})  # fmt: skip
    assert r.status_code == 200
    out = r.json()
    assert "column of ones" in out["note"]
    body = out["body"]
    n = len(body["tokens"])
    assert np.array(body["x"]).shape == (n, 385)
    assert np.all(np.array(body["x"])[:, -1] == 1)
    assert np.array(body["w_q"]).shape == (385, 32)
    assert body["scale"] is True
    assert body["mask"] == "none"
    weights = np.array(client.post("/api/v1/attention", json=body).json()["weights"])
    trace = registry.get("minilm").trace(SENTENCE)
    assert np.abs(weights - trace.attentions[layer, head]).max() <= 2e-6


@needs_minilm
@pytest.mark.parametrize(("field", "value"), [("layer", 6), ("head", 12)])
def test_a_layer_or_head_out_of_range_is_a_422_naming_it(
    client: TestClient, field: str, value: int
) -> None:
    body = {"text": "hi", "layer": 0, "head": 0, field: value}
    r = client.post("/api/v1/models/minilm/head", json=body)
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["field"] == field
    assert f"numbered 0 to {value - 1}; got {value}" in item["msg"]


@needs_minilm
def test_figure_6_of_the_head_state_is_the_models_attention(make_client: Any) -> None:
    # d_model + 1 = 385 columns: drawn when the figure width limit allows it (the default
    # 128 draws none; POST /api/v1/attention above computes it at any setting).
    with make_client(max_figure_width=512) as wide:
        body = wide.post("/api/v1/models/minilm/head",
                         json={"text": SENTENCE, "layer": 2, "head": 4}).json()["body"]  # fmt: skip
        r = wide.post("/api/v1/figures?draw=grids", json=body)
    assert r.status_code == 200
    grid = r.json()["grids"]["weights"]
    assert grid["rows"] == body["tokens"]
    trace = registry.get("minilm").trace(SENTENCE)
    assert np.abs(np.array(grid["values"]) - trace.attentions[2, 4]).max() <= 2e-6


def test_a_model_without_shared_key_value_heads_sends_no_k_and_v(client: TestClient) -> None:
    out = client.post("/api/v1/models/tiny-decoder/attention", json={"text": "abab"}).json()
    assert out["k"] is None
    assert out["v"] is None
