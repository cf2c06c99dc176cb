"""Admission control: heavy work leaves the event loop, at most N at a time per worker.

The ``Gate`` belongs to the app (``create_app`` puts one on ``app.state.gate``;
``gate_of(request)`` finds it), so two apps in one process (tests, a second mount) never
share slots. ``offload(gate, cost, fn, *args)`` runs ``fn`` inline when ``cost`` is small
(a thread hop would cost more than the work) and otherwise in a worker thread under the
limit ``Settings.max_heavy`` (``ATTENTION_LAB_MAX_HEAVY``). When every slot is taken it
raises ``BusyError``, which the app's error handlers answer with 503 and ``Retry-After``:
refused at once, never queued, so ``/healthz`` and small requests never wait behind heavy
ones, and the worst admissible mix of work is the limit times the largest request the
cost model accepts. ``Retry-After`` is estimated from the work in hand: each held slot
knows its cost and start, and the soonest one to finish (at ``CELLS_PER_SECOND``) sets it.

``admitted(gate, cost)`` takes a slot for a whole block; ``offload`` inside that block
reuses it. A heavy answer keeps its slot until it has been sent (``until_sent``), and a
stream holds one for its whole life (``app.http.pipeline.stream``).
"""

from __future__ import annotations

import functools
import math
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any, TypeVar, cast

import anyio
import anyio.to_thread
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.http import metrics
from app.inputs.limits import Cost, is_heavy

T = TypeVar("T")

# How fast one heavy slot gets through work, for Retry-After: cells per second measured
# for the largest work the cost model admits, the seeded experiments (13.5 M cells of
# saturation in 0.94 s); lab grids build about 2 M/s, the engine faster. The estimate
# only tells a client when to come back; it never decides what is admitted.
CELLS_PER_SECOND = 10_000_000
MAX_RETRY_AFTER = 60
NO_COST = Cost(0, 0)


class BusyError(Exception):
    """Every heavy slot of this worker is taken: answer 503 with ``Retry-After``."""

    def __init__(self, limit: int, retry_after: int = 1) -> None:
        super().__init__(
            f"the server is busy with {limit} large computation{'s' * (limit != 1)}; "
            f"try again in {retry_after} s"
        )
        self.retry_after = retry_after
        self.message = str(self)


class Slot:
    """One held slot: its gate, when it started, how long its work should take; ``kept``
    when a response took it over (released once sent)."""

    __slots__ = ("gate", "kept", "seconds", "start")

    def __init__(self, gate: Gate, cost: Cost) -> None:
        self.gate = gate
        self.kept = False
        self.start = time.monotonic()
        self.seconds = cost.cells / CELLS_PER_SECOND

    def release(self) -> None:
        self.gate.leave(self)


class Gate:
    """The per-worker count of heavy computations and the threads that run them.

    The event loop is single-threaded, so the counter needs no lock: the check and the
    increment happen with no ``await`` between them. ``peak`` is the most slots ever held
    at once (tests and benchmarks read it).
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.held: list[Slot] = []
        self.peak = 0
        self.priced = 0  # requests priced by app.http.pipeline (the route walk reads it)
        self.threads = anyio.CapacityLimiter(self.limit)

    @property
    def running(self) -> int:
        return len(self.held)

    def retry_after(self) -> int:
        """Whole seconds until the soonest held slot should be free (1 at least)."""
        now = time.monotonic()
        left = min((s.start + s.seconds - now for s in self.held), default=0.0)
        return min(MAX_RETRY_AFTER, max(1, math.ceil(left)))

    def enter(self, cost: Cost = NO_COST) -> Slot:
        if len(self.held) >= self.limit:
            metrics.REJECTIONS.inc()
            raise BusyError(self.limit, self.retry_after())
        slot = Slot(self, cost)
        self.held.append(slot)
        self.peak = max(self.peak, len(self.held))
        metrics.HEAVY_IN_FLIGHT.inc()
        return slot

    def leave(self, slot: Slot) -> None:
        if slot in self.held:
            self.held.remove(slot)
            metrics.HEAVY_IN_FLIGHT.dec()


def gate_of(conn: HTTPConnection) -> Gate:
    """The app's gate (``create_app`` puts it on ``app.state``)."""
    gate: Gate = conn.app.state.gate
    return gate


_slot: ContextVar[Slot | None] = ContextVar("attention_lab_slot", default=None)


# How long a heavy thread may hold the GIL while the event loop waits for it (Python's
# default is 5 ms). Every request the loop serves needs the GIL back a few times (accept,
# read, write), so with two heavy threads a small request waited 10-40 ms per probe.
SWITCH_INTERVAL_SECONDS = 0.001


def new_gate(limit: int) -> Gate:
    """A gate of ``limit`` slots (``create_app`` calls it with ``Settings.max_heavy``);
    shortens the GIL's switch interval so the loop is not starved by heavy threads."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    return Gate(limit)


class Admitted:
    """The context manager ``admitted`` returns (a class, not a generator: entering and
    leaving a small request's block costs a few attribute reads, not a generator)."""

    __slots__ = ("cost", "gate", "slot", "token")

    def __init__(self, gate: Gate, cost: Cost) -> None:
        self.gate = gate
        self.cost = cost
        self.slot: Slot | None = None
        self.token: Token[Slot | None] | None = None

    async def __aenter__(self) -> bool:
        if _slot.get() is not None:
            return True
        if not is_heavy(self.cost):
            return False
        self.slot = self.gate.enter(self.cost)
        self.token = _slot.set(self.slot)
        return True

    async def __aexit__(self, *exc_info: object) -> None:
        slot, token = self.slot, self.token
        if slot is None or token is None:
            return
        _slot.reset(token)
        if not slot.kept:
            slot.release()


def admitted(gate: Gate, cost: Cost) -> Admitted:
    """Hold a heavy slot for the block when ``cost`` is heavy; yields whether it is held.

    Raises ``BusyError`` when the worker is full. Re-entrant: a block inside another holds
    the outer slot.
    """
    return Admitted(gate, cost)


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
    return SentThenReleased(response, slot)


class SentThenReleased(Response):
    """Sends the wrapped response, then frees the slot (also if the client went away)."""

    def __init__(self, inner: Response, slot: Slot) -> None:  # nothing to render
        self.inner = inner
        self.slot = slot
        self.background = None
        self.status_code = inner.status_code

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.inner.background is None:
            self.inner.background = self.background
        try:
            await self.inner(scope, receive, send)
        finally:
            self.slot.release()


async def offload(gate: Gate, cost: Cost, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``: inline when small, else in a thread under the limit.

    When heavy ``fn`` returns a ``Response``, its slot is held until it has been sent
    (``until_sent``), so the caller must return it."""
    async with admitted(gate, cost) as heavy:
        call = functools.partial(fn, *args, **kwargs)
        if not heavy:
            return call()
        result = await anyio.to_thread.run_sync(call, limiter=gate.threads)
        if isinstance(result, Response):
            return cast(T, until_sent(result))
        return result
