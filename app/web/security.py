"""Security headers on every response: the content policy, framing policy, nosniff, referrer.

One policy for the whole site, with no inline script and no ``eval``::

    default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';
    img-src 'self' data: blob:; connect-src 'self'; base-uri 'self';
    form-action 'self'; frame-ancestors 'self'

``style-src 'unsafe-inline'`` is needed because Plotly injects ``<style>`` elements and
sets inline styles; ``img-src data: blob:`` lets Plotly's PNG/SVG export work. Pages under
``/embed/`` (the iframe targets that oEmbed hands out) may be framed by the origins in
``Settings.frame_ancestors`` (``ATTENTION_LAB_FRAME_ANCESTORS``, default ``*``); every other
page only by its own origin, so ``X-Frame-Options: SAMEORIGIN`` is sent there too (it
cannot express a list of origins, so embed pages do not carry it).
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.mount import path_in_app
from app.web.middleware import send_error

EMBED_PREFIXES = ("/embed/",)

_BASE_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
)

# A CSP source expression: a keyword, a scheme ("https:"), or [scheme://]host[:port][/path]
# with an optional leading "*." wildcard. Anything else (";", ",", quotes, spaces inside a
# token) could inject a directive into the header, so it is refused at start-up.
_SOURCE = re.compile(
    r"^(\*|'self'|'none'|[a-z][a-z0-9+.-]*:"
    r"|([a-z][a-z0-9+.-]*://)?(\*\.)?[a-z0-9.-]+(:(\d{1,5}|\*))?(/[\w./~%-]*)?)$",
    re.IGNORECASE,
)


def frame_ancestor_sources(value: str) -> str:
    """Validate ``ATTENTION_LAB_FRAME_ANCESTORS`` and return it as one CSP source list.

    Origins may be separated by spaces or commas. Raises ValueError naming the setting
    and the bad entry, so a typo stops the server instead of silently weakening the policy.
    """
    sources = [s for s in re.split(r"[\s,]+", value.strip()) if s]
    if not sources:
        raise ValueError("ATTENTION_LAB_FRAME_ANCESTORS is empty; use '*' or 'self' or origins")
    for source in sources:
        if source.lower() in {"self", "none"}:
            raise ValueError(f"ATTENTION_LAB_FRAME_ANCESTORS: write '{source}' with quotes")
        if not _SOURCE.match(source):
            raise ValueError(
                f"ATTENTION_LAB_FRAME_ANCESTORS: {source!r} is not an origin such as "
                "https://moodle.example.edu, a scheme, '*', 'self' or 'none'"
            )
    return " ".join(sources)


def content_security_policy(frame_ancestors: str = "'self'") -> str:
    """The site's CSP header value with the given ``frame-ancestors`` source list."""
    return "; ".join((*_BASE_POLICY, f"frame-ancestors {frame_ancestors}"))


def is_embed_path(path: str) -> bool:
    """True for the pages other sites may frame (the oEmbed iframe targets)."""
    return path.startswith(EMBED_PREFIXES)


class SecurityHeaders:
    """Adds CSP, X-Frame-Options (site pages), nosniff and Referrer-Policy to responses.

    A header the route already set is left as it is, so a route can tighten its own policy.
    """

    def __init__(self, app: ASGIApp, frame_ancestors: str = "*") -> None:
        self.app = app
        self.site_headers = _encode(content_security_policy("'self'"), frame_options=b"SAMEORIGIN")
        self.embed_headers = _encode(
            content_security_policy(frame_ancestor_sources(frame_ancestors)), frame_options=None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.embed_headers if is_embed_path(path_in_app(scope)) else self.site_headers
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((n, v) for n, v in extra if n not in present)
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            # Starlette's ServerErrorMiddleware sits outside every user middleware, so its
            # 500 would carry none of these headers: answer the 500 here, with them, and
            # re-raise so the error is still logged (it sees the response has started).
            if not started:
                await _internal_error(scope, send_with_headers)
            raise


async def _internal_error(scope: Scope, send: Send) -> None:
    if path_in_app(scope).startswith(("/api/", "/oembed")):
        msg = "internal error; the request was not completed"
        await send_error(send, 500, "server", msg, "internal_error")
        return
    body = b"<!doctype html><title>500</title><h1>Internal error</h1>"
    await send({"type": "http.response.start", "status": 500,
                "headers": [(b"content-type", b"text/html; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


def _encode(policy: str, frame_options: bytes | None) -> list[tuple[bytes, bytes]]:
    headers = [
        (b"content-security-policy", policy.encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"strict-origin-when-cross-origin"),
    ]
    if frame_options is not None:
        headers.append((b"x-frame-options", frame_options))
    return headers
