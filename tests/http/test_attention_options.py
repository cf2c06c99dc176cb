"""POST /api/v1/attention with the additive options of issue 31: each accepted and applied
(the weights change as the engine says), bad values a 422 naming the field, never a 500."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from api_helpers import assert_error, body
from fastapi.testclient import TestClient

from app.attention import run
from app.inputs.body import AttentionOptionsRequest
from app.inputs.resolve import StateError, check_request
from app.settings import Settings


def _weights(client: TestClient, payload: dict[str, Any]) -> Any:
    r = client.post("/api/v1/attention", json=payload)
    assert r.status_code == 200, r.text
    return r.json()["weights"]


@pytest.mark.parametrize(
    "options",
    [
        {"rope": {"base": 10_000}, "positions": [5, 6, 7]},
        {"rope": {"base": 100_000}},
        {"alibi": True, "mask": "causal", "heads": 2},
        {"window": 2, "sinks": 1, "mask": "causal"},
        {"kv_heads": 1, "heads": 2},
        {"tiling": {"block_rows": 2, "block_cols": 1}},
    ],
)
def test_options_are_applied(client: TestClient, options: dict[str, Any]) -> None:
    payload = body(**options)
    expected = run(AttentionOptionsRequest.model_validate(payload).to_input())
    got = np.array(_weights(client, payload), dtype=float)
    np.testing.assert_allclose(got, expected.head.weights, rtol=0, atol=1e-12)


def test_rope_shift_leaves_the_weights(client: TestClient) -> None:
    a = _weights(client, body(rope={"base": 10_000}, positions=[0, 1, 2]))
    b = _weights(client, body(rope={"base": 10_000}, positions=[1000, 1001, 1002]))
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"kv_heads": 3, "heads": 2}, "kv_heads"),
        ({"kv_heads": 0}, "kv_heads"),
        ({"window": 0}, "window"),
        ({"window": True}, "window"),
        ({"sinks": 1}, "sinks"),
        ({"alibi": True}, "alibi"),
        ({"alibi": "yes"}, "alibi"),
        ({"rope": {"base": 1}}, "rope.base"),
        ({"rope": {"base": 1e300}}, "rope.base"),
        ({"rope": {"theta": 5}}, "rope.theta"),
        ({"rope": {"base": 1e4}, "heads": 4}, "rope"),
        ({"positions": [0, 1, 2]}, "positions"),
        ({"rope": {}, "positions": [0, 1]}, "positions"),
        ({"rope": {}, "positions": [0, 1, -2]}, "positions[2]"),
        ({"rope": {}, "positions": [0, 1, 2.5]}, "positions[2]"),
        ({"tiling": {"block_rows": 0, "block_cols": 1}}, "tiling.block_rows"),
        ({"tiling": {"block_rows": 1}}, "tiling.block_cols"),
    ],
)
def test_bad_options_name_the_field(
    client: TestClient, options: dict[str, Any], field: str
) -> None:
    assert_error(client.post("/api/v1/attention", json=body(**options)), field)


def test_tiny_tiles_at_the_largest_size_are_refused_before_work(client: TestClient) -> None:
    n = 512
    payload = {
        "q": [[1.0]] * n,
        "k": [[1.0]] * n,
        "v": [[1.0]] * n,
        "tiling": {"block_rows": 1, "block_cols": 1},
    }
    (problem,) = assert_error(client.post("/api/v1/attention", json=payload), "tiling")
    assert "reduce the tiles (262144 per head" in problem["msg"]
    payload["tiling"] = {"block_rows": 64, "block_cols": 64}  # 64 tiles: admitted
    assert client.post("/api/v1/attention", json=payload).status_code == 200


@pytest.mark.parametrize(
    "options", [{"rope": {"base": 10_000}}, {"alibi": True, "mask": "causal"}, {"kv_heads": 1}]
)
def test_surfaces_that_do_not_draw_the_options_do_not_take_them(
    client: TestClient, options: dict[str, Any]
) -> None:
    # figures, exports and links read AttentionRequest, which has no options (yet)
    field = next(iter(options))
    assert_error(client.post("/api/v1/figures", json=body(**options)), field)
    assert_error(client.post("/api/v1/export?format=json", json=body(**options)), field)
    with pytest.raises(StateError, match=f"^s: {field}"):
        check_request(body(**options), Settings())
