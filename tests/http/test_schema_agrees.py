"""The schema says what the validators check (issue 16: Schemathesis found schema-valid
bodies refused). Integer fields take any JSON integer, 520 or 520.0 (JSON Schema's
``integer`` is a number without a fractional part), and refuse 520.5, "520" and true;
rules across fields are stated in the descriptions. test_api_fuzz.py checks the same on
generated bodies; these are the cases, one per integer field of every request model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from api_helpers import assert_error, body
from fastapi.testclient import TestClient

# (path, a valid body, the integer field to send as a float)
WHOLE_FIELDS = [
    ("/api/v1/attention", body(), "heads"),
    ("/api/v1/figures", body(), "heads"),
    *(("/api/v1/cost", {}, f) for f in ("n", "d_model", "heads", "d_ff", "vocab", "layers")),
    ("/api/v1/positional-encoding", {"positions": 3, "d_model": 4}, "positions"),
    ("/api/v1/positional-encoding", {"positions": 3, "d_model": 4}, "d_model"),
    *(("/api/v1/kv-cache", {"layers": 2, "heads": 4, "kv_heads": 2, "d_head": 8,
                            "bytes_per_value": 2, "tokens": 5, "window": 3}, f)
      for f in ("layers", "heads", "kv_heads", "d_head", "bytes_per_value", "tokens", "window")),
    *(("/api/v1/flash", {"n": 16, "d": 4, "sram": 64}, f) for f in ("n", "d", "sram")),
    *(("/api/v1/experiments/score-variance", {"d_ks": [8], "draws": 50, "bins": 10, "seed": 3},
       f) for f in ("draws", "bins", "seed")),
    *(("/api/v1/experiments/saturation", {"d_k": 16, "keys": 8, "trials": 20, "seed": 1}, f)
      for f in ("d_k", "keys", "trials", "seed")),
    *(("/api/v1/experiments/scaling-table", {"d_ks": [4], "keys": 8, "draws": 20, "seed": 2}, f)
      for f in ("keys", "draws", "seed")),
]  # fmt: skip
DEFAULTS = {"n": 512, "d_model": 512, "heads": 8, "d_ff": 2048, "vocab": 50000, "layers": 6}


def _value(payload: dict[str, Any], field: str) -> int:
    return int(payload.get(field, DEFAULTS.get(field, 1)))


@pytest.mark.parametrize(("path", "payload", "field"), WHOLE_FIELDS)
def test_an_integral_float_is_the_same_integer(
    client: TestClient, path: str, payload: dict[str, Any], field: str
) -> None:
    value = _value(payload, field)
    as_int = client.post(path, json={**payload, field: value})
    as_float = client.post(path, json={**payload, field: float(value)})
    assert as_int.status_code == as_float.status_code == 200, as_float.text
    assert as_float.content == as_int.content


@pytest.mark.parametrize(("path", "payload", "field"), WHOLE_FIELDS)
@pytest.mark.parametrize("bad", [0.5, "7", True])
def test_a_fraction_a_string_or_a_boolean_is_still_refused(
    client: TestClient, path: str, payload: dict[str, Any], field: str, bad: Any
) -> None:
    value = _value(payload, field) + bad if bad == 0.5 else bad
    assert_error(client.post(path, json={**payload, field: value}), field)


def test_widths_in_a_list_take_integral_floats_too(client: TestClient) -> None:
    path = "/api/v1/experiments/score-variance"
    payload = {"d_ks": [8, 16], "draws": 50, "bins": 10}
    floats = client.post(path, json={**payload, "d_ks": [8.0, 16.0]})
    assert floats.status_code == 200
    assert floats.content == client.post(path, json=payload).content
    assert_error(client.post(path, json={**payload, "d_ks": [8.5]}), "d_ks[0]")


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        return [node, *(n for v in node.values() for n in _walk(v))]
    if isinstance(node, list):
        return [n for v in node for n in _walk(v)]
    return []


def test_every_bound_is_a_json_schema_keyword(client: TestClient) -> None:
    # pydantic writes a bound placed after a validator as "ge"/"le", which JSON Schema
    # ignores: the schema would then accept what the validator refuses.
    schemas = _walk(client.get("/api/v1/openapi.json").json()["components"]["schemas"])
    unknown = [s for s in schemas if s.get("type") in ("integer", "number") and
               {"ge", "le", "gt", "lt"} & set(s)]  # fmt: skip
    assert unknown == []


def test_matrices_say_they_need_a_row_and_a_number(client: TestClient) -> None:
    x = client.get("/api/v1/openapi.json").json()["components"]["schemas"]["AttentionRequest"]
    matrix = x["properties"]["x"]["anyOf"][0]
    assert matrix["minItems"] == 1
    assert matrix["items"]["minItems"] == 1
    assert "at least one row" in json.dumps(
        client.post("/api/v1/attention", json=body(x=[])).json()
    )


def test_cross_field_rules_are_in_the_descriptions(client: TestClient) -> None:
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    assert "must divide d_model" in schemas["CostRequest"]["properties"]["heads"]["description"]
    assert "heads divides d_k and d_v" in schemas["AttentionRequest"]["description"]
    assert "30,000,000" in schemas["SaturationRequest"]["properties"]["trials"]["description"]
    assert "30,000,000" in schemas["ScalingTableRequest"]["properties"]["draws"]["description"]
    assert "allowed has the shape of scores" in schemas["SoftmaxRequest"]["description"]
