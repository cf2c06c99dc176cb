"""POST /api/v1/figures through TestClient: shape, view errors, no NaN on the wire."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.presets import RUNNING_EXAMPLE, get_preset


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
    assert body["figures"]["7"]["readout"][0].startswith("I (row 1)")


@pytest.mark.parametrize(
    ("view", "field"),
    [
        ({"focus": 3}, "view.focus"),
        ({"head": 1}, "view.head"),
        ({"stretch": 0}, "view.stretch"),
        ({"theme": "blue"}, "view.theme"),
        ({"figures": [2]}, "view.figures[0]"),
        ({"nope": 1}, "view.nope"),
    ],
)
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
    body = {
        **RUNNING_EXAMPLE,
        "allowed": [[False] * 3, [True] * 3, [True] * 3],
        "view": {"focus": 0},
    }
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


def test_64_tokens_by_32_and_shift_is_finite_json(client: TestClient) -> None:
    # large integer inputs make scores in the thousands: exponentials must be shifted
    n, d = 64, 32
    x = [[(i * 7 + j * 3) % 5 - 2 for j in range(d)] for i in range(n)]
    w = [[((i + 2 * j) % 7 - 3) * 40 for j in range(d)] for i in range(d)]
    body = {"x": x, "w_q": w, "w_k": w, "w_v": w, "mask": "causal", "view": {"focus": 63}}
    r = post(client, body)
    assert r.status_code == 200, r.text
    assert b"NaN" not in r.content
    assert b"Infinity" not in r.content
    figures = r.json()["figures"]
    assert len(figures["6"]["data"][0]["z"]) == 64
    assert "shifted" in figures["6"]["readout"][1]


def test_cross_attention_weights_are_2_by_4(client: TestClient) -> None:
    found = get_preset("cross-attention")
    assert found is not None
    body = post(client, found["body"]).json()
    z = body["figures"]["6"]["data"][0]["z"]
    assert [len(row) for row in z] == [4, 4]
    assert body["key_tokens"] == ["J'", "aime", "les", "LLM"]  # a translation's source
    assert body["state"]["source"]["tokens"] == ["J'", "aime", "les", "LLM"]


def test_direct_mode_and_a_single_token(client: TestClient) -> None:
    direct = {"q": [[2, 1, 0, 0], [1, 2, 0, 1]], "k": [[2, 0, 1, 0], [0, 2, 0, 1]],
              "v": [[1, 1, 0, 0], [2, 0, 0, 1]]}  # fmt: skip
    r = post(client, direct)
    assert r.status_code == 200, r.text
    assert "direct mode" in r.json()["figures"]["4"]["caption"]
    one = {"x": [[1, 2]], "w_q": [[1], [0]], "w_k": [[1], [1]], "w_v": [[1], [2]]}
    r = post(client, one)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["state"]["view"]["focus"] == 0  # the default focus falls back to row 0
    assert body["figures"]["6"]["data"][0]["text"] == [["1"]]
