"""Security headers: CSP everywhere, frame-ancestors from settings on /embed only."""

from __future__ import annotations

import pytest
from api_helpers import MakeClient
from fastapi.testclient import TestClient

from app.web.security import content_security_policy, frame_ancestor_sources

BASE = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; base-uri 'self'; form-action 'self'"
)


@pytest.mark.parametrize("path", ["/healthz", "/api/v1/presets", "/api/v1/openapi.json"])
def test_site_pages_only_framed_by_same_origin(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.headers["content-security-policy"] == BASE + "; frame-ancestors 'self'"
    assert r.headers["x-frame-options"] == "SAMEORIGIN"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_embed_frame_ancestors_default_any(client: TestClient) -> None:
    r = client.get("/embed/6?preset=i-love-llms")
    assert r.headers["content-security-policy"] == BASE + "; frame-ancestors *"
    assert "x-frame-options" not in r.headers  # would contradict frame-ancestors *
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_embed_frame_ancestors_from_settings(make_client: MakeClient) -> None:
    r = make_client(frame_ancestors="https://moodle.example.edu, http://localhost:8501").get(
        "/embed/6"
    )
    csp = r.headers["content-security-policy"]
    assert csp.endswith("; frame-ancestors https://moodle.example.edu http://localhost:8501")
    assert "x-frame-options" not in r.headers
    # the main site keeps 'self' whatever the embed policy
    other = make_client(frame_ancestors="https://moodle.example.edu").get("/healthz")
    assert other.headers["content-security-policy"].endswith("frame-ancestors 'self'")


def test_error_answers_carry_headers(client: TestClient) -> None:
    r = client.post("/api/v1/attention", content=b"x", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    assert r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "bad", ["", "self", "https://a.example; script-src *", "'unsafe-inline'", "a b;c"]
)
def test_bad_frame_ancestors_refused_at_start(bad: str) -> None:
    with pytest.raises(ValueError, match="ATTENTION_LAB_FRAME_ANCESTORS"):
        frame_ancestor_sources(bad)


def test_policy_has_no_eval_or_inline_script() -> None:
    csp = content_security_policy()
    assert "unsafe-eval" not in csp
    assert "script-src 'self';" in csp
