"""ETag and Cache-Control on deterministic GETs (app/http/caching.py): a route marks its
answer ``cacheable``; the ``ETags`` middleware adds a strong ETag from the bytes sent and
answers 304 to a matching If-None-Match. Streams and large bodies pass untouched."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse, Response, StreamingResponse
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from app.http.caching import CACHEABLE, MAX_TAGGED_BYTES, ETags, cacheable, matches, strong_etag

CACHED = ["/api/v1/presets", "/api/v1/presets/causal", "/api/v1/openapi.json"]


@pytest.mark.parametrize("path", CACHED)
@pytest.mark.parametrize("encoding", ["gzip", "identity"])
def test_deterministic_gets_carry_an_etag_and_answer_304(
    client: TestClient, path: str, encoding: str
) -> None:
    headers = {"accept-encoding": encoding}
    first = client.get(path, headers=headers)
    assert first.status_code == 200
    assert first.headers["cache-control"] == CACHEABLE
    etag = first.headers["etag"]
    again = client.get(path, headers=headers)
    assert again.headers["etag"] == etag  # the same bytes, the same tag
    if first.headers.get("content-encoding") != "gzip":
        assert etag == strong_etag(first.content)
    cached = client.get(path, headers={**headers, "if-none-match": etag})
    assert cached.status_code == 304
    assert cached.content == b""
    assert cached.headers["etag"] == etag
    assert cached.headers["cache-control"] == CACHEABLE
    assert "content-type" not in cached.headers
    weak = client.get(path, headers={**headers, "if-none-match": f'"other", W/{etag}'})
    assert weak.status_code == 304
    stale = client.get(path, headers={**headers, "if-none-match": '"stale"'})
    assert stale.status_code == 200
    assert stale.content == first.content


def test_gzip_and_identity_get_different_tags(client: TestClient) -> None:
    path = "/api/v1/openapi.json"
    zipped = client.get(path, headers={"accept-encoding": "gzip"})
    plain = client.get(path, headers={"accept-encoding": "identity"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers["etag"] != plain.headers["etag"]
    assert "accept-encoding" in zipped.headers["vary"].lower()


def test_head_answers_304_too(client: TestClient) -> None:
    etag = client.get("/api/v1/presets").headers["etag"]
    r = client.head("/api/v1/presets", headers={"if-none-match": etag})
    assert r.status_code == 304


def test_errors_and_posts_are_not_tagged(client: TestClient) -> None:
    missing = client.get("/api/v1/presets/nope")
    assert missing.status_code == 404
    assert "etag" not in missing.headers
    posted = client.post("/api/v1/cost", json={})
    assert posted.status_code == 200
    assert "etag" not in posted.headers


def test_if_none_match_parsing() -> None:
    tag = strong_etag(b"x")
    assert tag == '"' + hashlib.sha256(b"x").hexdigest()[:32] + '"'
    assert matches(tag, tag)
    assert matches(f'"a", {tag}', tag)
    assert matches(f"W/{tag}", tag)
    assert matches("*", tag)
    assert not matches('"a", "b"', tag)
    assert not matches(tag.strip('"'), tag)


def _app() -> FastAPI:
    """A bare app behind ETags: which answers may be held, and which must pass through."""
    app = FastAPI()

    @app.get("/small")
    def small() -> Response:
        return cacheable(PlainTextResponse("print('hi')\n"))

    @app.get("/doc")  # like FastAPI's openapi.json: not ours to mark, marked by path
    def doc() -> Response:
        return PlainTextResponse("{}")

    @app.get("/unmarked")
    def unmarked() -> Response:
        return PlainTextResponse("same bytes, not marked")

    @app.get("/private")
    def private() -> Response:
        return cacheable(PlainTextResponse("mine"), "private, max-age=60")

    @app.get("/large")
    def large() -> Response:
        return cacheable(Response(b"0" * (MAX_TAGGED_BYTES + 1), media_type="text/plain"))

    @app.get("/stream")
    def stream() -> Response:
        async def lines() -> AsyncIterator[bytes]:
            for i in range(3):
                yield b'{"progress": %d}\n' % i

        return cacheable(StreamingResponse(lines(), media_type="application/x-ndjson"))

    app.add_middleware(ETags, mark=("/doc",))
    return app


def test_only_marked_public_bounded_bodies_are_tagged() -> None:
    with TestClient(_app()) as c:
        doc = c.get("/doc")
        assert (doc.headers["cache-control"], doc.headers["etag"]) == (
            CACHEABLE,
            strong_etag(b"{}"),
        )
        small = c.get("/small")
        assert small.headers["etag"] == strong_etag(b"print('hi')\n")
        assert c.get("/small", headers={"if-none-match": small.headers["etag"]}).status_code == 304
        for path in ("/unmarked", "/private", "/large", "/stream"):
            r = c.get(path, headers={"if-none-match": "*"})
            assert r.status_code == 200, path
            assert "etag" not in r.headers, path
        assert c.get("/stream").text == '{"progress": 0}\n{"progress": 1}\n{"progress": 2}\n'


def test_a_stream_is_passed_on_chunk_by_chunk(run_async: Callable[..., Any]) -> None:
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        # public, but no Content-Length: a stream, whatever its content type says
        headers = [(b"cache-control", b"public"), (b"content-type", b"text/plain")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for i in range(3):
            await send({"type": "http.response.body", "body": b"%d\n" % i, "more_body": i < 2})
            assert len(sent) == 2 + i  # already forwarded: nothing held back

    async def record(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request"}

    scope: Scope = {"type": "http", "method": "GET", "path": "/", "headers": []}
    run_async(ETags(app), scope, receive, record)
    assert [m.get("body") for m in sent[1:]] == [b"0\n", b"1\n", b"2\n"]
