"""The order, heads and cost labs' API: /positional-encoding, /cost, `positional` on
/attention and the presets dog-bit-man and four-heads (LABS.md §2). Each 422 names the
field; OpenAPI documents all."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from api_helpers import MakeClient, assert_error, body, strict_json
from fastapi.testclient import TestClient

from app.api.models import AttentionResponse
from app.inputs.position_cost import CostResponse, PositionalResponse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from lab_fixtures import FIXTURES, four_head_patterns

PE, COST, ATT = "/api/v1/positional-encoding", "/api/v1/cost", "/api/v1/attention"


# ---- /positional-encoding


def test_positional_encoding_values(client: TestClient) -> None:
    r = client.post(PE, json={"positions": 3, "d_model": 4})
    assert r.status_code == 200
    out = strict_json(r.text)
    PositionalResponse.model_validate(out)
    assert out["pe"][0] == [0, 1, 0, 1]
    assert out["pe"][2] == [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)]


def test_positional_encoding_base(client: TestClient) -> None:
    pe = client.post(PE, json={"positions": 2, "d_model": 2, "base": 4}).json()["pe"]
    # at width 2 the only pair has wavelength base^0 = 1 whatever the base
    assert pe == [[0, 1], [math.sin(1), math.cos(1)]]
    pe = client.post(PE, json={"positions": 2, "d_model": 4, "base": 4}).json()["pe"]
    assert pe[1][2:] == [math.sin(1 / 2), math.cos(1 / 2)]  # 4^(2/4) = 2


@pytest.mark.parametrize(
    ("payload", "field"),
    [({"positions": 0, "d_model": 4}, "positions"), ({"positions": 3, "d_model": 0}, "d_model"),
     ({"positions": 3}, "d_model"), ({"positions": 3, "d_model": 4, "base": 0}, "base"),
     ({"positions": 3, "d_model": 4, "base": -1}, "base"),
     ({"positions": 3, "d_model": 4, "base": 1e300}, "base"),
     ({"positions": "3", "d_model": 4}, "positions"),
     ({"positions": 3.5, "d_model": 4}, "positions"),
     ({"positions": 3, "d_model": 4, "extra": 1}, "extra")],
)  # fmt: skip
def test_positional_encoding_422_names_the_field(
    client: TestClient, payload: dict[str, Any], field: str
) -> None:
    assert_error(client.post(PE, json=payload), field)


def test_positional_encoding_is_bounded_by_the_limits(make_client: MakeClient) -> None:
    small = make_client(max_tokens=16, max_width=8)
    assert_error(small.post(PE, json={"positions": 17, "d_model": 8}), "positions")
    assert_error(small.post(PE, json={"positions": 16, "d_model": 9}), "d_model")
    assert small.post(PE, json={"positions": 16, "d_model": 8}).status_code == 200


# ---- /cost


def test_cost_defaults_are_the_base_model(client: TestClient) -> None:
    r = client.post(COST, json={})
    assert r.status_code == 200
    out = strict_json(r.text)
    CostResponse.model_validate(out)
    assert client.post(COST, json=FIXTURES["base_model"]).json() == out
    assert out["flops"] == {"projections": 402_653_184, "scores": 134_217_728,
                            "weighted_sum": 134_217_728, "output_projection": 134_217_728,
                            "linear": 536_870_912, "quadratic": 268_435_456,
                            "total": 805_306_368}  # fmt: skip
    assert out["crossover_n"] == 1024
    assert out["score_cells"] == 262_144
    assert out["params"] == {"attention": 1_048_576, "ffn": 2_097_152, "layer_norm": 0,
                             "embedding": 25_600_000, "per_layer": 3_145_728,
                             "total": 44_474_368}  # fmt: skip
    assert out["heads"]["d_k"] == 64


def test_cost_at_the_largest_sizes_is_exact(client: TestClient) -> None:
    # A long context at the widest d_model whose counts still fit below 2^53, where JSON
    # readers stop being exact (tests/http/test_cost_exact.py tests the boundary itself).
    n, d = 2**13 + 2**12, 2**16
    out = client.post(COST, json={"n": n, "d_model": d, "heads": 1, "d_ff": 2**18,
                               "vocab": 2**24, "layers": 1024, "biases": True}).json()  # fmt: skip
    assert out["flops"]["total"] == 4 * n * d * d + 2 * n * n * d < 2**53
    assert out["memory"]["all_tables_bytes"] == 4 * n * n * 1024


@pytest.mark.parametrize(
    ("payload", "field"),
    [({"n": 0}, "n"), ({"n": 2**20 + 1}, "n"), ({"d_model": -4}, "d_model"),
     ({"heads": 3}, "heads"), ({"heads": 1024}, "heads"), ({"d_ff": 1.5}, "d_ff"),
     ({"vocab": True}, "vocab"), ({"layers": "6"}, "layers"), ({"biases": 1}, "biases"),
     ({"x2": True}, "x2")],
)  # fmt: skip
def test_cost_422_names_the_field(client: TestClient, payload: dict[str, Any], field: str) -> None:
    assert_error(client.post(COST, json=payload), field)


# ---- positional on /attention


def test_attention_positional_defaults_to_null(client: TestClient) -> None:
    out = strict_json(client.post(ATT, json=body()).text)
    assert out["positional"] is None
    AttentionResponse.model_validate(out)


def test_attention_sinusoidal_reports_the_encoding_and_changes_the_output(
    client: TestClient,
) -> None:
    plain = client.post(ATT, json=body()).json()
    out = strict_json(client.post(ATT, json=body(positional="sinusoidal")).text)
    AttentionResponse.model_validate(out)
    assert out["positional"] == client.post(PE, json={"positions": 3, "d_model": 4}).json()["pe"]
    x_pe = (np.array(body()["x"]) + np.array(out["positional"])).tolist()
    assert out["q"] == (np.array(x_pe) @ np.array(body()["w_q"])).tolist()
    assert out["output"] != plain["output"]


def test_attention_direct_mode_with_sinusoidal_is_422_positional(client: TestClient) -> None:
    direct = {"q": [[1, 0]], "k": [[1, 0], [0, 1]], "v": [[1], [2]], "positional": "sinusoidal"}
    detail = assert_error(client.post(ATT, json=direct), "positional")
    assert "direct" in detail[0]["msg"]
    assert client.post(ATT, json={**direct, "positional": "none"}).status_code == 200
    assert_error(client.post(ATT, json=body(positional="learned")), "positional")


def test_cross_attention_source_is_encoded_from_position_zero(client: TestClient) -> None:
    src = [*body()["x"], [1, 1, 0, 1]]
    b = body(x=body()["x"][:2], tokens=["I", "love"], source={"x": src}, positional="sinusoidal")
    out = client.post(ATT, json=b).json()
    pe4 = client.post(PE, json={"positions": 4, "d_model": 4}).json()["pe"]
    assert out["positional"] == pe4[:2]
    assert out["k"] == ((np.array(src) + np.array(pe4)) @ np.array(body()["w_k"])).tolist()


# ---- presets


def test_presets_are_listed_after_the_existing_ones(client: TestClient) -> None:
    ids = [p["id"] for p in client.get("/api/v1/presets").json()]
    assert ids[:4] == ["i-love-llms", "cross-attention", "causal", "two-heads"]
    assert {"dog-bit-man", "four-heads"} <= set(ids)


def test_dog_bit_man_is_the_fixture(client: TestClient) -> None:
    b = client.get("/api/v1/presets/dog-bit-man").json()["body"]
    fx = FIXTURES["dog_bit_man"]
    assert b["tokens"] == fx["tokens"]
    assert b["x"] == [fx["embeddings"][t.lower()] for t in fx["tokens"]]
    for w in ("w_q", "w_k", "w_v"):
        assert b[w] == body()[w]
    assert (b["mask"], b["scale"], b.get("positional", "none")) == ("none", True, "none")
    out = client.post(ATT, json=b).json()
    assert out["tokens"] == fx["tokens"]
    assert out["output"][0] == out["output"][3]  # "The" and "the": same input, same output


def test_four_heads_weights_are_exactly_the_four_patterns(client: TestClient) -> None:
    b = client.get("/api/v1/presets/four-heads").json()["body"]
    assert b["tokens"] == FIXTURES["four_heads"]["tokens"]
    assert "x" not in b  # direct mode
    assert (b["heads"], b["scale"]) == (4, False)
    out = strict_json(client.post(ATT, json=b).text)
    assert out["num_heads"] == 4
    for head, pattern in zip(out["heads"], four_head_patterns(), strict=True):
        assert head["weights"] == pattern.tolist()
        assert head["row_sum"] == [1.0] * 10
    assert out["warnings"] == []


# ---- OpenAPI


def test_openapi_lists_the_new_endpoints_with_examples(client: TestClient) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    schemas = spec["components"]["schemas"]
    for path, model in ((PE, "PositionalRequest"), (COST, "CostRequest")):
        op = spec["paths"][path]["post"]
        content = op["requestBody"]["content"]["application/json"]
        assert content["examples"], path
        assert set(op["responses"]) >= {"200", "422"}
        for name, prop in schemas[model]["properties"].items():
            assert prop.get("description"), (model, name)
            assert prop.get("examples"), (model, name)
        for example in content["examples"].values():
            assert client.post(path, json=example["value"]).status_code == 200
    positional = schemas["AttentionRequest"]["properties"]["positional"]
    assert positional["examples"] == ["sinusoidal"]
    assert "positional" in schemas["AttentionResponse"]["properties"]
    for model in ("FlopsOut", "ParamsOut", "HeadsOut", "MemoryOut", "PositionalResponse"):
        for name, prop in schemas[model]["properties"].items():
            assert prop.get("description"), (model, name)
            assert prop.get("examples"), (model, name)


def test_positional_encoding_is_refused_by_the_cost_model_naming_positions(
    make_client: MakeClient,
) -> None:
    tight = make_client(max_cells=1000)
    refused = tight.post(PE, json={"positions": 40, "d_model": 16})
    assert refused.status_code in (413, 422)  # the limits API decides which
    assert_error(refused, "positions", refused.status_code)
    assert "ATTENTION_LAB_MAX_CELLS" in refused.json()["detail"][0]["msg"]
    assert tight.post(PE, json={"positions": 20, "d_model": 16}).status_code == 200
