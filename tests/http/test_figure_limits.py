"""Figures are drawn only up to max_figure_tokens / max_figure_width; the numbers go on.

A 512 × 512 state is a valid /attention request, but its figures took minutes and
gigabytes; every surface that draws figures refuses it with a message naming the input.
"""

from __future__ import annotations

from typing import Any

from api_helpers import MakeClient
from fastapi.testclient import TestClient

from app.inputs.link import encode_body


def body(tokens: int, d_model: int = 2) -> dict[str, Any]:
    eye = [[1.0 if i == j else 0.0 for j in range(d_model)] for i in range(d_model)]
    x = [[float((i + j) % 3) for j in range(d_model)] for i in range(tokens)]
    return {"x": x, "w_q": eye, "w_k": eye, "w_v": eye}


def test_figures_refuse_more_tokens_than_the_figure_limit(make_client: MakeClient) -> None:
    c = make_client(max_figure_tokens=4)
    assert c.post("/api/v1/figures", json=body(4)).status_code == 200
    r = c.post("/api/v1/figures", json=body(5))
    assert r.status_code == 422
    detail = r.json()["detail"][0]
    assert detail["field"] == "x"
    assert "5 tokens (L_Q)" in detail["msg"]
    assert "(4)" in detail["msg"]
    # The numbers themselves are still served up to max_tokens.
    assert c.post("/api/v1/attention", json=body(5)).status_code == 200


def test_figures_refuse_wider_matrices_than_the_figure_limit(make_client: MakeClient) -> None:
    r = make_client(max_figure_width=3).post("/api/v1/figures", json=body(2, d_model=4))
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "x"
    assert "4 columns (d_model)" in r.json()["detail"][0]["msg"]


def test_cross_attention_names_the_source_when_it_is_too_long(make_client: MakeClient) -> None:
    b = body(2)
    b["source"] = {"x": body(6)["x"]}
    r = make_client(max_figure_tokens=5).post("/api/v1/figures", json=b)
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "source.x"


def test_default_limit_is_128_tokens(client: TestClient) -> None:
    r = client.post("/api/v1/figures", json={**body(129), "view": {"figures": [6]}})
    assert r.status_code == 422
    assert "129 tokens" in r.json()["detail"][0]["msg"]


def test_embed_of_an_oversized_state_is_a_400_page_naming_s(make_client: MakeClient) -> None:
    r = make_client(max_figure_tokens=4).get(f"/embed/6?s={encode_body(body(5))}")
    assert r.status_code == 400
    assert "text/html" in r.headers["content-type"]
    assert "5 tokens (L_Q)" in r.text
