"""How uvicorn serves a connection: its h11 protocol plus a header timeout.

uvicorn (0.30 to at least 0.55) bounds an *idle* keep-alive connection
(``--timeout-keep-alive``) but not one that sends its request head slowly: a client that
trickles a header line every few seconds holds its connection for as long as it likes,
and enough of them fill ``--limit-concurrency``, past which uvicorn answers every new
request, ``/healthz`` included, with 503. Behind a buffering proxy that never happens (the
proxy reads the whole head first); without one (Compose in a classroom, a laptop on the
school's network) ``HeadTimeoutH11`` closes a connection whose request head is not
complete ``ATTENTION_LAB_HEADER_TIMEOUT`` seconds after it opened or after its previous
answer ended. A head that has arrived stops the clock; the body and the answer have their
own bounds (the request pipeline's).

It is uvicorn's own ``H11Protocol`` (``attention-lab`` passes it as uvicorn's ``http``),
extended where a connection opens and closes, where events are read and where an answer
ends; nothing of h11's parsing is copied, and a slow connection is closed the way uvicorn
closes an idle one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from app.settings import get_settings


class HeadTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol that closes a connection slow to send its request head."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Read in the worker (a spawned process rebuilds the class from its module).
        self.header_timeout = get_settings().header_timeout
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._stop_clock()  # a request head has arrived: its answer is under way
        elif self.transport.get_protocol() is not self:  # pragma: no cover - no ws library
            self._stop_clock()  # upgraded (a WebSocket): another protocol owns it now

    def on_response_complete(self) -> None:
        # Before the parent's, which handles a pipelined request at once (and so stops
        # the clock again through handle_events).
        self._start_clock()
        super().on_response_complete()

    def _start_clock(self) -> None:
        self._stop_clock()
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _stop_clock(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():  # pragma: no cover - closing, not yet lost
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # pragma: no cover - the clock is stopped when a head arrives
        self.timeout_keep_alive_handler()  # closed as uvicorn closes an idle connection
