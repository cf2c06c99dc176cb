"""SmolLM2 through the existing model routes (real model, nothing faked; skipped when it
is not installed): its listing, its heads' weights, and one head opened as a state whose
weights, through POST /api/v1/attention, are the model's own (RoPE included)."""

from __future__ import annotations

import html

import numpy as np
import orjson
import pytest
from fastapi.testclient import TestClient
from models_support import needs_smollm2

from app.models import registry

pytestmark = needs_smollm2
TEXT = "The capital of France is"


def test_smollm2_is_listed_with_its_install_command(client: TestClient) -> None:
    listed = {m["id"]: m for m in client.get("/api/v1/models").json()["models"]}
    smollm2 = listed["smollm2"]
    assert (smollm2["layers"], smollm2["heads"], smollm2["d_k"]) == (30, 9, 64)
    assert smollm2["install"] == "attention-lab models install smollm2"
    assert smollm2["causal"] is True
    # 9 query heads share 3 key/value heads, consecutive ones together; RoPE's θ from the file
    assert smollm2["kv_heads"] == 3
    assert smollm2["head_groups"] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert smollm2["rope_base"] == registry.get("smollm2").rope_base == 100_000  # type: ignore[attr-defined]
    assert smollm2["generates"] is True


def test_a_rotated_head_opens_with_its_own_weights(client: TestClient) -> None:
    trace = registry.trace("smollm2", TEXT)
    answer = client.post("/api/v1/models/smollm2/attention", json={"text": TEXT}).json()
    assert answer["tokens"] == list(trace.tokens)
    np.testing.assert_allclose(answer["attentions"][29][4], trace.attentions[29, 4], atol=1e-6)
    for layer, head in ((0, 0), (29, 4), (12, 8)):
        body = client.post(
            "/api/v1/models/smollm2/head", json={"text": TEXT, "layer": layer, "head": head}
        ).json()["body"]
        assert len(body["x"][0]) == 3 * 64  # rotated q, rotated k, v
        weights = client.post("/api/v1/attention", json=body).json()["weights"]
        weights = np.nan_to_num(np.array(weights, dtype=float))  # blocked cells are null
        np.testing.assert_allclose(weights, trace.attentions[layer, head], atol=1e-6)


def test_the_head_note_names_rope_for_a_rotated_head(client: TestClient) -> None:
    answer = client.post(
        "/api/v1/models/smollm2/head", json={"text": TEXT, "layer": 3, "head": 5}
    ).json()
    note = answer["note"]
    assert "RoPE" in note
    assert "rotated q" in note
    assert "√64" in note
    assert "column of ones" not in note  # the biases' note is for the unrotated models


def test_the_answer_holds_each_key_value_heads_k_and_v(client: TestClient) -> None:
    trace = registry.trace("smollm2", TEXT)
    assert trace.queries is not None
    answer = client.post("/api/v1/models/smollm2/attention", json={"text": TEXT}).json()
    k, v = np.array(answer["k"], np.float32), np.array(answer["v"], np.float32)
    n = len(trace.tokens)
    assert k.shape == v.shape == (30, 3, n, 64)
    # float32 written in its shortest form reads back bit for bit
    assert np.array_equal(k, trace.keys)
    assert np.array_equal(v, trace.values)
    # Each group's query heads read that key/value head: softmax(q kᵀ / √64) with the
    # answer's k gives the answer's weights (and another group's k does not).
    listed = {m["id"]: m for m in client.get("/api/v1/models").json()["models"]}
    groups = listed["smollm2"]["head_groups"]
    blocked = np.triu(np.ones((n, n), dtype=bool), k=1)

    def weights(layer: int, head: int, kv: int) -> np.ndarray:
        scores = trace.queries[layer, head] @ k[layer, kv].T / 8  # type: ignore[index]
        scores[blocked] = -np.inf
        e = np.exp(scores - scores.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)  # type: ignore[no-any-return]

    for layer in (0, 17, 29):
        for kv, group in enumerate(groups):
            for head in group:
                got = np.array(answer["attentions"][layer][head])
                np.testing.assert_allclose(got, weights(layer, head, kv), atol=2e-6)
                wrong = weights(layer, head, (kv + 1) % 3)  # another group's keys
                assert np.abs(got - wrong).max() > 1e-2


def test_the_price_counts_k_and_v_and_bounds_the_answer(client: TestClient) -> None:
    from app.api.models_api import shape_of
    from app.inputs.model_text import ModelText, kv_cost, plan_attention

    shape = shape_of("smollm2")
    assert shape.kv_heads_sent == 3
    n = len(TEXT)  # the token bound: at most a token per character
    plan = plan_attention(ModelText(text=TEXT), shape)
    assert shape_of("tiny-decoder").kv_heads_sent == 0  # its answer has no k and v
    assert kv_cost(n, 30, 3, 64).cells == 2 * 30 * 3 * n * 64
    answer = client.post("/api/v1/models/smollm2/attention", json={"text": TEXT})
    assert len(answer.content) <= plan.cost.response_bytes
    kv_bytes = len(orjson.dumps([answer.json()["k"], answer.json()["v"]]))
    assert kv_bytes <= kv_cost(len(answer.json()["tokens"]), 30, 3, 64).response_bytes


def test_the_page_says_what_is_new_in_this_model(client: TestClient) -> None:
    page = html.unescape(client.get("/models/smollm2").text)
    facts = " ".join(page.split("model-facts", 1)[1].split("</p>", 1)[0].split())
    assert "the 9 query heads share 3 key/value heads" in facts
    assert "H1–H3 reading KV 1, H4–H6 reading KV 2, H7–H9 reading KV 3." in facts
    assert "rotations of q and k (RoPE, base 100,000)" in facts
    assert "Weights: 4-bit (ggml's Q4_1 blocks" in facts
    assert "dequantized to float32" in facts
    assert "Grey out the first token (the attention sink)" in page
    assert 'data-sort="sink">On the first token' in page
    assert 'data-sort="group">Keys and values' in page
    # the encoder has neither groups nor a sink toggle of its own (its [CLS] and [SEP] instead)
    minilm = client.get("/models/minilm").text
    assert "Keys and values" not in minilm
    assert "attention sink" not in minilm


def test_every_head_measures_its_sink_and_names_its_group(client: TestClient) -> None:
    text = "I love LLMs and so does everyone"
    heads = client.get("/models/smollm2/heads.json", params={"text": text}).json()
    trace = registry.trace("smollm2", text)
    a = np.asarray(trace.attentions, dtype=np.float64)
    sink = a[:, :, 1:, 0].mean(axis=-1)  # weight on token 0; the first query has no choice
    for layer in (0, 15, 29):
        for head in range(9):
            s = heads["summaries"][layer][head]
            assert s["sink"] == pytest.approx(sink[layer, head], abs=2e-6), (layer, head)
            assert s["kv_head"] == head // 3
            assert s["group"] == ["KV 1 (H1–H3)", "KV 2 (H4–H6)", "KV 3 (H7–H9)"][head // 3]
            assert f"{s['sink_text']} of its weight on the first token" in s["spoken"]
    # the measurement: the late layers put most of their weight on token 0
    assert float(np.median(sink[-1])) > 0.5
    assert heads["greyable"] == [True] + [False] * (len(heads["tokens"]) - 1)


def test_greying_the_sink_keeps_the_weights_and_rescales_the_colours(client: TestClient) -> None:
    text = "I love LLMs and so does everyone"
    shown = client.get("/models/smollm2/heads.json", params={"text": text}).json()
    grey = client.get(
        "/models/smollm2/heads.json", params={"text": text, "hide_special": "1"}
    ).json()
    assert grey["hide_special"] is True
    assert grey["selected"]["grid"]["values"] == shown["selected"]["grid"]["values"]  # unchanged
    a = np.asarray(registry.trace("smollm2", text).attentions, dtype=np.float64)
    rest = a[:, :, 1:, 1:].max(axis=(-2, -1))  # the largest weight off the sink's row and column
    tops = np.array(grey["minis"]["domains"])[..., 1]
    assert (np.array(shown["minis"]["domains"])[..., 1] == 1).all()
    assert (tops >= rest - 1e-6).all()  # the scale holds every weight it colours
    assert (tops < 1).sum() > 30, tops  # and fits the rest of the pattern in many heads
