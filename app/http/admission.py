"""Admission control: heavy work leaves the event loop, at most N at a time per worker.

``offload(cost, fn, *args)`` runs ``fn`` inline when ``cost`` is small (a thread hop
would cost more than the work) and otherwise in a worker thread under the per-worker
limit ``Settings.max_heavy`` (``ATTENTION_LAB_MAX_HEAVY``). When every slot is taken
it raises ``BusyError``, which the app's error handlers answer with 503 and ``Retry-After``:
the request is refused at once, never queued, so ``/healthz`` and small requests never
wait behind heavy ones, and the worst admissible mix of work is the limit times the
largest request the cost model accepts.

``admitted(cost)`` takes a slot for a whole block (a route that must read and parse a
large body before it knows its shapes); ``offload`` inside that block reuses the slot.
A heavy answer keeps its slot until it has been sent (``until_sent``): the bytes of an
answer count against the limit as long as they are in memory.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast

import anyio
import anyio.to_thread
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.http import metrics
from app.inputs.limits import Cost, is_heavy

T = TypeVar("T")

RETRY_AFTER_SECONDS = 1


class BusyError(Exception):
    """Every heavy slot of this worker is taken: answer 503 with ``Retry-After``."""

    def __init__(self, limit: int, retry_after: int = RETRY_AFTER_SECONDS) -> None:
        super().__init__(
            f"the server is busy with {limit} large computation{'s' * (limit != 1)}; "
            f"try again in {retry_after} s"
        )
        self.retry_after = retry_after
        self.message = str(self)


class Gate:
    """The per-worker count of heavy computations and the threads that run them.

    The event loop is single-threaded, so the counter needs no lock: the check and the
    increment happen with no ``await`` between them.
    """

    def __init__(self, limit: int) -> None:
        self.configure(limit)

    def configure(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.running = 0
        self.threads = anyio.CapacityLimiter(self.limit)

    def enter(self) -> None:
        if self.running >= self.limit:
            metrics.REJECTIONS.inc()
            raise BusyError(self.limit)
        self.running += 1
        metrics.HEAVY_IN_FLIGHT.inc()

    def leave(self) -> None:
        self.running -= 1
        metrics.HEAVY_IN_FLIGHT.dec()


class _Slot:
    """One held slot; ``kept`` when a response took it over (released once sent)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept = False


GATE = Gate(1)
_slot: ContextVar[_Slot | None] = ContextVar("attention_lab_slot", default=None)


# How long a heavy thread may hold the GIL while the event loop waits for it (Python's
# default is 5 ms). Every request the loop serves needs the GIL back a few times (accept,
# read, write), so with two heavy threads a small request waited 10-40 ms per probe.
SWITCH_INTERVAL_SECONDS = 0.001


def configure(limit: int) -> None:
    """Set this worker's limit (``create_app`` calls it with ``Settings.max_heavy``) and
    shorten the GIL's switch interval so the loop is not starved by heavy threads."""
    GATE.configure(limit)
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


@asynccontextmanager
async def admitted(cost: Cost) -> AsyncIterator[bool]:
    """Hold a heavy slot for the block when ``cost`` is heavy; yields whether it is held.

    Raises ``BusyError`` when the worker is full. Re-entrant: a block inside another holds
    the outer slot.
    """
    if _slot.get() is not None:
        yield True
        return
    if not is_heavy(cost):
        yield False
        return
    GATE.enter()
    slot = _Slot()
    token = _slot.set(slot)
    try:
        yield True
    finally:
        _slot.reset(token)
        if not slot.kept:
            GATE.leave()


def until_sent(response: Response) -> Response:
    """Keep the slot held here (if any) until ``response`` has been sent.

    A heavy answer (78 MB for the largest /attention) stays in memory until a client has
    read it; counting it against the limit keeps slow readers from piling up answers
    beyond the memory the limit was sized for. The route must return ``response``.
    """
    slot = _slot.get()
    if slot is None or slot.kept:
        return response
    slot.kept = True
    return _SentThenReleased(response)


class _SentThenReleased(Response):
    """Sends the wrapped response, then frees the slot (also if the client went away)."""

    def __init__(self, inner: Response) -> None:  # no super().__init__: nothing to render
        self.inner = inner
        self.background = None
        self.status_code = inner.status_code

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.inner.background is None:
            self.inner.background = self.background
        try:
            await self.inner(scope, receive, send)
        finally:
            GATE.leave()


async def offload(cost: Cost, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``: inline when small, else in a thread under the limit.

    When heavy ``fn`` returns a ``Response``, its slot is held until it has been sent
    (``until_sent``), so the caller must return it."""
    async with admitted(cost) as heavy:
        call = functools.partial(fn, *args, **kwargs)
        if not heavy:
            return call()
        result = await anyio.to_thread.run_sync(call, limiter=GATE.threads)
        if isinstance(result, Response):
            return cast(T, until_sent(result))
        return result
