"""Short links over HTTP (issue 29 item 5): POST /api/v1/short-links, GET
/api/v1/short-links/{id}, /s/{id} and /l/{id}. Created and reopened, deduplicated, 404
for an unknown id, 413 for a content or body too large, 422 naming the field for hostile
values, 429 with Retry-After past the rate, 30 concurrent creators, a client that never
reads its answer, and the long links still working beside the short ones."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
import pytest
from api_helpers import JSON, MakeClient, assert_error
from fastapi.testclient import TestClient

from app.lessons.builtin import get_builtin
from app.lessons.format import lesson_json
from app.lessons.link import decode_lesson, encode_lesson

API = "/api/v1/short-links"


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(database_url="sqlite://", short_link_rate=10_000)


def initial_state(page: str) -> Any:
    """The state a main page opens on: its #initial-state JSON block."""
    found = re.search(r'<script[^>]*id="initial-state"[^>]*>(.*?)</script>', page, re.S)
    assert found, "no #initial-state block"
    return json.loads(found.group(1))


def lesson() -> dict[str, Any]:
    found = get_builtin("why-scale")
    assert found is not None
    return lesson_json(found)


def test_a_state_is_stored_and_its_short_link_opens_the_same_state(client: TestClient) -> None:
    r = client.post(API, json={"state": "preset=causal&fig=7"})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["kind"] == "state"
    assert made["path"] == f"/s/{made['id']}"
    assert made["url"] == f"http://testserver/s/{made['id']}" == r.headers["location"]
    assert made["bytes"] == len("preset=causal&fig=7")
    opened = client.get(made["path"], follow_redirects=False)
    assert opened.status_code == 302
    assert opened.headers["location"] == "http://testserver/?preset=causal&fig=7#fig-7"
    page = client.get(made["path"])  # and the page it leads to is the long link's page
    assert page.status_code == 200
    assert str(page.url) == "http://testserver/?preset=causal&fig=7#fig-7"
    assert initial_state(page.text) == initial_state(client.get("/?preset=causal&fig=7").text)
    read = client.get(f"{API}/{made['id']}").json()
    assert read["state"] == "preset=causal&fig=7"


def test_an_embed_short_link_opens_the_embed_of_the_states_figure(client: TestClient) -> None:
    link = client.post(API, json={"state": "preset=causal&focus=1&fig=7"}).json()["id"]
    opened = client.get(f"/e/{link}", follow_redirects=False)
    assert opened.status_code == 302
    assert opened.headers["location"] == "http://testserver/embed/7?preset=causal&focus=1"
    embed = client.get(f"/e/{link}")
    assert embed.status_code == 200
    assert embed.text == client.get("/embed/7?preset=causal&focus=1").text
    no_figure = client.post(API, json={"state": "preset=causal"}).json()["id"]
    refused = client.get(f"/e/{no_figure}", headers={"accept": "text/html"})
    assert refused.status_code == 404
    assert "fig=N" in refused.text


def test_the_same_content_gets_the_same_id_and_another_a_new_one(client: TestClient) -> None:
    one = client.post(API, json={"state": "preset=causal"}).json()["id"]
    assert client.post(API, json={"state": "?preset=causal"}).json()["id"] == one
    assert client.post(API, json={"state": "preset=causal&focus=1"}).json()["id"] != one


def test_a_lesson_is_stored_once_whatever_its_key_order_and_plays(client: TestClient) -> None:
    raw = lesson()
    made = client.post(API, json={"lesson": raw})
    assert made.status_code == 201, made.text
    link = made.json()
    assert link["kind"] == "lesson"
    assert link["path"] == f"/l/{link['id']}"
    shuffled = dict(reversed(list(raw.items())))
    assert client.post(API, json={"lesson": shuffled}).json()["id"] == link["id"]
    opened = client.get(link["path"] + "?mode=student", follow_redirects=False)
    assert opened.status_code == 302
    target = urlsplit(opened.headers["location"])
    assert target.path == "/lessons/play"
    query = parse_qs(target.query)
    assert query["mode"] == ["student"]
    assert lesson_json(decode_lesson(query["l"][0])) == raw
    assert client.get(link["path"]).status_code == 200  # the player, as the long link's
    assert client.get(f"{API}/{link['id']}").json()["lesson"] == raw
    # a mode the player does not have is not passed on
    odd = client.get(link["path"] + "?mode=%3Cscript%3E", follow_redirects=False)
    assert "mode" not in parse_qs(urlsplit(odd.headers["location"]).query)


def test_a_state_id_does_not_open_a_lesson_nor_the_other_way(client: TestClient) -> None:
    state = client.post(API, json={"state": "preset=causal"}).json()["id"]
    assert client.get(f"/l/{state}", follow_redirects=False).status_code == 404


@pytest.mark.parametrize("path", ["/s/AAAAAAAAAAAAAAAA", "/l/AAAAAAAAAAAAAAAA", "/s/short",
                                  "/s/" + "A" * 17, "/s/AAAAAAAAAAAAAAA%21"])  # fmt: skip
def test_an_unknown_short_link_is_a_404_page_naming_the_id(client: TestClient, path: str) -> None:
    r = client.get(path, headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 404
    assert "text/html" in r.headers["content-type"]
    assert "link_id" in r.text


def test_an_unknown_id_read_through_the_api_is_a_404_or_422(client: TestClient) -> None:
    assert_error(client.get(f"{API}/AAAAAAAAAAAAAAAA"), "link_id", 404)
    assert_error(client.get(f"{API}/nope"), "link_id", 422)


def test_a_content_over_the_setting_is_a_413_naming_it(make_client: MakeClient) -> None:
    client = make_client(database_url="sqlite://", short_link_max_bytes=2048)
    assert_error(client.post(API, json={"state": "preset=causal&x=" + "a" * 2048}), "state", 413)
    big = lesson()  # a valid lesson, over 2 kB of JSON
    assert len(json.dumps(big)) > 2048
    assert_error(client.post(API, json={"lesson": big}), "lesson", 413)
    fits = "preset=causal&x=" + "a" * (2048 - len("preset=causal&x="))
    assert client.post(API, json={"state": fits}).status_code == 201


def test_the_largest_admissible_state_is_stored(make_client: MakeClient) -> None:
    client = make_client(database_url="sqlite://", short_link_max_bytes=1_000_000)
    state = "preset=causal&x=" + "a" * (1_000_000 - len("preset=causal&x="))
    r = client.post(API, json={"state": state})
    assert r.status_code == 201, r.text[:300]
    assert r.json()["bytes"] == 1_000_000
    assert client.get(f"{API}/{r.json()['id']}").json()["state"] == state


def test_a_body_over_the_route_limit_is_a_413_before_it_is_read(client: TestClient) -> None:
    r = client.post(API, content=b" " * 2_100_001, headers=JSON)
    assert_error(r, "body", 413)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"state": NaN}', "state"),
        (b'{"state": 1e999}', "state"),
        (b'{"state": 12345678901234567890123}', "state"),
        (b'{"state": -1}', "state"),
        (b'{"state": ["preset=causal"]}', "state"),
        (b'{"state": null}', "body"),
        (b"{}", "body"),
        (b'{"state": "preset=causal", "lesson": {}}', "body"),
        (b'{"state": "preset=causal", "extra": 1}', "extra"),
        (b'{"state": "preset=causal&focus=NaN"}', "state"),
        (b'{"state": "preset=causal&focus=-1"}', "state"),
        (b'{"state": "preset=causal&focus=1e999"}', "state"),
        (b'{"state": "s=AAAA"}', "state"),
        (b'{"state": "preset=<script>"}', "state"),
        (b'{"state": "preset=causal\\u0000"}', "state"),
        (b'{"lesson": "why-scale"}', "lesson"),
        (b'{"lesson": {"version": 1}}', "lesson"),
        (b'{"lesson": {"version": 1, "title": "t", "steps": -1}}', "lesson.steps"),
        (b"[1, 2]", "body"),
        (b"not json", "body"),
    ],
)
def test_hostile_values_are_a_422_naming_the_field(
    client: TestClient, body: bytes, field: str
) -> None:
    r = client.post(API, content=body, headers=JSON)
    assert r.status_code in (400, 422), r.text
    assert_error(r, field, r.status_code)


def test_past_the_rate_a_client_gets_429_with_retry_after(make_client: MakeClient) -> None:
    client = make_client(database_url="sqlite://", short_link_rate=3)
    answers = [client.post(API, json={"state": f"preset=causal&focus={i % 3}"}) for i in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    refused = answers[-1]
    assert_error(refused, "client", 429)
    assert refused.headers["retry-after"] == "20"  # 3 a minute: the next token in 20 s
    assert client.get(answers[0].headers["location"], follow_redirects=False).status_code == 302
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


def _concurrently(
    run_async: Callable[..., Any], app: Any, bodies: list[dict[str, Any]]
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return list(await asyncio.gather(*(c.post(API, json=b) for b in bodies)))

    return run_async(run)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_thirty_creators_of_the_same_content_get_one_id(
    make_client: MakeClient, run_async: Callable[..., Any], tmp_path: Any
) -> None:
    client = make_client(data_dir=tmp_path, short_link_rate=10_000)
    answers = _concurrently(run_async, client.app, [{"state": "preset=causal&fig=3"}] * 30)
    assert [a.status_code for a in answers] == [201] * 30
    assert len({a.json()["id"] for a in answers}) == 1
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


@pytest.mark.slow
def test_thirty_creators_of_different_contents_get_thirty_ids(
    make_client: MakeClient, run_async: Callable[..., Any], tmp_path: Any
) -> None:
    client = make_client(data_dir=tmp_path, short_link_rate=10_000)
    bodies = [{"state": f"preset=causal&x={i}"} for i in range(30)]
    answers = _concurrently(run_async, client.app, bodies)
    assert [a.status_code for a in answers] == [201] * 30
    ids = [a.json()["id"] for a in answers]
    assert len(set(ids)) == 30
    for i, link in enumerate(ids):  # each one holds its own content
        assert client.get(f"{API}/{link}").json()["state"] == f"preset=causal&x={i}"
    assert client.app.state.gate.running == 0  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_client_that_never_reads_its_answer_holds_nothing_for_long(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    client = make_client(database_url="sqlite://", send_seconds=1, short_link_rate=10_000)
    app = client.app

    async def scenario() -> list[int]:
        body = json.dumps({"state": "preset=causal&x=never"}).encode()
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)  # never disconnects either
            return {"type": "http.disconnect"}

        async def stuck(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                await asyncio.sleep(3600)  # a client that stops reading

        scope = {"type": "http", "method": "POST", "path": API, "raw_path": API.encode(),
                 "query_string": b"", "root_path": "", "scheme": "http", "http_version": "1.1",
                 "headers": [(b"content-type", b"application/json"), (b"host", b"testserver"),
                             (b"content-length", str(len(body)).encode())],
                 "client": ("10.1.1.1", 1), "server": ("testserver", 80)}  # fmt: skip
        never = asyncio.ensure_future(app(scope, receive, stuck))
        await asyncio.sleep(0.2)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            others = await asyncio.wait_for(
                asyncio.gather(
                    *(c.post(API, json={"state": f"preset=causal&y={i}"}) for i in range(5))
                ),
                timeout=10,
            )
        never.cancel()
        return [r.status_code for r in others]

    assert run_async(scenario) == [201] * 5
    assert app.state.gate.running == 0  # type: ignore[attr-defined]


def test_the_long_links_still_work_beside_the_short_ones(client: TestClient) -> None:
    assert client.get("/?preset=causal&fig=7").status_code == 200
    assert client.get(f"/lessons/play?l={encode_lesson(lesson())}").status_code == 200


def test_a_data_dir_that_cannot_be_written_is_a_503_naming_the_database(
    make_client: MakeClient, tmp_path: Any
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    client = make_client(data_dir=blocked / "data")
    assert_error(client.post(API, json={"state": "preset=causal"}), "database", 503)
    assert client.get("/s/AAAAAAAAAAAAAAAA", follow_redirects=False).status_code == 503
    assert client.get("/", follow_redirects=False).status_code == 200  # the rest still works
