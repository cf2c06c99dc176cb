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
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import anyio
import anyio.to_thread

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
            raise BusyError(self.limit)
        self.running += 1

    def leave(self) -> None:
        self.running -= 1


GATE = Gate(2)
_holding: ContextVar[bool] = ContextVar("attention_lab_admitted", default=False)


def configure(limit: int) -> None:
    """Set this worker's limit (``create_app`` calls it with ``Settings.max_heavy``)."""
    GATE.configure(limit)


@asynccontextmanager
async def admitted(cost: Cost) -> AsyncIterator[bool]:
    """Hold a heavy slot for the block when ``cost`` is heavy; yields whether it is held.

    Raises ``BusyError`` when the worker is full. Re-entrant: a block inside another holds
    the outer slot.
    """
    if _holding.get():
        yield True
        return
    if not is_heavy(cost):
        yield False
        return
    GATE.enter()
    token = _holding.set(True)
    try:
        yield True
    finally:
        _holding.reset(token)
        GATE.leave()


async def offload(cost: Cost, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``: inline when small, else in a thread under the limit."""
    async with admitted(cost) as heavy:
        call = functools.partial(fn, *args, **kwargs)
        if not heavy:
            return call()
        return await anyio.to_thread.run_sync(call, limiter=GATE.threads)
