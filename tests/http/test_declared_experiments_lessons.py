"""The experiment scripts and the lesson reads, declared to the one runner
(``app.http.runner``): an oversized body refused with 413 before it is kept (declared
and chunked), hostile values a 422 naming the field, 30 concurrent clients all served the
same answer with every slot given back, and the price of a script bounding every script."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx2 as httpx
import pytest
from api_helpers import JSON, MakeClient, assert_error, body
from test_runner import cache_count, chunks

from app.export.numpy_scripts import numpy_script
from app.inputs.experiment_plan import SCRIPT_BYTES
from app.inputs.experiments import (
    MAX_SEED,
    MAX_WIDTHS,
    SaturationRequest,
    ScalingTableRequest,
    ScoreVarianceRequest,
)
from app.inputs.limits import is_heavy
from app.inputs.link import encode_body
from app.inputs.resolve import plan_link
from app.settings import Settings

SCRIPTS = [
    "/api/v1/experiments/score-variance/numpy",
    "/api/v1/experiments/saturation/numpy",
    "/api/v1/experiments/scaling-table/numpy",
]
LIMIT = 50_000  # the app's body limit in these tests


def concurrently(
    run_async: Callable[..., Any], app: Any, requests: list[tuple[str, str, Any]]
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return list(await asyncio.gather(*(c.request(m, u, json=b) for m, u, b in requests)))

    return run_async(run)


@pytest.mark.parametrize("path", SCRIPTS)
def test_a_script_body_over_the_limit_is_a_413_before_it_is_kept(
    make_client: MakeClient, path: str
) -> None:
    client = make_client(max_body_bytes=LIMIT)
    declared = client.post(path, content=b" " * (LIMIT + 1), headers=JSON)
    assert_error(declared, "body", 413)
    streamed = client.post(path, content=chunks(LIMIT + 1), headers=JSON)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert_error(streamed, "body", 413)
    # the largest admissible body (padded with spaces) is read and answered
    fits = client.post(path, content=b"{}" + b" " * (LIMIT - 2), headers=JSON)
    assert fits.status_code == 200, fits.text[:200]
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


HOSTILE: list[tuple[str, bytes, str]] = [
    (SCRIPTS[0], b'{"draws": NaN}', "draws"),
    (SCRIPTS[0], b'{"draws": 1e400}', "draws"),
    (SCRIPTS[0], b'{"draws": 100000000000000000000000000000}', "draws"),
    (SCRIPTS[0], b'{"draws": -5}', "draws"),
    (SCRIPTS[0], b'{"d_ks": "64"}', "d_ks"),
    (SCRIPTS[0], b'{"seed": 9007199254740992}', "seed"),
    (SCRIPTS[1], b'{"threshold": Infinity}', "threshold"),
    (SCRIPTS[1], b'{"threshold": 1e999}', "threshold"),
    (SCRIPTS[1], b'{"keys": -1}', "keys"),
    (SCRIPTS[1], b'{"trials": [1]}', "trials"),
    (SCRIPTS[2], b'{"d_ks": [1, null]}', "d_ks[1]"),
    (SCRIPTS[2], b'{"keys": 99999999999999999999}', "keys"),
    (SCRIPTS[2], b'{"draws": true}', "draws"),
    (SCRIPTS[2], b"[]", "body"),
    (SCRIPTS[2], b"not json", "body"),
]


@pytest.mark.parametrize(("path", "content", "field"), HOSTILE, ids=lambda v: str(v)[:40])
def test_hostile_values_are_a_422_naming_the_field(
    make_client: MakeClient, path: str, content: bytes, field: str
) -> None:
    client = make_client()
    assert_error(client.post(path, content=content, headers=JSON), field)
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


def test_a_huge_script_body_is_refused_by_its_number_count_before_parsing(
    make_client: MakeClient,
) -> None:
    text = '{"d_ks": [' + ",".join(["64"] * 200_000) + "]}"  # ~600 kB
    assert_error(make_client().post(SCRIPTS[0], content=text, headers=JSON), "d_ks")
    tiny = make_client(max_cells=1000)
    assert_error(tiny.post(SCRIPTS[0], content=text, headers=JSON), "the body")


@pytest.mark.slow
@pytest.mark.parametrize("path", SCRIPTS)
def test_thirty_clients_at_once_all_get_the_script(
    make_client: MakeClient, run_async: Callable[..., Any], path: str
) -> None:
    app = make_client(max_heavy=1).app
    answers = concurrently(run_async, app, [("POST", path, {"seed": 3})] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    assert len({a.content for a in answers}) == 1
    assert answers[0].headers["content-type"].startswith("text/x-python")
    assert b"default_rng" in answers[0].content
    assert app.state.gate.running == 0


def test_the_price_of_a_script_bounds_the_longest_script() -> None:
    widest = [1000 + i for i in range(MAX_WIDTHS)]  # 4 digits each, the most widths
    longest = [
        ScoreVarianceRequest(d_ks=widest, draws=200_000, seed=MAX_SEED, bins=200),
        SaturationRequest(d_k=1024, keys=1024, trials=10_000, threshold=0.123456789012345,
                          seed=MAX_SEED),
        ScalingTableRequest(d_ks=widest, keys=1024, draws=10_000, seed=MAX_SEED),
    ]  # fmt: skip
    sizes = [len(numpy_script(r.to_params()).encode()) for r in longest]
    assert max(sizes) <= SCRIPT_BYTES, sizes
    assert min(sizes) > SCRIPT_BYTES // 8  # a bound, not a guess far off


LESSON_READS = ["/api/v1/lessons", "/api/v1/lessons/schema.json", "/api/v1/lessons/why-scale"]


@pytest.mark.parametrize("path", LESSON_READS)
def test_a_body_sent_to_a_lesson_read_is_never_read(make_client: MakeClient, path: str) -> None:
    """The lesson reads declare no body (``body=0``): the runner reads none, declared or
    chunked, whatever its size, and the answer is the one without it."""
    client = make_client(max_body_bytes=LIMIT)
    plain = client.get(path)
    assert plain.status_code == 200
    declared = client.request("GET", path, content=b" " * (LIMIT + 1), headers=JSON)
    streamed = client.request("GET", path, content=chunks(LIMIT + 1), headers=JSON)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert declared.content == streamed.content == plain.content
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


HOSTILE_IDS = ["%00", "x" * 5000, "%F0%9F%98%80", "NaN", "-1", "99999999999999999999", "Why-Scale"]


@pytest.mark.parametrize("lesson_id", HOSTILE_IDS, ids=lambda v: v[:12])
def test_a_hostile_lesson_id_is_a_404_naming_it_and_listing_the_ids(
    client: Any, lesson_id: str
) -> None:
    detail = assert_error(client.get(f"/api/v1/lessons/{lesson_id}"), "lesson_id", 404)
    assert "attention-by-hand, why-scale, masks-and-order, attention-today" in detail[0]["msg"]
    assert len(detail[0]["msg"]) < 200  # the id is cut, never echoed whole


@pytest.mark.parametrize("path", LESSON_READS)
def test_hostile_queries_change_no_lesson_read(client: Any, path: str) -> None:
    plain = client.get(path).content
    for query in ("x=NaN", "steps=-1", "id=1e999", "a=" + "z" * 4000):
        r = client.get(f"{path}?{query}")
        assert r.status_code == 200
        assert r.content == plain


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSON_READS)
def test_thirty_clients_at_once_all_get_the_lesson_read(
    make_client: MakeClient, run_async: Callable[..., Any], path: str
) -> None:
    client = make_client(max_heavy=1)
    expected = client.get(path).content
    answers = concurrently(run_async, client.app, [("GET", path, None)] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    assert {a.content for a in answers} == {expected}
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


def test_the_schema_id_follows_each_request_never_a_cached_host(make_client: MakeClient) -> None:
    client = make_client()
    one = client.get("/api/v1/lessons/schema.json", headers={"host": "one.example"}).json()
    two = client.get("/api/v1/lessons/schema.json", headers={"host": "two.example"}).json()
    assert one["$id"] == "http://one.example/api/v1/lessons/schema.json"
    assert two["$id"] == "http://two.example/api/v1/lessons/schema.json"


# ---- GET /api/v1/export: a linked state's stages, declared to the runner ----

EXPORTS = [
    "/api/v1/export?preset=i-love-llms",
    "/api/v1/export?preset=i-love-llms&format=csv",
    "/api/v1/export?preset=i-love-llms&format=numpy&row=focus&focus=2",
]


@pytest.mark.parametrize("url", EXPORTS)
def test_a_body_sent_to_an_export_is_never_read(make_client: MakeClient, url: str) -> None:
    client = make_client(max_body_bytes=LIMIT)
    plain = client.get(url)
    assert plain.status_code == 200
    declared = client.request("GET", url, content=b" " * (LIMIT + 1), headers=JSON)
    streamed = client.request("GET", url, content=chunks(LIMIT + 1), headers=JSON)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert declared.content == streamed.content == plain.content
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


HOSTILE_EXPORTS: list[tuple[str, str]] = [
    ("format=x", "format"),
    ("format=", "format"),
    ("preset=nope", "preset"),
    ("s=%25%25%25", "s"),
    ("s=AAAA", "s"),
    ("focus=NaN", "focus"),
    ("focus=-1", "focus"),
    ("focus=99999999999999999999", "focus"),
    ("stretch=1e999", "stretch"),
    ("stretch=nan", "stretch"),
    ("head=-1", "head"),
    ("head=9", "head"),  # past the heads: refused by the work, after the plan
    ("focus=9", "focus"),  # past the tokens: refused by the work, after the plan
    ("row=9", "row"),
]


@pytest.mark.parametrize(("query", "field"), HOSTILE_EXPORTS, ids=lambda v: v[:20])
def test_a_hostile_export_query_is_a_422_naming_the_parameter(
    client: Any, query: str, field: str
) -> None:
    detail = assert_error(client.get(f"/api/v1/export?preset=i-love-llms&{query}"), field)
    assert detail[0]["type"] == "invalid_state"
    assert detail[0]["loc"] == ["query", field]
    assert client.app.state.gate.running == 0


@pytest.mark.slow
@pytest.mark.parametrize("url", EXPORTS)
def test_thirty_clients_at_once_all_get_the_export(
    make_client: MakeClient, run_async: Callable[..., Any], url: str
) -> None:
    client = make_client(max_heavy=1)
    expected = client.get(url)
    answers = concurrently(run_async, client.app, [("GET", url, None)] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    assert {a.content for a in answers} == {expected.content}
    assert {a.headers["content-disposition"] for a in answers} == {
        expected.headers["content-disposition"]
    }
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


@pytest.mark.slow
def test_thirty_clients_on_one_heavy_export_share_one_computation(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    """A state of 120 tokens is heavy (off the loop, under the only slot): the 29 others
    wait for the one computation instead of being refused."""
    n = 120
    state = body(tokens=[f"t{i}" for i in range(n)], x=[[i % 3, (i // 3) % 2, 1, 0]
                                                          for i in range(n)])  # fmt: skip
    s = encode_body(state)
    assert is_heavy(plan_link({"s": s}, Settings()).cost)
    client = make_client(max_heavy=1, queue_seconds=30)
    before = cache_count("miss")
    url = f"/api/v1/export?format=csv&s={s}"
    answers = concurrently(run_async, client.app, [("GET", url, None)] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    assert len({a.content for a in answers}) == 1
    assert answers[0].headers["content-type"] == "application/zip"
    assert cache_count("miss") - before == 1  # computed once
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


# ---- POST /api/v1/export: a body's stages, declared to the runner ----

EXPORT = "/api/v1/export"


def test_an_export_body_over_the_limit_is_a_413_before_it_is_kept(
    make_client: MakeClient,
) -> None:
    client = make_client(max_body_bytes=LIMIT)
    declared = client.post(EXPORT, content=b" " * (LIMIT + 1), headers=JSON)
    assert_error(declared, "body", 413)
    streamed = client.post(EXPORT, content=chunks(LIMIT + 1), headers=JSON)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert_error(streamed, "body", 413)
    plain = client.post(EXPORT, json=body())
    text = plain.request.content
    fits = client.post(EXPORT, content=text + b" " * (LIMIT - len(text)), headers=JSON)
    assert fits.status_code == 200, fits.text[:200]  # the largest admissible body
    assert fits.content == plain.content
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


HOSTILE_BODIES: list[tuple[str, bytes, str]] = [
    ("format=x", b"{}", "format"),
    ("focus=NaN", b"null", "body"),  # the body is parsed before the query is read
    ("", b'{"tokens": ["a"], "x": [[NaN, 1]]}', "x[0][0]"),
    ("", b'{"heads": 99999999999999999999}', "heads"),
    ("", b'{"heads": -1}', "heads"),
    ("", b'{"scale": "yes"}', "scale"),
    ("", b"[1, 2]", "body"),
    ("", b"{nope", "body"),
]


@pytest.mark.parametrize(("query", "content", "field"), HOSTILE_BODIES, ids=lambda v: str(v)[:30])
def test_hostile_export_bodies_are_a_422_naming_the_field(
    make_client: MakeClient, query: str, content: bytes, field: str
) -> None:
    client = make_client()
    if content == b"{}":
        content = client.post(EXPORT, json=body()).request.content
    assert_error(client.post(f"{EXPORT}?{query}", content=content, headers=JSON), field)
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


VIEWS = [(q, f) for q, f in HOSTILE_EXPORTS if f not in ("preset", "s")]  # a body has neither


@pytest.mark.parametrize(("query", "field"), VIEWS, ids=lambda v: v[:20])
def test_hostile_export_views_are_the_links_422(client: Any, query: str, field: str) -> None:
    detail = assert_error(client.post(f"{EXPORT}?{query}", json=body()), field)
    assert detail[0]["type"] == "invalid_state"
    assert detail[0]["loc"] == ["query", field]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "csv", "numpy"])
def test_thirty_clients_at_once_all_get_the_body_export(
    make_client: MakeClient, run_async: Callable[..., Any], fmt: str
) -> None:
    client = make_client(max_heavy=1)
    url = f"{EXPORT}?format={fmt}"
    expected = client.post(url, json=body()).content
    answers = concurrently(run_async, client.app, [("POST", url, body())] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    assert {a.content for a in answers} == {expected}
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


# ---- GET /api/v1/export/figures.html and figure.svg: the main page's files ----

FILES = [
    "/api/v1/export/figures.html?preset=i-love-llms&figures=7",
    "/api/v1/export/figures.html?preset=i-love-llms",  # every figure: sent in pieces
    "/api/v1/export/figure.svg?preset=i-love-llms&figure=7",
]


@pytest.mark.parametrize("url", FILES, ids=lambda v: v.split("/")[-1][:40])
def test_a_body_sent_for_a_file_is_never_read(make_client: MakeClient, url: str) -> None:
    client = make_client(max_body_bytes=LIMIT)
    plain = client.get(url)
    assert plain.status_code == 200
    declared = client.request("GET", url, content=b" " * (LIMIT + 1), headers=JSON)
    streamed = client.request("GET", url, content=chunks(LIMIT + 1), headers=JSON)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert declared.content == streamed.content == plain.content
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


HOSTILE_FILES: list[tuple[str, str]] = [
    ("figures.html?figures=99", "figures"),
    ("figures.html?figures=-1", "figures"),
    ("figures.html?figures=NaN", "figures"),
    ("figures.html?figures=99999999999999999999", "figures"),
    ("figures.html?figures=7&preset=nope", "preset"),
    ("figures.html?figures=7&s=AAAA", "s"),
    ("figures.html?figures=7&head=5", "head"),  # refused by the work, after the plan
    ("figures.html?figures=7&stretch=nan", "stretch"),
    ("figure.svg?figure=", "figure"),
    ("figure.svg?figure=3,7", "figure"),
    ("figure.svg?figure=1", "figure"),  # a template figure: no number grids
    ("figure.svg?figure=-7", "figure"),
    ("figure.svg?figure=7&focus=9", "focus"),
    ("figure.svg?figure=7&focus=NaN", "focus"),
]


@pytest.mark.parametrize(("query", "field"), HOSTILE_FILES, ids=lambda v: v[:30])
def test_a_hostile_file_query_is_a_422_naming_the_parameter(
    client: Any, query: str, field: str
) -> None:
    detail = assert_error(client.get(f"/api/v1/export/{query}"), field)
    assert detail[0]["loc"][:2] == ["query", field]
    assert client.app.state.gate.running == 0


def test_a_missing_figure_is_the_frameworks_422(client: Any) -> None:
    """Refused by the route's signature before the runner, as before (its field is
    spelled as FastAPI's validation spells it)."""
    assert_error(client.get("/api/v1/export/figure.svg?preset=i-love-llms"), "query.figure")


@pytest.mark.slow
@pytest.mark.parametrize("url", FILES, ids=lambda v: v.split("/")[-1][:40])
def test_thirty_clients_at_once_all_get_the_file(
    make_client: MakeClient, run_async: Callable[..., Any], url: str
) -> None:
    client = make_client(max_heavy=1, queue_seconds=30)
    expected = client.get(url)
    answers = concurrently(run_async, client.app, [("GET", url, None)] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    assert {a.content for a in answers} == {expected.content}
    assert {a.headers["content-disposition"] for a in answers} == {
        expected.headers["content-disposition"]
    }
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]
