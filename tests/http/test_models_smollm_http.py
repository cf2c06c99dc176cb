"""SmolLM2 through the existing model routes (real model, nothing faked; skipped when it
is not installed): its listing, its heads' weights, and one head opened as a state whose
weights, through POST /api/v1/attention, are the model's own (RoPE included)."""

from __future__ import annotations

import numpy as np
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
