"""Pure ASGI middleware: request guard (body size, content type), HEAD as GET,
compression, streams marked unbuffered for a proxy, and the trailing-slash redirect (the
request id, access log and metrics are ``app.web.telemetry``).

The guard refuses an oversized body with 413 *before* it is read, from Content-Length
when given and by counting streamed bytes otherwise, and refuses a body that is not JSON
with 415 when it is sent to an API route that takes it (a method the route does not
have still gets the router's 405, an unknown path its 404). SelectiveGZip
compresses everything but the raw numeric API.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.mount import path_in_app
from app.http.responses import site_base
from app.inputs.errors import error_detail

log = logging.getLogger("attention_lab.access")


async def send_error(send: Send, status: int, field: str, msg: str, kind: str) -> None:
    """One error in the one JSON shape (``app.inputs.errors``), sent from raw ASGI code:
    middleware answers before (or instead of) any route."""
    body = json.dumps(error_detail(field, msg, kind)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    """413 for bodies over ``max_body_bytes``; 415 for API bodies that are not JSON.

    ``router`` is the app's router, consulted (live, so routes added later count) to
    tell a route that takes this method from one that would answer 405 or 404.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int, router: Router | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.router = router
        # (method, path) -> answer; matching every route costs ~90 µs, a lookup nothing.
        # Bounded, so a flood of distinct paths cannot grow it without limit.
        self._seen: dict[tuple[str, str], bool] = {}

    def _takes_json(self, scope: Scope) -> bool:
        if not path_in_app(scope).startswith("/api/"):
            return False
        if self.router is None:
            return True
        key = (scope["method"], scope["path"])
        found = self._seen.get(key)
        if found is None:
            found = any(route.matches(scope)[0] == Match.FULL for route in self.router.routes)
            if len(self._seen) >= 1024:
                self._seen.clear()
            self._seen[key] = found
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in {"POST", "PUT", "PATCH"}:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        limit = self.max_body_bytes
        too_large = f"the request body is larger than the limit of {limit} bytes"
        if length is not None and (not length.isdigit() or int(length) > limit):
            await send_error(send, 413, "body", too_large, "body_too_large")
            return
        ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if self._takes_json(scope) and not (
            ctype == b"application/json" or ctype.endswith(b"+json")
        ):
            shown = ctype.decode("latin-1") or "none"
            msg = f"send the body as JSON with Content-Type: application/json (got {shown})"
            await send_error(send, 415, "content-type", msg, "unsupported_media_type")
            return
        if length is not None:
            await self.app(scope, receive, send)
            return
        # No Content-Length (chunked): read up to the limit, then replay what was read.
        chunks: list[bytes] = []
        received, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            more = message.get("more_body", False)
            if received > limit:
                await send_error(send, 413, "body", too_large, "body_too_large")
                return
        body, replayed = b"".join(chunks), False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class HeadAsGet:
    """``HEAD`` wherever ``GET`` works: the GET route answers, and the body is dropped
    (its headers, Content-Length included, stay those of the GET)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)


class SelectiveGZip:
    """GZip (level 1, bodies over 1 kB) for every path except ``skip_prefixes``.

    Level 1 rather than 6: on a 64-token state's 3.3 MB of figure JSON it takes 26 ms
    instead of 100 ms for 690 kB instead of 490 kB, and plotly.js is 555 kB instead of
    485 kB; on a CPU-bound server the milliseconds matter more than the bytes."""

    def __init__(self, app: ASGIApp, skip_prefixes: tuple[str, ...]) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=1000, compresslevel=1)
        self.skip_prefixes = skip_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not path_in_app(scope).startswith(self.skip_prefixes):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)


# What a path keeps unescaped in a Location (RFC 3986 pchar and "/"); "%" is not among
# them, so a decoded "%" goes back out as "%25".
_PATH_SAFE = "/:@!$&'()*+,;=-._~"


class SlashRedirect:
    """Starlette's trailing-slash redirect (``/lessons/`` -> ``/lessons``, 307), with the
    address from ``site_base``: ``ATTENTION_LAB_PUBLIC_URL`` when set, never a Host
    header a client chose. The app's router calls it for a path no route matches
    (``install``); any other path goes on to ``fallback`` (the 404)."""

    def __init__(self, router: Router, fallback: ASGIApp) -> None:
        self.router = router
        self.fallback = fallback

    @classmethod
    def install(cls, router: Router) -> None:
        """Replaces the router's own slash redirect (which reads the Host header)."""
        router.redirect_slashes = False
        router.default = cls(router, router.default)

    def other_form(self, scope: Scope) -> Scope | None:
        """The scope of the same path with its trailing slash added or removed, if a
        route takes that one."""
        path = path_in_app(scope)
        if scope["type"] != "http" or path == "/":
            return None
        moved = path.rstrip("/") if path.endswith("/") else path + "/"
        other = {**scope, "path": scope["path"][: len(scope["path"]) - len(path)] + moved}
        found = any(route.matches(other)[0] is not Match.NONE for route in self.router.routes)
        return other if found else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        other = self.other_form(scope)
        if other is None:
            await self.fallback(scope, receive, send)
            return
        location = site_base(Request(scope)) + quote(path_in_app(other), safe=_PATH_SAFE)
        if scope.get("query_string"):
            location += "?" + scope["query_string"].decode("latin-1")
        await RedirectResponse(location, status_code=307)(scope, receive, send)


STREAM_TYPES = (b"application/x-ndjson", b"text/event-stream")


class UnbufferedStreams:
    """``X-Accel-Buffering: no`` on every streamed answer (NDJSON progress lines): nginx
    and ingress-nginx then pass its lines on as they come although buffering is on for
    everything else (``deploy/kubernetes.yaml``), whatever path the stream has."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", ())
                if any(n == b"content-type" and v.startswith(STREAM_TYPES) for n, v in headers):
                    headers = [*headers, (b"x-accel-buffering", b"no")]
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_marked)
