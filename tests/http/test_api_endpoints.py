"""Every API v1 endpoint answers as described, with the running example's numbers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from api_helpers import body, strict_json
from fastapi.testclient import TestClient

from app.api.models import AttentionResponse, HeadOut, SoftmaxResponse
from app.attention import run
from app.inputs.body import AttentionRequest
from app.presets import W_O_TWO_HEADS, preset_ids
from app.wire import encode, stages_to_chunks, stages_to_dict

HEAD_FIELDS = set(HeadOut.model_fields)


def test_healthz(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


def test_attention_running_example(client: TestClient) -> None:
    r = client.post("/api/v1/attention", json=body())
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    out = strict_json(r.text)
    AttentionResponse.model_validate(out)  # the documented shape is the real one
    assert out["q"] == [[2, 1, 0, 0], [1, 2, 0, 1], [1, 0, 1, 2]]
    assert out["scores"] == [[4, 2, 2], [2, 5, 3], [3, 2, 5]]
    assert out["scaled"] == out["masked"] == [[2.0, 1.0, 1.0], [1.0, 2.5, 1.5], [1.5, 1.0, 2.5]]
    assert out["d_k"] == 4
    assert out["divisor"] == 2
    assert np.round(out["weights"], 2).tolist() == [[0.58, 0.21, 0.21], [0.14, 0.63, 0.23],
                                                    [0.23, 0.14, 0.63]]  # fmt: skip
    assert np.round(out["output"], 2).tolist() == [[1.21, 0.58, 0.21, 0.21],
        [1.63, 0.14, 0.23, 0.63], [1.14, 0.23, 0.63, 0.14]]  # fmt: skip
    assert out["tokens"] == out["key_tokens"] == ["I", "love", "LLMs"]
    assert out["row_argmax"] == [0, 1, 2]
    assert out["warnings"] == []
    assert out["num_heads"] == 1
    assert len(out["heads"]) == 1
    assert set(out["heads"][0]) == HEAD_FIELDS
    assert {k: out[k] for k in HEAD_FIELDS} == out["heads"][0]


def test_attention_response_equals_the_engine_to_the_last_bit(client: TestClient) -> None:
    out = client.post("/api/v1/attention", json=body(mask="causal")).json()
    s = run(AttentionRequest.model_validate(body(mask="causal")).to_input())
    np.testing.assert_array_equal(out["weights"], s.head.weights)
    np.testing.assert_array_equal(out["output"], s.output)


def test_causal_masked_cells_are_null(client: TestClient) -> None:
    out = strict_json(client.post("/api/v1/attention", json=body(mask="causal")).text)
    assert out["masked"] == [[2.0, None, None], [1.0, 2.5, None], [1.5, 1.0, 2.5]]
    assert out["scaled"] == [[2.0, 1.0, 1.0], [1.0, 2.5, 1.5], [1.5, 1.0, 2.5]]
    assert out["weights"][0] == [1.0, 0.0, 0.0]
    assert out["allowed"] == [[True, False, False], [True, True, False], [True, True, True]]


def test_fully_blocked_row_zero_and_warned(client: TestClient) -> None:
    allowed = [[True, True, True], [False, False, False], [True, True, True]]
    r = client.post("/api/v1/attention", json=body(allowed=allowed))
    assert r.status_code == 200
    out = strict_json(r.text)
    assert out["weights"][1] == [0.0, 0.0, 0.0]
    assert out["output"][1] == [0.0, 0.0, 0.0, 0.0]
    assert out["masked"][1] == [None, None, None]
    assert out["row_sum"][1] == 0
    assert len(out["warnings"]) == 1
    assert out["warnings"][0].startswith("row 1 ('love') has no allowed key")
    assert "love" in out["warnings"][0]


def test_two_heads(client: TestClient) -> None:
    out = client.post("/api/v1/attention", json=body(heads=2, w_o=W_O_TWO_HEADS)).json()
    assert out["num_heads"] == 2
    assert len(out["heads"]) == 2
    assert out["d_k"] == 2
    assert out["divisor"] == pytest.approx(2**0.5)
    assert out["heads"][1]["q"] == [[0, 0], [0, 1], [1, 2]]
    assert np.round(out["output"], 2).tolist() == [[1.01, 1.01, 0.83, 1.50],
        [0.46, 0.75, 1.16, 2.31], [0.75, 1.31, 0.41, 1.87]]  # fmt: skip
    # top level is head 1's; the final output is W^O of the concatenation
    assert out["heads"][0]["output"] != out["output"]
    assert len(out["concat"][0]) == out["d_v"] == 4


def test_direct_mode(client: TestClient) -> None:
    q = [[2, 1, 0, 0], [1, 2, 0, 1], [1, 0, 1, 2]]
    k = [[2, 0, 1, 0], [0, 2, 0, 1], [1, 0, 0, 2]]
    v = [[1, 1, 0, 0], [2, 0, 0, 1], [1, 0, 1, 0]]
    direct = client.post("/api/v1/attention", json={"q": q, "k": k, "v": v}).json()
    assert direct["weights"] == client.post("/api/v1/attention", json=body()).json()["weights"]
    assert direct["tokens"] == ["t0", "t1", "t2"]


def test_cross_attention_preset_gives_2_by_4(client: TestClient) -> None:
    preset = client.get("/api/v1/presets/cross-attention").json()
    out = client.post("/api/v1/attention", json=preset["body"]).json()
    assert np.shape(out["weights"]) == (2, 4)
    assert out["key_tokens"] == ["J'", "aime", "les", "LLM"]  # a translation's source
    assert np.round(out["weights"], 2).tolist() == [[0.51, 0.19, 0.19, 0.11],
                                                    [0.10, 0.46, 0.17, 0.28]]  # fmt: skip


def test_padding(client: TestClient) -> None:
    out = client.post("/api/v1/attention", json=body(padding=[False, True, False])).json()
    assert [row[1] for row in out["weights"]] == [0.0, 0.0, 0.0]
    assert [row[1] for row in out["masked"]] == [None, None, None]


def test_softmax_vector_and_matrix(client: TestClient) -> None:
    r = client.post("/api/v1/softmax", json={"scores": [1, 2, 3], "stretch": 8})
    assert r.status_code == 200
    out = strict_json(r.text)
    SoftmaxResponse.model_validate(out)
    assert out["stretched"] == [8, 16, 24]
    assert np.round(out["weights"], 4).tolist() == [0.0, 0.0003, 0.9997]
    assert out["argmax"] == 2
    assert out["gradient_term"] == pytest.approx(out["max_weight"] * (1 - out["max_weight"]))
    m = client.post("/api/v1/softmax", json={"scores": [[1, 2, 3], [5, 5, 5]]}).json()
    assert np.round(m["weights"], 2).tolist() == [[0.09, 0.24, 0.67], [0.33, 0.33, 0.33]]
    assert m["argmax"] == [2, 0]
    assert m["stretch"] == 1.0
    assert client.post("/api/v1/softmax", json={"scores": [5]}).json()["weights"] == [1.0]


def test_softmax_huge_stretch_stays_finite(client: TestClient) -> None:
    r = client.post("/api/v1/softmax", json={"scores": [1e6, -1e6, 0], "stretch": 1000})
    assert r.status_code == 200
    out = strict_json(r.text)
    assert out["weights"] == [1.0, 0.0, 0.0]
    assert out["exp_shift"] == 1e9


def test_presets(client: TestClient) -> None:
    listed = client.get("/api/v1/presets").json()
    ids = [p["id"] for p in listed]
    assert ids[0] == "i-love-llms"
    assert "cross-attention" in ids
    assert ids == preset_ids()
    for preset_id in ids:
        preset = client.get(f"/api/v1/presets/{preset_id}").json()
        assert preset["id"] == preset_id
        assert client.post("/api/v1/attention", json=preset["body"]).status_code == 200
    assert client.get("/api/v1/presets/i-love-llms").json()["body"] == body()


@pytest.mark.parametrize(("heads", "mask"), [(1, "none"), (2, "causal"), (4, "none")])
def test_chunked_response_is_the_encoded_dict(client: TestClient, heads: int, mask: str) -> None:
    rng = np.random.default_rng(heads)
    req: dict[str, Any] = {"x": rng.normal(size=(300, 8)).round(3).tolist()}
    req |= {w: rng.normal(size=(8, 8)).round(3).tolist() for w in ("w_q", "w_k", "w_v")}
    req |= {"mask": mask, "heads": heads}
    stages = run(AttentionRequest.model_validate(req).to_input())
    chunks = stages_to_chunks(stages)
    assert len(chunks) > 1  # the big grids are chunks of their own
    assert b"".join(chunks) == encode(stages_to_dict(stages))
    r = client.post("/api/v1/attention", json=req)
    assert r.status_code == 200
    assert r.content == b"".join(chunks)
    assert r.headers["content-length"] == str(len(r.content))
    assert r.headers.get_list("content-length") == [str(len(r.content))]
