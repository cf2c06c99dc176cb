"""What an operator sees of each request: its id, one access line, and its metrics.

``Telemetry`` is pure ASGI middleware, outermost but for the security headers, so every
answer (a 413 from the guard, a 503, a 500) is counted and logged once:

* **Request id.** Taken from the client's or the proxy's ``X-Request-ID`` when it is a
  plain token (letters, digits, ``.``, ``_``, ``-``, ``:``, at most 128), else made here
  (32 hex digits); returned in the answer's ``X-Request-ID`` and kept in a context
  variable for the request's lifetime, so every log line written while it runs carries it
  (``RequestIdFilter``). A value with spaces or control characters is never trusted: it
  would let a client forge log lines.
* **Access line.** ``client method path status duration`` on ``attention_lab.access``,
  with the client address as uvicorn saw it (behind a proxy, the forwarded address when
  ``FORWARDED_ALLOW_IPS`` trusts that proxy). The path is the decoded one, so a ``%0a``
  in the URL is a real line feed there: ``printable`` writes every control character
  (and ``\\``) as an escape such as ``\\x0a``, so no URL can forge a second line.
* **Metrics.** ``app.http.metrics.observe`` by route template.

``JsonFormatter`` writes one JSON object per line (``ATTENTION_LAB_LOG_FORMAT=json``) for
log collectors; ``app.cli.log_config`` installs it and the filter.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http import metrics

log = logging.getLogger("attention_lab.access")

REQUEST_ID_HEADER = "x-request-id"
_TRUSTED_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
NO_REQUEST = "-"
request_id: ContextVar[str] = ContextVar("attention_lab_request_id", default=NO_REQUEST)


def incoming_id(scope: Scope) -> str:
    """The request's id: the sent ``X-Request-ID`` when it is a plain token, else new."""
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            text: str = value.decode("latin-1")
            if _TRUSTED_ID.fullmatch(text):
                return text
            break
    return secrets.token_hex(16)


def route_template(scope: Scope) -> str:
    """The matched route's path template, ``/static`` for assets, ``unmatched`` for a
    404: bounded labels for the metrics, whatever the URL."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    if scope.get("root_path", "").endswith("/static") or scope["path"].startswith("/static/"):
        return "/static"
    return "unmatched"


# C0 and C1 controls, DEL, and the line and paragraph separators some log viewers break
# lines at; the backslash too, so an escape in the log means the same thing each time.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char == "\\":
        return "\\\\"
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` for a log line: control characters as ``\\xNN``, ``\\`` as ``\\\\``."""
    return _UNPRINTABLE.sub(_escape, text)


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else NO_REQUEST


class Telemetry:
    """Request id, access line and metrics for every HTTP request (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = incoming_id(scope)
        token = request_id.set(rid)
        start = time.perf_counter()
        status = 500  # what the server answers if the app fails before starting a reply
        header = (REQUEST_ID_HEADER.encode(), rid.encode())

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - start
            metrics.observe(route_template(scope), scope["method"], status, seconds)
            if log.isEnabledFor(logging.INFO):  # the arguments cost more than the check
                log.info(
                    "%s %s %s %s %.1fms",
                    printable(client_address(scope)),  # a forwarded address too
                    scope["method"],  # a token: h11 refuses any other method
                    printable(scope["path"]),
                    status,
                    seconds * 1000,
                )
            request_id.reset(token)


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record (``-`` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request id, message (and the
    exception, if any). Keys are stable; values are strings."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", NO_REQUEST),
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)
