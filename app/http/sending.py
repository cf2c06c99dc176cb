"""An answer sent under a deadline, in pieces, holding its heavy slot to the last byte.

``Answer`` is a computed answer as bytes (what the answer cache keeps and shares).
``Sent`` sends one: its body in ``PIECE_BYTES`` pieces, so a slow reader never makes the
server copy a whole answer into a socket buffer, all within the gate's ``send_seconds``
(``ATTENTION_LAB_SEND_SECONDS``). Past the deadline the answer is left unfinished, which
makes the server close the connection, and ``attention_lab_send_timeouts_total`` counts
it. The heavy slot the answer was computed under (if any) is freed once the last byte is
sent, the deadline passed or the client went away: an answer in memory is counted
against the limit until it is gone. ``within_deadline`` gives other responses (chunks,
files) the same send.
"""

from __future__ import annotations

import logging
from typing import NamedTuple, Protocol

import anyio
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http import metrics

PIECE_BYTES = 64 * 1024
log = logging.getLogger("attention_lab.sending")


class Held(Protocol):
    """What an answer holds until it is sent: a heavy slot (``app.http.admission.Slot``;
    named by its one method, since admission sends through this module)."""

    def release(self) -> None: ...


class Answer(NamedTuple):
    """A computed answer: its bytes, media type, extra headers and status; a large JSON
    answer may be ``chunks`` written one after another (``app.wire.stages_to_chunks``:
    a repeated array is one bytes object), then ``body`` is empty."""

    body: bytes
    media_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    status: int = 200
    chunks: tuple[bytes, ...] = ()

    @property
    def size(self) -> int:
        """The bytes sent (a chunk repeated counts each time)."""
        return len(self.body) + sum(len(c) for c in self.chunks)


def in_pieces(send: Send) -> Send:
    """``send`` with every body message cut into pieces of at most ``PIECE_BYTES``."""

    async def piecewise(message: Message) -> None:
        body = message.get("body", b"")
        if message["type"] != "http.response.body" or len(body) <= PIECE_BYTES:
            await send(message)
            return
        more = message.get("more_body", False)
        for start in range(0, len(body), PIECE_BYTES):
            last = start + PIECE_BYTES >= len(body)
            piece = body[start : start + PIECE_BYTES]
            await send({"type": "http.response.body", "body": piece, "more_body": more or not last})

    return piecewise


async def within_deadline(
    response: ASGIApp, seconds: float, scope: Scope, receive: Receive, send: Send
) -> bool:
    """Send ``response`` in pieces within ``seconds``; False (counted) when the client
    read too slowly and the answer was cut off."""
    with anyio.move_on_after(seconds) as deadline:
        await response(scope, receive, in_pieces(send))
    if deadline.cancelled_caught:
        metrics.SEND_TIMEOUTS.inc()
        log.warning("answer to %s not read within %.0f s: connection closed",
                    scope.get("path", "?"), seconds)  # fmt: skip
        return False
    return True


class Sent(Response):
    """``answer`` sent within ``seconds``, then ``slot`` (if any) freed."""

    def __init__(self, answer: Answer, slot: Held | None, seconds: float) -> None:
        super().__init__(answer.body, answer.status, dict(answer.headers), answer.media_type)
        self.chunks = answer.chunks
        if answer.chunks:
            self.headers["content-length"] = str(answer.size)
        self.slot = slot
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await within_deadline(_Plain(self), self.seconds, scope, receive, send)
        finally:
            if self.slot is not None:
                self.slot.release()


class _Plain:
    """The response's own ``__call__`` (``Sent`` overrides it to add the deadline)."""

    def __init__(self, response: Sent) -> None:
        self.response = response

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = self.response
        if not response.chunks:
            await Response.__call__(response, scope, receive, send)
            return
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": response.raw_headers})  # fmt: skip
        last = len(response.chunks) - 1
        for i, chunk in enumerate(response.chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": i < last})
