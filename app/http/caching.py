"""HTTP caching of deterministic GETs, implemented once: a route marks its answer cacheable,
this middleware gives it a strong ``ETag`` and answers ``304 Not Modified`` to a matching
``If-None-Match``.

A route opts in by setting ``Cache-Control: public…`` on a 200 answer, with
``cacheable(response)`` (or the header value ``CACHEABLE``): the same URL must always give
the same bytes for the running version (presets, the OpenAPI document, lab figures, NumPy
scripts). ``ETags`` then hashes the body it is about to send (after gzip, so each
representation has its own tag; gzip here writes no timestamp, so the bytes are stable)
and adds ``ETag``; when the request's ``If-None-Match`` names that tag, the answer is a
304 with no body. The route still runs (a 304 saves the network, not the work), so mark
only answers that are cheap or admitted like any other.

Never buffered: a response without ``Content-Length`` (a stream, e.g. NDJSON), one larger
than ``MAX_TAGGED_BYTES``, an NDJSON or event stream, any status but 200, any method but
GET and HEAD, and any answer without ``public`` in its ``Cache-Control``: those pass
through untouched, message by message.
"""

from __future__ import annotations

import hashlib

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.mount import path_in_app

# Fresh for five minutes, then revalidated with the ETag (a 304 when nothing changed).
CACHEABLE = "public, max-age=300"
# The most a tagged body may hold; the route has already built it in memory.
MAX_TAGGED_BYTES = 4 * 2**20
STREAM_TYPES = ("application/x-ndjson", "text/event-stream")
# Headers a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5).
KEPT_ON_304 = ("cache-control", "etag", "vary", "expires", "content-location")


def cacheable(response: Response, cache_control: str = CACHEABLE) -> Response:
    """Mark ``response`` as deterministic for its URL: ``ETags`` tags it."""
    response.headers["cache-control"] = cache_control
    return response


def strong_etag(body: bytes) -> str:
    """A strong validator: the first 128 bits of the body's SHA-256, quoted."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def matches(if_none_match: str, etag: str) -> bool:
    """``If-None-Match`` uses the weak comparison: ``W/"x"`` matches ``"x"``; ``*`` any."""
    if if_none_match.strip() == "*":
        return True
    tags = (t.strip().removeprefix("W/") for t in if_none_match.split(","))
    return etag in tags


def taggable(headers: Headers, status: int) -> bool:
    """True for an answer the middleware may hold and tag (see the module docstring)."""
    length = headers.get("content-length", "")
    media = headers.get("content-type", "").partition(";")[0].strip().lower()
    return (
        status == 200
        and "public" in headers.get("cache-control", "").lower()
        and "etag" not in headers
        and media not in STREAM_TYPES
        and length.isdigit()
        and int(length) <= MAX_TAGGED_BYTES
    )


class ETags:
    """Pure ASGI middleware: strong ETags and 304s for answers marked ``cacheable``.
    ``mark``: paths whose answers are cacheable although no route of ours builds them
    (FastAPI's own ``/api/v1/openapi.json``)."""

    def __init__(self, app: ASGIApp, mark: tuple[str, ...] = ()) -> None:
        self.app = app
        self.mark = frozenset(mark)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if_none_match = Headers(scope=scope).get("if-none-match")
        marked = path_in_app(scope) in self.mark
        start: Message | None = None
        chunks: list[bytes] = []

        async def tagging_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                if marked and message["status"] == 200:
                    MutableHeaders(scope=message).setdefault("cache-control", CACHEABLE)
                if taggable(Headers(scope=message), message["status"]):
                    start = message  # held until the whole body is here
                    return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                await _answer(send, start, b"".join(chunks), if_none_match)

        await self.app(scope, receive, tagging_send)


async def _answer(send: Send, start: Message, body: bytes, if_none_match: str | None) -> None:
    """The held 200 with its ETag, or a 304 when the client holds the same bytes."""
    etag = strong_etag(body)
    headers = MutableHeaders(scope=start)
    headers["etag"] = etag
    if if_none_match is not None and matches(if_none_match, etag):
        kept = [(k, v) for k, v in start["headers"] if k.decode("latin-1") in KEPT_ON_304]
        await send({"type": "http.response.start", "status": 304, "headers": kept})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    await send(start)
    await send({"type": "http.response.body", "body": body, "more_body": False})
