"""The tiny decoder through the real-model API: it ships with the app (installed, nothing
to install), its answer is causal (blocked weights exactly 0) and its heads are named as
the registry says on a repeated text, a head opened as a state gives back its weights
under the causal mask, and a character outside its alphabet is a 422 naming ``text``."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.models import decoder, registry

REPEATED = "kqzdmwhe kqzdmwhe"  # [BOS] + s + s, letters the head test never fixes


def test_the_list_says_the_decoder_is_here_and_causal(client: TestClient) -> None:
    r = client.get("/api/v1/models")
    (tiny,) = [m for m in r.json()["models"] if m["id"] == "tiny-decoder"]
    assert tiny["installed"] is True
    assert tiny["install"] is None
    assert tiny["causal"] is True
    assert (tiny["layers"], tiny["heads"], tiny["d_model"], tiny["d_k"]) == (2, 4, 64, 16)
    assert tiny["max_tokens"] == decoder.SPEC.max_tokens
    # counted from 0 as the API counts; every head of both layers, as the tests measure them
    assert tiny["known_heads"] == [
        {"layer": layer, "head": head, "pattern": pattern}
        for layer, row in enumerate(decoder.KNOWN_HEADS)
        for head, pattern in enumerate(row)
    ]
    assert tiny["known_heads"][0] == {"layer": 0, "head": 0, "pattern": "previous"}
    assert tiny["known_heads"][7] == {"layer": 1, "head": 3, "pattern": "induction"}
    assert (tiny["kv_heads"], tiny["rope_base"]) == (4, None)  # multi-head, learned positions
    assert tiny["head_groups"] == [[0], [1], [2], [3]]
    assert tiny["generates"] is False


def test_the_decoder_page_says_what_its_heads_do(client: TestClient) -> None:
    page = client.get("/models/tiny-decoder").text
    assert (
        "<li>Layer 1, head 1 is a previous-token head: each letter attends to the letter "
        "before it.</li>"
    ) in page
    assert (
        "<li>Layer 2, head 4 is an induction head: each letter attends to the letter after" in page
    )
    assert "<li>Layer 1, head 2 is a broad head: no one pattern takes most of its weight" in page
    assert (
        "<li>Layer 1, head 3 is a two-back head: each letter attends to the letter two before "
        "it.</li>"
    ) in page
    assert "spread out, with no single pattern" not in page  # it said so of head 3
    assert page.count("<li>Layer ") == 8
    assert "What training made these heads do" not in client.get("/models/minilm").text


def test_a_repeated_text_names_the_heads_as_the_registry_does(client: TestClient) -> None:
    r = client.post("/api/v1/models/tiny-decoder/attention", json={"text": REPEATED})
    assert r.status_code == 200
    out = r.json()
    assert out["tokens"] == [decoder.BOS, *REPEATED.replace(" ", "")]
    assert out["special"] == [True] + [False] * (len(out["tokens"]) - 1)
    assert out["causal"] is True
    a = np.array(out["attentions"])
    n = len(out["tokens"])
    assert a.shape == (2, 4, n, n)
    assert (a[..., np.triu(np.ones((n, n), dtype=bool), 1)] == 0).all()
    known = registry.entry("tiny-decoder").known_heads
    for layer, row in enumerate(out["summaries"]):
        for head, summary in enumerate(row):
            if known[layer][head] != "broad":  # a broad head may look named on one text
                assert summary["pattern"] == known[layer][head], (layer, head, summary)


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 2)])
def test_a_head_opened_as_a_state_gives_its_weights_under_the_mask(
    client: TestClient, layer: int, head: int
) -> None:
    r = client.post(
        "/api/v1/models/tiny-decoder/head", json={"text": REPEATED, "layer": layer, "head": head}
    )
    assert r.status_code == 200
    body = r.json()["body"]
    assert body["mask"] == "causal"
    assert np.array(body["w_k"]).shape == (65, 16)
    weights = np.array(client.post("/api/v1/attention", json=body).json()["weights"])
    trace = registry.get("tiny-decoder").trace(REPEATED)
    assert np.abs(weights - trace.attentions[layer, head]).max() <= 2e-6


@pytest.mark.parametrize(("text", "named"), [("abc7", "'7'"), ("a" * 41, "at most 40")])
def test_a_text_the_decoder_cannot_read_is_a_422_naming_text(
    client: TestClient, text: str, named: str
) -> None:
    r = client.post("/api/v1/models/tiny-decoder/attention", json={"text": text})
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["field"] == "text"
    assert named in item["msg"]
