"""The ONE request pipeline: parse strictly -> price -> admit -> compute off the loop -> encode.

Every route that computes anything is declared with ``@computes`` (a marker the route
walk in ``tests/http/test_pipeline_routes.py`` checks: a route that is neither marked nor
on its short allowlist of non-computing routes fails the suite) and goes through these
steps, in this order:

1. **parse** strictly (``app.inputs``: the one number grammar, the request models);
2. **price** with the cost model: ``price(request, cost, reduce)`` refuses work over the
   budget with a 4xx naming what to reduce (``CostError``) and counts the request as
   priced (``Gate.priced``, which the route walk reads);
3. **admit**: ``compute`` (one answer) or ``stream`` (an answer sent in pieces) takes a
   heavy slot for the whole life of the answer, streams included, or raises ``BusyError``
   (503 with ``Retry-After`` estimated from the work in hand) *before any byte is sent*;
4. **compute** off the event loop in a worker thread under the gate's limiter;
5. **encode** in that same thread (the function returns bytes or a ``Response``).

Heavy requests wait in the gate's short FIFO queue for a slot (``Settings.queue_seconds``;
a lab request ``wait``s at least its own moment: a lab page asks for several figures at
once and would otherwise refuse itself), then 503 with ``Retry-After`` from the queue.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.requests import HTTPConnection
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from app.http.admission import Admitted, Gate, Slot, gate_of, offload
from app.inputs.limits import Cost, check_cost, is_heavy

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

MARK = "__attention_lab_pipeline__"
POLL_SECONDS = 0.05


def computes(endpoint: F) -> F:
    """Mark ``endpoint`` as a route that prices and admits its work through this module
    (put it under the router's decorator: ``@router.get(...)`` then ``@computes``)."""
    setattr(endpoint, MARK, True)
    return endpoint


def is_marked(endpoint: Callable[..., Any]) -> bool:
    return bool(getattr(endpoint, MARK, False))


def price(
    conn: HTTPConnection,
    cost: Cost,
    reduce: str,
    *,
    field: str | None = None,
    status: int = 422,
) -> Cost:
    """Step 2: ``cost`` checked against the app's budget (``CostError`` names ``field``,
    default ``reduce``); returns it for ``compute`` / ``stream``."""
    check_cost(cost, conn.app.state.settings, reduce, status=status, field=field)
    gate_of(conn).priced += 1
    return cost


def priced(conn: HTTPConnection, cost: Cost) -> Cost:
    """Record a cost already checked elsewhere (``app.inputs.resolve`` checks a link's)."""
    gate_of(conn).priced += 1
    return cost


async def _enter(gate: Gate, cost: Cost, wait: float) -> Slot:
    """A slot for ``cost`` from the gate's queue, waiting up to ``wait`` seconds or the
    gate's own deadline, whichever is longer; else BusyError."""
    return await gate.acquire(cost, max(wait, gate.wait))


async def compute(
    conn: HTTPConnection, cost: Cost, fn: Callable[..., T], *args: Any, wait: float = 0.0
) -> T:
    """Steps 3-5 for one answer: ``fn(*args)`` inline when small, else in a thread under
    a slot (from the gate's queue, ``wait`` s at least) held until the answer (a
    ``Response``) has been sent."""
    gate = gate_of(conn)
    if wait <= gate.wait or not is_heavy(cost):
        return await offload(gate, cost, fn, *args)
    async with Admitted(gate, cost, await _enter(gate, cost, wait)):
        return await offload(gate, cost, fn, *args)


async def in_slot(slot: Slot | None, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` inside a stream: in a thread under the stream's slot, inline when the
    stream is small (no slot)."""
    if slot is None:
        return fn(*args)
    return await anyio.to_thread.run_sync(fn, *args, limiter=slot.gate.threads)


class HeldStream(StreamingResponse):
    """A streamed answer that frees its slot once the last byte is sent, or the client
    went away, or the server shuts down (the task is cancelled)."""

    def __init__(
        self,
        body: AsyncIterator[bytes],
        slot: Slot | None,
        media_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(body, media_type=media_type, headers=headers)
        self.slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.slot is not None:
                self.slot.release()


async def stream(
    conn: HTTPConnection,
    cost: Cost,
    body: Callable[[Slot | None], AsyncIterator[bytes]],
    media_type: str,
    *,
    headers: Mapping[str, str] | None = None,
    wait: float = 0.0,
) -> Response:
    """Steps 3-5 for a stream: the slot is taken now (503 before any byte when busy) and
    held until the stream ends; ``body(slot)`` runs its blocks with ``in_slot``."""
    slot = await _enter(gate_of(conn), cost, wait) if is_heavy(cost) else None
    return HeldStream(body(slot), slot, media_type, headers)
