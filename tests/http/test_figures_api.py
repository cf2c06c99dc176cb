"""POST /api/v1/figures through TestClient: shape, view errors, no NaN on the wire."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.presets import RUNNING_EXAMPLE, get_preset


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def post(client: TestClient, body: dict[str, Any]) -> Any:
    return client.post("/api/v1/figures", json=body)


def test_running_example_returns_every_figure(client: TestClient) -> None:
    r = post(client, RUNNING_EXAMPLE)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"figures", "tokens", "key_tokens", "warnings", "announce", "state"}
    assert body["tokens"] == ["I", "love", "LLMs"]
    assert body["state"]["view"]["focus"] == 1
    f6 = body["figures"]["6"]
    assert f6["data"][0]["z"][1][1] == pytest.approx(0.628532, abs=1e-6)
    assert f6["data"][0]["text"][1] == ["0.14", "0.63", "0.23"]
    assert b"NaN" not in r.content
    assert b"Infinity" not in r.content


def test_subset_and_theme(client: TestClient) -> None:
    r = post(client, {**RUNNING_EXAMPLE, "view": {"figures": [7], "theme": "dark", "focus": 0}})
    body = r.json()
    assert list(body["figures"]) == ["7"]
    assert body["figures"]["7"]["readout"][0].startswith("Row 1 (I)")


@pytest.mark.parametrize(
    ("view", "field"),
    [({"focus": 3}, "view.focus"), ({"head": 1}, "view.head"), ({"stretch": 0}, "view.stretch"),
     ({"theme": "blue"}, "view.theme"), ({"figures": [2]}, "view.figures[0]"),
     ({"nope": 1}, "view.nope")],
)  # fmt: skip
def test_bad_view_is_422_naming_the_field(
    client: TestClient, view: dict[str, Any], field: str
) -> None:
    r = post(client, {**RUNNING_EXAMPLE, "view": view})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == field


def test_bad_body_is_422_like_attention(client: TestClient) -> None:
    r = post(client, {**RUNNING_EXAMPLE, "x": [[0, 1], [1]]})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "x"


def test_blocked_row_is_null_not_nan(client: TestClient) -> None:
    body = {**RUNNING_EXAMPLE, "allowed": [[False] * 3, [True] * 3, [True] * 3],
            "view": {"focus": 0}}  # fmt: skip
    r = post(client, body)
    assert r.status_code == 200
    assert r.json()["warnings"]
    assert b"NaN" not in r.content
    assert b"Infinity" not in r.content


@pytest.mark.parametrize("preset", ["cross-attention", "causal", "two-heads"])
def test_presets(client: TestClient, preset: str) -> None:
    found = get_preset(preset)
    assert found is not None
    r = post(client, {**found["body"], "view": {"head": 1 if preset == "two-heads" else 0}})
    assert r.status_code == 200, r.text
    assert b"NaN" not in r.content
