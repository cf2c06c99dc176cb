"""Issue 16: the lab routes take the one pipeline. Every lab figure is priced (its controls,
the main-page state it reads, its runs) before anything is built, admitted under the
app's gate (503 + Retry-After past the limit, before any byte of a stream), and built
off the event loop; the lab JSON lives under /api/v1/labs (old URLs redirect); links come
from ATTENTION_LAB_PUBLIC_URL when set."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from typing import Any

import httpx2 as httpx
import pytest
from api_helpers import MakeClient
from fastapi.testclient import TestClient

from app.inputs.lab_cost import PRICES
from app.settings import Settings

NDJSON = {"accept": "application/x-ndjson"}


def state_of(tokens: int, width: int = 4) -> str:
    """``s=`` for a main-page state (direct mode: q, k, v) of ``tokens`` × ``width``."""
    rows = [[round((i * 7 + j) % 5 - 2.0, 1) for j in range(width)] for i in range(tokens)]
    state = {"tokens": [f"t{i}" for i in range(tokens)], "q": rows, "k": rows, "v": rows}
    raw = json.dumps(state, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


BIG = state_of(512)


def no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("a figure was built for a refused request")

    for where in ("app.web.lab_embed.build_one", "app.http.lab_answer.build_one"):
        monkeypatch.setattr(where, refuse)


def test_the_lab_embed_refuses_a_512_token_state_naming_s(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_build(monkeypatch)
    r = client.get(f"/embed/labs/one-query/two-maps?s={BIG}")
    assert r.status_code == 422
    assert "text/html" in r.headers["content-type"]
    assert len(r.content) < 50_000  # the error page, not a 38 MB figure
    assert ">s<" in r.text or "s:" in r.text or "“s”" in r.text


def test_three_such_embeds_at_once_build_nothing(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch, run_async: Callable[..., Any]
) -> None:
    no_build(monkeypatch)
    app = make_client().app

    async def three() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            url = f"/embed/labs/one-query/two-maps?s={BIG}"
            answers = await asyncio.gather(*(c.get(url) for _ in range(3)))
        return [a.status_code for a in answers]

    assert run_async(three) == [422, 422, 422]


# One column past the figures' width limit (the setting's default).
TOO_WIDE = Settings().max_figure_width + 1


@pytest.mark.parametrize(
    "url",
    [
        f"/labs/one-query/figures.ndjson?figures=two-maps&s={BIG}",
        f"/api/v1/labs/one-query/figures.ndjson?figures=two-maps&s={BIG}",
        f"/api/v1/labs/one-query/figures?figures=two-maps&s={BIG}",
        f"/api/v1/labs/step-by-step/figures?figures=per-position&s={BIG}",
        f"/api/v1/labs/one-query/figures?figures=two-maps&s={state_of(2, TOO_WIDE)}",
    ],
    ids=["old-ndjson", "ndjson", "json", "per-position", "too-wide"],
)
def test_figures_reading_the_page_state_obey_the_figure_limits(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    no_build(monkeypatch)
    r = client.get(url)
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["detail"][0]["field"] == "s"


def test_order_positional_encoding_is_priced_and_built_off_the_loop(
    make_client: MakeClient,
) -> None:
    client = make_client(max_heavy=1)
    gate = client.app.state.gate  # type: ignore[attr-defined]
    r = client.get("/labs/order/figures.json?T=128&d=512&figures=positional-encoding")
    assert r.status_code == 200
    assert r.history
    assert r.history[0].status_code == 308
    assert gate.peak == 1  # heavy: it took the slot, so it ran in a worker thread
    small = client.get("/api/v1/labs/order/figures?T=5&d=4&figures=positional-encoding")
    assert small.status_code == 200
    assert gate.peak == 1
    assert gate.running == 0


def test_a_busy_worker_refuses_the_order_lab_with_503(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.api.lab_figures.ADMIT_WAIT_S", 0.1)
    client = make_client(max_heavy=1, queue_seconds=0)
    gate = client.app.state.gate  # type: ignore[attr-defined]
    slot = gate.enter()
    try:
        r = client.get("/api/v1/labs/order/figures?T=128&d=512")
        assert r.status_code == 503
        assert int(r.headers["retry-after"]) >= 1
        assert r.json()["detail"][0]["type"] == "busy"
        # small figures never wait for a slot
        assert client.get("/api/v1/labs/order/figures?figures=shuffle").status_code == 200
    finally:
        gate.leave(slot)


def _concurrently(
    run_async: Callable[..., Any], app: Any, url: str, n: int
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            return list(await asyncio.gather(*(c.get(url) for _ in range(n))))

    return run_async(run)


@pytest.mark.slow  # eight heavy computations, one after the other
@pytest.mark.parametrize(
    "url",
    ["/embed/labs/why-scale/saturation?dk=1024&keys=512&trials=10000&sweep=1",
     "/api/v1/labs/why-scale/figures?figures=saturation&saturation.dk=1024"
     "&saturation.keys=512&trials=10000&sweep=1"],
    ids=["embed", "figures"],
)  # fmt: skip
def test_eight_heavy_lab_requests_run_one_at_a_time(
    make_client: MakeClient,
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    run_async: Callable[..., Any],
) -> None:
    for where in ("app.web.lab_embed.ADMIT_WAIT_S", "app.api.lab_figures.ADMIT_WAIT_S"):
        monkeypatch.setattr(where, 0.0)
    app = make_client(max_heavy=1, queue_seconds=0).app
    answers = _concurrently(run_async, app, url, 8)
    statuses = sorted(a.status_code for a in answers)
    if url.startswith("/api/"):  # identical figures are computed once and shared by all
        assert set(statuses) == {200}, statuses
        assert len({a.content for a in answers}) == 1
    else:
        assert set(statuses) == {200, 503}, statuses
    assert app.state.gate.peak == 1  # type: ignore[attr-defined]
    assert app.state.gate.running == 0  # type: ignore[attr-defined]
    for busy in (a for a in answers if a.status_code == 503):
        assert int(busy.headers["retry-after"]) >= 1


def test_experiment_streams_past_the_limit_get_503_before_any_byte(
    make_client: MakeClient,
) -> None:
    client = make_client(max_heavy=1, queue_seconds=0)
    gate = client.app.state.gate  # type: ignore[attr-defined]
    body = {"d_k": 128, "keys": 64, "trials": 2000}
    slot = gate.enter()
    try:
        r = client.post("/api/v1/experiments/saturation", json=body, headers=NDJSON)
        assert r.status_code == 503
        assert int(r.headers["retry-after"]) >= 1
        assert r.json()["detail"][0]["type"] == "busy"
        lab = client.get("/api/v1/labs/why-scale/figures.ndjson?figures=saturation&trials=10000")
        assert lab.status_code == 503
    finally:
        gate.leave(slot)
    ok = client.post("/api/v1/experiments/saturation", json=body, headers=NDJSON)
    assert ok.status_code == 200
    assert json.loads(ok.text.splitlines()[-1])["result"]
    assert gate.peak == 1
    assert gate.running == 0


def test_a_stream_holds_its_slot_from_first_block_to_last(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.labs.experiments import iterate

    client = make_client(max_heavy=1)
    gate = client.app.state.gate  # type: ignore[attr-defined]
    held: list[int] = []

    def watched(items: Any) -> Any:
        for item in iterate(items):
            held.append(gate.running)  # a block ran: is the stream's slot still held?
            yield item

    monkeypatch.setattr("app.api.experiments.iterate", watched)
    body = {"d_k": 128, "keys": 64, "trials": 5000}
    r = client.post("/api/v1/experiments/saturation", json=body, headers=NDJSON)
    assert r.status_code == 200
    assert len(held) >= 2
    assert all(n == 1 for n in held)
    assert gate.running == 0


def test_the_old_lab_urls_redirect_to_the_api_keeping_the_query(client: TestClient) -> None:
    for old, new in [
        ("figures.json?preview=1", "figures?preview=1"),
        ("figures.ndjson?seed=3", "figures.ndjson?seed=3"),
        ("numpy/saturation?seed=3", "numpy/saturation?seed=3"),
    ]:
        r = client.get(f"/labs/why-scale/{old}", follow_redirects=False)
        assert r.status_code == 308
        assert r.headers["location"] == f"/api/v1/labs/why-scale/{new}"


def test_the_lab_api_is_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for path in ("/api/v1/labs/{lab_id}/figures", "/api/v1/labs/{lab_id}/figures.ndjson",
                 "/api/v1/labs/{lab_id}/numpy/{figure}"):  # fmt: skip
        assert "get" in paths[path]


def test_ndjson_is_negotiated_by_accept(client: TestClient) -> None:
    r = client.get("/api/v1/labs/why-scale/figures?figures=saturation&trials=100", headers=NDJSON)
    assert r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines()]
    assert lines[0]["progress"]["done"] == 0
    assert "saturation" in lines[-1]["result"]["figures"]


def test_every_lab_figure_has_a_price() -> None:
    from app.figures.labs import LABS

    figures = {(lab.id, f.name) for lab in LABS for f in lab.figures}
    assert figures == set(PRICES)


@pytest.mark.parametrize(
    "url",
    ["/api/v1/labs/one-query/figures?alignment.q=1e308,1e308&figures=alignment",
     "/api/v1/labs/one-query/figures?s=%25%25",
     "/api/v1/labs/nope/figures", "/api/v1/labs/why-scale/numpy/nope"],
)  # fmt: skip
def test_a_json_lab_route_never_answers_html(client: TestClient, url: str) -> None:
    r = client.get(url, headers={"accept": "text/html"})
    assert r.status_code < 500
    assert r.headers["content-type"].startswith("application/json")


def test_lab_links_and_redirects_use_the_public_url(make_client: MakeClient) -> None:
    client = make_client(public_url="https://lab.example.edu")
    evil = {"host": "evil.example"}
    r = client.get("/api/v1/labs/one-query/figures?figures=alignment", headers=evil)
    links = r.json()["links"]["alignment"]
    assert links["link"].startswith("https://lab.example.edu/labs/one-query")
    assert links["embed_url"].startswith("https://lab.example.edu/embed/labs/one-query/")
    assert 'src="https://lab.example.edu/embed/labs/' in links["embed"]
    assert "evil.example" not in json.dumps(r.json())
    moved = client.get("/labs/?x=1", headers=evil, follow_redirects=False)
    assert moved.status_code == 308
    assert moved.headers["location"] == "https://lab.example.edu/labs?x=1"


def test_a_lab_page_with_a_state_too_large_to_draw_opens_on_the_default(
    client: TestClient,
) -> None:
    r = client.get(f"/labs/one-query?s={BIG}")
    assert r.status_code == 200
    assert "Part of this link could not be used (s:" in r.text
    assert "more than figures are drawn for (128)" in r.text


@pytest.mark.parametrize(
    "url",
    ["/api/v1/labs/masks/figures?figures=mask-kinds", "/api/v1/labs/why-scale/numpy/saturation"],
)
def test_deterministic_lab_answers_revalidate_with_their_etag(client: TestClient, url: str) -> None:
    first = client.get(url)
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert first.headers["cache-control"].startswith("public")
    again = client.get(url, headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
    changed = client.get(url + ("&" if "?" in url else "?") + "theme=dark")
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag or "numpy" in url  # a script has no theme
