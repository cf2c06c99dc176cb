"""The one runner (``app.http.runner``) and what it stands on: bounded body reads on every
route that takes a body, the gate's queue and its Retry-After, the answer cache that
computes identical requests once, and answers sent under a deadline."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from api_helpers import JSON, MakeClient, body
from starlette.routing import Route
from test_pipeline_routes import walk

from app.http import metrics
from app.http.admission import BusyError, Gate
from app.http.runner import APP_BODY_LIMIT, declaration
from app.http.sending import PIECE_BYTES, Answer, Sent
from app.inputs.limits import Cost
from app.main import create_app
from app.settings import Settings

SMALL_APP_LIMIT = 200_000  # the app's body limit in these tests


def body_routes() -> list[tuple[str, int]]:
    """(path, the route's body limit) of every route that takes a body."""
    app = create_app(Settings(max_body_bytes=SMALL_APP_LIMIT))
    out = []
    for route in walk(app.routes):
        if not isinstance(route, Route) or not (
            {"POST", "PUT", "PATCH"} & (route.methods or set())
        ):
            continue
        declared = declaration(route.endpoint)
        limit = SMALL_APP_LIMIT
        if declared is not None and declared.body != APP_BODY_LIMIT:
            limit = declared.body
        path = route.path.replace("{model_id}", "tiny-decoder")
        out.append((path, limit))
    return sorted(out)


def chunks(total: int) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        piece = min(1000, total - sent)
        sent += piece
        yield b" " * piece


@pytest.mark.parametrize(("path", "limit"), body_routes(), ids=lambda v: str(v))
def test_every_body_route_refuses_an_oversized_body_before_keeping_it(
    make_client: MakeClient, path: str, limit: int
) -> None:
    client = make_client(max_body_bytes=SMALL_APP_LIMIT)
    declared = client.post(path, content=b" " * (limit + 1), headers=JSON)
    assert declared.status_code == 413, (path, declared.text[:200])
    assert declared.json()["detail"][0]["field"] == "body"
    streamed = client.post(path, content=chunks(limit + 1), headers=JSON)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert streamed.status_code == 413, (path, streamed.text[:200])
    assert streamed.json()["detail"][0]["field"] == "body"


def test_the_model_and_lesson_routes_have_their_own_small_limits() -> None:
    limits = dict(body_routes())
    assert limits["/api/v1/models/tiny-decoder/attention"] <= 64 * 1024
    assert limits["/api/v1/lessons/answers"] == limits["/api/v1/lessons/export"] == 65_536


def test_the_queue_hands_a_freed_slot_to_the_first_waiter(run_async: Callable[..., Any]) -> None:
    async def scenario() -> list[str]:
        gate = Gate(1, wait=5.0, max_queue=4)
        order: list[str] = []
        first = await gate.acquire(Cost(1, 0))

        async def waiter(name: str) -> None:
            slot = await gate.acquire(Cost(1, 0))
            order.append(name)
            await anyio.sleep(0.01)
            slot.release()

        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter, "a")
            await anyio.sleep(0.01)
            tg.start_soon(waiter, "b")
            await anyio.sleep(0.01)
            assert len(gate.queue) == 2
            with pytest.raises(BusyError):
                gate.enter()  # nobody jumps the queue
            first.release()
        assert gate.running == 0
        assert gate.queue == []
        return order

    assert run_async(scenario) == ["a", "b"]


def test_past_the_deadline_a_waiter_is_refused_with_an_estimate_from_the_queue(
    run_async: Callable[..., Any],
) -> None:
    async def scenario() -> tuple[int, int, int]:
        gate = Gate(1, wait=0.05, max_queue=2)
        gate.mean_seconds = 4.0  # measured: a slot is held about 4 s
        held = await gate.acquire()
        alone = gate.retry_after()
        refusals: list[int] = []

        async def waiter() -> None:
            try:
                await gate.acquire()
            except BusyError as exc:
                refusals.append(exc.retry_after)

        async with anyio.create_task_group() as tg:
            for _ in range(2):
                tg.start_soon(waiter)
            await anyio.sleep(0.01)
            queued = gate.retry_after()
            with pytest.raises(BusyError):  # the queue is full: refused at once
                await gate.acquire()
        held.release()
        return alone, queued, max(refusals)

    alone, queued, refused = run_async(scenario)
    assert alone == 4  # the held slot's expected time left
    assert queued == 12  # and two waiters of 4 s each ahead
    assert 4 <= refused <= 12


def test_a_busy_model_route_answers_503_with_retry_after_from_the_queue(
    make_client: MakeClient,
) -> None:
    client = make_client(max_heavy=1, queue_seconds=0)
    gate = client.app.state.gate  # type: ignore[attr-defined]
    gate.mean_seconds = 30.0  # measured: a slot is held about 30 s
    slot = gate.enter()
    try:
        r = client.post("/api/v1/models/tiny-decoder/attention", json={"text": "abab"})
    finally:
        gate.leave(slot)
    assert r.status_code == 503
    assert 20 <= int(r.headers["retry-after"]) <= 30  # the estimate, not always 1
    assert r.json()["detail"][0]["type"] == "busy"


def _concurrently(
    run_async: Callable[..., Any], app: Any, requests: list[tuple[str, str, Any]]
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            sent = (c.request(m, u, json=b) for m, u, b in requests)
            return list(await asyncio.gather(*sent))

    return run_async(run)


def cache_count(result: str) -> float:
    value: float = metrics.ANSWER_CACHE.labels(result)._value.get()
    return value


@pytest.mark.slow
def test_thirty_identical_model_requests_compute_once_and_all_see_it(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    app = make_client(max_heavy=1, queue_seconds=0).app
    url = "/models/tiny-decoder/heads.json?text=abab"
    before = {k: cache_count(k) for k in ("miss", "shared", "hit")}
    answers = _concurrently(run_async, app, [("GET", url, None)] * 30)
    assert [a.status_code for a in answers] == [200] * 30  # none refused, one slot
    assert len({a.content for a in answers}) == 1
    assert cache_count("miss") - before["miss"] == 1  # computed once
    assert cache_count("shared") + cache_count("hit") - before["shared"] - before["hit"] == 29
    other = _concurrently(run_async, app, [("GET", url.replace("abab", "baba"), None)])
    assert other[0].status_code == 200
    assert other[0].content != answers[0].content
    assert cache_count("miss") - before["miss"] == 2  # distinct work is computed


def test_distinct_heavy_work_waits_in_the_queue_instead_of_503(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    app = make_client(max_heavy=1, answer_cache_bytes=0).app
    texts = ["ab", "ba", "aab", "bba", "abab", "baba"]
    requests = [("POST", "/api/v1/models/tiny-decoder/attention", {"text": t}) for t in texts]
    answers = _concurrently(run_async, app, requests)
    assert [a.status_code for a in answers] == [200] * len(texts)
    assert app.state.gate.peak == 1  # type: ignore[attr-defined]
    assert app.state.gate.running == 0  # type: ignore[attr-defined]


def test_a_lesson_answer_is_shared_and_cached(make_client: MakeClient) -> None:
    from app.lessons.builtin import builtin_json

    client = make_client()
    lesson = builtin_json("why-scale")
    hits = cache_count("hit")
    first = client.post("/api/v1/lessons/answers", json=lesson)
    second = client.post("/api/v1/lessons/answers", json=lesson)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert cache_count("hit") == hits + 1


def test_an_unread_answer_is_cut_off_at_the_deadline_and_frees_its_slot(
    run_async: Callable[..., Any],
) -> None:
    async def scenario() -> tuple[int, int, int]:
        gate = Gate(1)
        slot = await gate.acquire()
        sent: list[int] = []

        async def slow_reader(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                sent.append(len(message["body"]))
                await anyio.sleep(10)  # a client that stops reading

        timeouts = metrics.SEND_TIMEOUTS._value.get()
        answer = Sent(Answer(b"x" * (3 * PIECE_BYTES)), slot, seconds=0.1)
        await answer({"type": "http", "path": "/t"}, None, slow_reader)  # type: ignore[arg-type]
        return gate.running, len(sent), int(metrics.SEND_TIMEOUTS._value.get() - timeouts)

    running, pieces, counted = run_async(scenario)
    assert running == 0  # the slot is free although the answer was never read
    assert pieces == 1  # sent in pieces: the rest was never copied out
    assert counted == 1


def test_an_answer_is_sent_in_pieces_and_whole(make_client: MakeClient) -> None:
    client = make_client()
    r = client.post(
        "/api/v1/models/tiny-decoder/attention",
        json={"text": "abab" * 3},
        headers={"accept-encoding": "identity"},
    )
    assert r.status_code == 200
    assert json.loads(r.content)["tokens"]
    assert int(r.headers["content-length"]) == len(r.content)


def test_a_chunked_body_within_the_limit_is_served_by_a_declared_route(
    make_client: MakeClient,
) -> None:
    raw = json.dumps({**body(), "view": {"figures": [6]}}).encode()
    client = make_client()
    r = client.post("/api/v1/figures", content=iter([raw[:10], raw[10:]]), headers=JSON)
    assert r.request.headers.get("transfer-encoding") == "chunked"
    assert r.status_code == 200
    assert "6" in r.json()["figures"]


def test_requests_that_mean_the_same_share_one_computation(make_client: MakeClient) -> None:
    """The cache is keyed by the canonical plan: key order, whitespace, 1 vs 1.0 and a
    default given or left out make one key; a real change of meaning makes another."""
    client = make_client()
    eye = [[1, 0], [0, 1]]
    first = {"x": eye, "w_q": eye, "w_k": eye, "w_v": eye}
    same = [
        json.dumps({"w_v": eye, "w_k": eye, "w_q": eye, "x": eye}),  # key order
        json.dumps(first, indent=3),  # whitespace
        json.dumps({k: [[float(v) for v in row] for row in m] for k, m in first.items()}),
        json.dumps({**first, "scale": True, "mask": "none", "heads": 1}),  # defaults given
    ]
    url = "/api/v1/figures?draw=grids"
    before = {k: cache_count(k) for k in ("miss", "hit")}
    answers = [client.post(url, json=first)]
    answers += [client.post(url, content=s, headers=JSON) for s in same]
    assert [a.status_code for a in answers] == [200] * 5
    assert len({a.content for a in answers}) == 1
    assert cache_count("miss") - before["miss"] == 1  # computed once
    assert cache_count("hit") - before["hit"] == 4
    other = client.post(url, json={**first, "scale": False})
    assert other.status_code == 200
    assert cache_count("miss") - before["miss"] == 2  # a different meaning is computed


def test_an_off_loop_plan_is_keyed_by_its_canonical_query(make_client: MakeClient) -> None:
    client = make_client()
    before = cache_count("miss")
    a = client.get("/models/tiny-decoder/head.json?text=abab&layer=1&head=2")
    b = client.get("/models/tiny-decoder/head.json?head=2&layer=1&text=abab")
    assert a.status_code == b.status_code == 200
    assert a.content == b.content
    assert cache_count("miss") - before == 1
