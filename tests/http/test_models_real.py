"""The model pages on the real tiny decoder (it ships with the app, so nothing is faked):
its listing, its heads' grids and its head opened on the main page, whose Figure 6 equals
the decoder's own weights."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from app.models import registry


def initial(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="initial-state">(.*?)</script>', page)
    assert found
    return dict(json.loads(found.group(1)))


def test_the_real_decoders_head_opens_with_its_own_weights(client: TestClient) -> None:
    text = "abcdabcd"
    trace = registry.get("tiny-decoder").trace(text)
    listing = client.get("/models").text
    assert "Tiny induction decoder" in listing
    data = client.get(
        "/models/tiny-decoder/heads.json", params={"text": text, "layer": 1, "head": 0}
    ).json()
    assert data["tokens"] == list(trace.tokens)
    assert np.allclose(data["selected"]["grid"]["values"], trace.attentions[1, 0], atol=1e-6)
    query = {"model": "tiny-decoder", "text": text, "layer": "2", "head": "1"}
    state = initial(client.get("/", params=query).text)
    assert state["error"] is None
    answer = client.post(
        "/api/v1/figures?draw=grids", json={**state["body"], "view": {"figures": [6]}}
    )
    weights = np.array(answer.json()["grids"]["weights"]["values"])
    np.testing.assert_allclose(weights, trace.attentions[1, 0], rtol=1e-5, atol=1e-6)
