"""Issue 8: hostile input is refused before any work, with a 4xx naming what to reduce or
fix, never a 500; heavy work is admitted per worker; HTTP details (Allow, HEAD, security
headers on every status, the public URL) hold."""

from __future__ import annotations

import base64
import io
import json
import time
import zipfile
from typing import Any
from urllib.parse import quote

import pytest
from api_helpers import JSON, MakeClient, body
from fastapi.testclient import TestClient

from app.settings import Settings


def link(state: dict[str, Any]) -> str:
    raw = json.dumps(state, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


HEADS_512 = {"x": [[1]] * 512, "w_q": [[1] * 512], "w_k": [[1] * 512], "w_v": [[1] * 512],
             "heads": 512}  # fmt: skip
NESTED = base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode().rstrip("=")
QUERIES = [
    "focus=%C2%B2", "head=%C2%B9", "focus=" + "9" * 5000, "s=" + NESTED, "stretch=1e400",
    "stretch=nan", "s=%25%25not-base64", "s=" + link({"x": "abc"}),
    "s=" + link({"heads": "2", "x": [[1]]}), "focus=99999999999999999999",
    "s=" + link(HEADS_512), "s=" + link({"x": json.loads("[" * 30 + "]" * 30)}),
    "s=" + base64.urlsafe_b64encode(b"[1, 2]").decode(), "s=" + link({"x": [[1]] * 129}),
]  # fmt: skip


def hostile_urls() -> list[str]:
    urls = ["/embed/%C2%B2", "/embed/99999999999999999999", "/oembed?url=x&maxwidth=%C2%B2"]
    for q in QUERIES:
        page = quote(f"http://testserver/?{q}#fig-6", safe="")
        urls += [f"/?{q}", f"/embed/6?{q}", f"/oembed?url={page}", f"/api/v1/export?{q}"]
    return urls


@pytest.mark.parametrize("url", hostile_urls(), ids=lambda u: u[:60])
def test_hostile_urls_get_a_4xx_or_the_page_with_a_message(client: TestClient, url: str) -> None:
    start = time.perf_counter()
    r = client.get(url)
    assert time.perf_counter() - start < 5
    if url.startswith("/?") and r.status_code == 200:
        assert 'role="alert" >' in r.text  # the page says what was wrong with the link
        return
    assert 400 <= r.status_code < 500, r.text[:300]
    assert "content-security-policy" in r.headers


def test_a_page_url_with_a_non_ascii_figure_falls_back_to_figure_6(client: TestClient) -> None:
    r = client.get("/oembed?url=" + quote("http://testserver/#fig-%C2%B2", safe=""))
    assert r.status_code == 200
    assert "/embed/6" in r.json()["html"]


def test_the_6_kb_heads_body_is_refused_naming_heads(client: TestClient) -> None:
    for path in ("/api/v1/attention", "/api/v1/figures", "/api/v1/export"):
        start = time.perf_counter()
        r = client.post(path, json=HEADS_512)
        assert time.perf_counter() - start < 2
        assert r.status_code == 422
        (detail,) = r.json()["detail"]
        if path.endswith("figures"):  # too many tokens to draw, checked first
            assert detail["field"] == "x"
            continue
        assert "heads (512)" in detail["msg"]
        assert "ATTENTION_LAB_MAX_CELLS" in detail["msg"]


def test_its_link_is_refused_on_every_route_naming_s(client: TestClient) -> None:
    s = link(HEADS_512)
    r = client.get(f"/embed/6?s={s}")
    assert r.status_code == 400
    assert "more than figures are drawn for" in r.text
    r = client.get(f"/api/v1/export?s={s}")
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "s"
    r = client.get("/oembed?url=" + quote(f"http://testserver/?s={s}", safe=""))
    assert r.status_code == 404
    assert "more than figures are drawn for" in r.json()["detail"][0]["msg"]
    r = client.get(f"/?s={s}")
    assert r.status_code == 200
    assert "could not be opened" in r.text
    assert "more than figures are drawn for" in r.text


def test_a_4096_square_softmax_is_refused_before_it_is_parsed(client: TestClient) -> None:
    row = b"[" + b"1," * 4095 + b"1]"
    raw = b'{"scores": [' + b",".join([row] * 4096) + b"]}"
    assert len(raw) > 33_000_000
    start = time.perf_counter()
    r = client.post("/api/v1/softmax", content=raw, headers=JSON)
    assert time.perf_counter() - start < 2
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "scores"


def test_figure_limits_are_checked_before_the_engine_runs(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_engine(*_: Any) -> None:
        raise AssertionError("the engine ran")

    monkeypatch.setattr("app.api.figures.run", no_engine)
    big = {"x": [[1.0]] * 129, "w_q": [[1.0]], "w_k": [[1.0]], "w_v": [[1.0]]}
    r = client.post("/api/v1/figures", json=big)
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "x"


def test_heavy_work_past_the_limit_gets_503_with_retry_after(make_client: MakeClient) -> None:
    client = make_client(max_heavy=1, queue_seconds=0)
    heavy = body(x=[[1.0] * 4] * 128, tokens=None)
    gate = client.app.state.gate
    slot = gate.enter()  # another request holds the only slot
    try:
        r = client.post("/api/v1/attention", json=heavy)
        assert r.status_code == 503
        assert int(r.headers["retry-after"]) >= 1
        assert "content-security-policy" in r.headers
        assert r.json()["detail"][0]["type"] == "busy"
        # probes and small requests never wait for a slot
        assert client.get("/healthz").status_code == 200
        assert client.post("/api/v1/attention", json=body()).status_code == 200
        assert client.get("/embed/6").status_code == 200
    finally:
        gate.leave(slot)
    assert client.post("/api/v1/attention", json=heavy).status_code == 200
    assert gate.running == 0


def test_a_large_body_takes_its_slot_before_it_is_read(make_client: MakeClient) -> None:
    client = make_client(max_heavy=1, queue_seconds=0)
    w = [[0.123456789] * 64] * 64
    raw = json.dumps({"x": [[0.123456789] * 64] * 512, "w_q": w, "w_k": w, "w_v": w}).encode()
    assert len(raw) > 256_000
    gate = client.app.state.gate
    slot = gate.enter()
    try:
        r = client.post("/api/v1/attention", content=raw, headers=JSON)
    finally:
        gate.leave(slot)
    assert r.status_code == 503
    assert client.post("/api/v1/attention", content=raw, headers=JSON).status_code == 200


def test_every_status_carries_the_security_headers(make_client: MakeClient) -> None:
    client = make_client(raise_server_exceptions=False)

    @client.app.get("/api/v1/boom")
    def boom() -> None:
        raise RuntimeError("a bug")

    for method, path, status in [("GET", "/api/v1/boom", 500), ("GET", "/nothing", 404),
                                 ("DELETE", "/", 405), ("GET", "/embed/99", 404),
                                 ("GET", "/api/v1/export?format=x", 422)]:  # fmt: skip
        r = client.request(method, path)
        assert r.status_code == status
        assert "frame-ancestors" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [("POST", "/healthz", "GET, HEAD"), ("GET", "/api/v1/attention", "POST"),
     ("DELETE", "/", "GET, HEAD"), ("PUT", "/embed/6", "GET, HEAD"),
     ("DELETE", "/api/v1/export", "GET, HEAD, POST")],
)  # fmt: skip
def test_405_lists_the_allowed_methods(
    client: TestClient, method: str, path: str, allow: str
) -> None:
    r = client.request(method, path)
    assert r.status_code == 405
    assert r.headers["allow"] == allow


@pytest.mark.parametrize("path", ["/", "/healthz", "/embed/6", "/oembed?url=x", "/api/v1/presets"])
def test_head_works_wherever_get_does(client: TestClient, path: str) -> None:
    get, head = client.get(path), client.head(path)
    assert head.status_code == get.status_code
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]


def test_public_url_names_the_site_instead_of_the_host_header(make_client: MakeClient) -> None:
    client = make_client(public_url="https://lab.example.edu/")
    page = client.get("/?focus=0", headers={"host": "evil.example"})
    assert "https://lab.example.edu/oembed?url=https%3A%2F%2Flab.example.edu%2F%3Ffocus%3D0" in (
        page.text
    )
    assert "evil.example" not in page.text
    r = client.get("/oembed?url=" + quote("https://lab.example.edu/?focus=0#fig-6", safe=""),
                headers={"host": "evil.example"})  # fmt: skip
    assert r.status_code == 200
    assert 'src="https://lab.example.edu/embed/6?focus=0"' in r.json()["html"]
    other = client.get("/oembed?url=" + quote("http://evil.example/#fig-6", safe=""))
    assert other.status_code == 404


def test_a_bad_public_url_is_refused() -> None:
    with pytest.raises(ValueError, match="public_url"):
        Settings(public_url="lab.example.edu")


MARKUP = ['<a href="https://evil.example">x</a>', '<span style="font-size:80px">big</span>',
          "&#60;b&#62;bold", "<i>zz</i>"]  # fmt: skip


def test_labels_reach_the_figures_as_text(client: TestClient) -> None:
    state = body(tokens=MARKUP[:3])
    state["source"] = {"x": [[1, 0, 1, 0]] * 4, "tokens": MARKUP}
    r = client.post("/api/v1/figures", json=state)
    assert r.status_code == 200
    text = json.dumps(r.json()["figures"], ensure_ascii=False)
    for bad in ("<a ", "<span", "&#60;", "<i>zz", "\\u003ca", "\\u003cspan"):
        assert bad not in text
    assert "‹a href=" in text  # shown, as inert text
    assert "‹span style=" in text


def test_csv_labels_are_never_formulas(client: TestClient) -> None:
    tokens = ['=HYPERLINK("http://evil.example")', "+cmd", "@SUM(1)"]
    r = client.post("/api/v1/export?format=csv", json=body(tokens=tokens))
    assert r.status_code == 200
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        csv_text = z.read(next(n for n in z.namelist() if n.endswith("_x.csv"))).decode()
    lines = csv_text.splitlines()[1:]
    assert [line.split(",")[0] for line in lines] == [
        '"\'=HYPERLINK(""http://evil.example"")"',
        "'+cmd",
        "'@SUM(1)",
    ]
    numbers = [cell for line in lines for cell in line.rsplit(",", 4)[1:]]
    assert numbers
    assert all(cell.lstrip("-").replace(".", "").isdigit() for cell in numbers)


def test_a_state_within_the_figure_limits_but_over_the_cost_budget_is_refused(
    client: TestClient,
) -> None:
    many_heads = {"x": [[1]] * 128, "w_q": [[1] * 128], "w_k": [[1] * 128], "w_v": [[1] * 128],
                  "heads": 128}  # fmt: skip
    s = link(many_heads)
    page = client.get(f"/?s={s}")
    assert "could not be opened" in page.text
    assert "heads (128)" in page.text
    embed = client.get(f"/embed/6?s={s}")
    assert embed.status_code == 400
    assert "heads (128)" in embed.text
    r = client.post("/api/v1/figures", json=many_heads)
    assert r.status_code == 422
    assert "heads (128)" in r.json()["detail"][0]["msg"]
