"""Admission control: heavy work leaves the event loop, at most N at a time per worker.

The ``Gate`` belongs to the app (``create_app`` puts one on ``app.state.gate``;
``gate_of(request)`` finds it), so two apps in one process (tests, a second mount) never
share slots. ``offload(gate, cost, fn, *args)`` runs ``fn`` inline when ``cost`` is small
(a thread hop would cost more than the work) and otherwise in a worker thread under the
limit ``Settings.max_heavy`` (``ATTENTION_LAB_MAX_HEAVY``). When every slot is taken it
waits in a short FIFO queue (``Gate.acquire``: at most ``Settings.max_queue`` waiters,
each for ``Settings.queue_seconds``); past the deadline, or with the queue full, it raises
``BusyError``, which the app's error handlers answer with 503 and ``Retry-After``. Only
heavy work queues, so ``/healthz`` and small requests never wait behind heavy ones, and the
worst admissible mix of work is the limit times the largest request the cost model
accepts (waiters hold no answer). ``Retry-After`` is estimated from the queue: the
requests ahead times the measured mean time a slot is held (``Gate.mean_seconds``, from
the cost model's estimate until slots have been measured), over the limit.

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


class Waiter:
    """One request in the queue: its cost, the event it waits on, the slot handed to it."""

    __slots__ = ("cost", "event", "slot")

    def __init__(self, cost: Cost) -> None:
        self.cost = cost
        self.event = anyio.Event()
        self.slot: Slot | None = None


# Weight of the newest hold time in the mean (an exponential moving average).
MEAN_WEIGHT = 0.2


class Gate:
    """The per-worker count of heavy computations, their queue and the threads that run
    them.

    The event loop is single-threaded, so the counter needs no lock: the check and the
    increment happen with no ``await`` between them, and a leaving slot hands itself to
    the first waiter in the same step (FIFO, no race with a newcomer). ``peak`` is the
    most slots ever held at once (tests and benchmarks read it).
    """

    def __init__(
        self, limit: int, wait: float = 0.0, max_queue: int = 0, send_seconds: float = 30.0
    ) -> None:
        self.limit = max(1, limit)
        self.wait = wait
        self.send_seconds = send_seconds
        self.max_queue = max_queue
        self.held: list[Slot] = []
        self.queue: list[Waiter] = []
        self.peak = 0
        self.mean_seconds: float | None = None  # measured time a slot is held
        self.priced = 0  # requests priced by app.http.pipeline (the route walk reads it)
        self.threads = anyio.CapacityLimiter(self.limit)

    @property
    def running(self) -> int:
        return len(self.held)

    def retry_after(self, ahead: int | None = None) -> int:
        """Whole seconds until a request behind ``ahead`` waiters (default: the whole
        queue) should get a slot: the held slots' time left plus the waiters' expected
        time, shared by the slots (1 at least)."""
        now = time.monotonic()
        ahead = len(self.queue) if ahead is None else ahead
        left = sorted(max(0.0, s.start + self.expected(s.seconds) - now) for s in self.held)
        soonest = left[0] if left and len(self.held) >= self.limit else 0.0
        queued = sum(self.expected(w.cost.cells / CELLS_PER_SECOND) for w in self.queue[:ahead])
        return min(MAX_RETRY_AFTER, max(1, math.ceil(soonest + queued / self.limit)))

    def expected(self, estimate: float) -> float:
        """How long a slot estimated at ``estimate`` s should be held: the measured mean
        when there is one (it includes encoding and sending), else the estimate."""
        return max(estimate, self.mean_seconds or 0.0)

    def _refuse(self) -> BusyError:
        metrics.REJECTIONS.inc()
        return BusyError(self.limit, self.retry_after())

    def enter(self, cost: Cost = NO_COST) -> Slot:
        """A slot now, or ``BusyError`` (no waiting; ``acquire`` waits)."""
        if len(self.held) >= self.limit or self.queue:
            raise self._refuse()
        return self._take(cost)

    def _take(self, cost: Cost) -> Slot:
        slot = Slot(self, cost)
        self.held.append(slot)
        self.peak = max(self.peak, len(self.held))
        metrics.HEAVY_IN_FLIGHT.inc()
        return slot

    async def acquire(self, cost: Cost = NO_COST, wait: float | None = None) -> Slot:
        """A slot, waiting in the FIFO queue up to ``wait`` seconds (default the gate's);
        ``BusyError`` past the deadline or when the queue is full."""
        wait = self.wait if wait is None else wait
        if len(self.held) < self.limit and not self.queue:
            return self._take(cost)
        if wait <= 0 or len(self.queue) >= self.max_queue:
            raise self._refuse()
        waiter = Waiter(cost)
        self.queue.append(waiter)
        metrics.QUEUE_LENGTH.set(len(self.queue))
        start = time.monotonic()
        try:
            with anyio.move_on_after(wait):
                await waiter.event.wait()
        finally:
            if waiter.slot is None and waiter in self.queue:
                self.queue.remove(waiter)
                metrics.QUEUE_LENGTH.set(len(self.queue))
            metrics.QUEUE_WAIT.observe(time.monotonic() - start)
        if waiter.slot is None:
            raise self._refuse()
        return waiter.slot

    def leave(self, slot: Slot) -> None:
        if slot not in self.held:
            return
        self.held.remove(slot)
        metrics.HEAVY_IN_FLIGHT.dec()
        took = time.monotonic() - slot.start
        mean = self.mean_seconds
        self.mean_seconds = took if mean is None else mean + MEAN_WEIGHT * (took - mean)
        if self.queue and len(self.held) < self.limit:
            waiter = self.queue.pop(0)
            metrics.QUEUE_LENGTH.set(len(self.queue))
            waiter.slot = self._take(waiter.cost)
            waiter.event.set()


def gate_of(conn: HTTPConnection) -> Gate:
    """The app's gate (``create_app`` puts it on ``app.state``)."""
    gate: Gate = conn.app.state.gate
    return gate


_slot: ContextVar[Slot | None] = ContextVar("attention_lab_slot", default=None)


# How long a heavy thread may hold the GIL while the event loop waits for it (Python's
# default is 5 ms). Every request the loop serves needs the GIL back a few times (accept,
# read, write), so with two heavy threads a small request waited 10-40 ms per probe.
SWITCH_INTERVAL_SECONDS = 0.001


def new_gate(limit: int, wait: float = 0.0, max_queue: int = 0, send_seconds: float = 30.0) -> Gate:
    """A gate of ``limit`` slots and a queue of ``max_queue`` waiters for ``wait`` s
    (``create_app`` calls it with ``Settings.max_heavy``, ``queue_seconds``,
    ``max_queue``, ``send_seconds``); shortens the GIL's switch interval so the loop is
    not starved by heavy threads."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    return Gate(limit, wait, max_queue, send_seconds)


class Admitted:
    """The context manager ``admitted`` returns (a class, not a generator: entering and
    leaving a small request's block costs a few attribute reads, not a generator)."""

    __slots__ = ("cost", "gate", "slot", "token")

    def __init__(self, gate: Gate, cost: Cost, slot: Slot | None = None) -> None:
        self.gate = gate
        self.cost = cost
        self.slot: Slot | None = slot  # given: a slot already taken, held for the block
        self.token: Token[Slot | None] | None = None

    async def __aenter__(self) -> bool:
        if _slot.get() is not None:
            if self.slot is not None:  # nested: the outer slot covers the block
                self.slot.release()
                self.slot = None
            return True
        if self.slot is None:
            if not is_heavy(self.cost):
                return False
            self.slot = await self.gate.acquire(self.cost)
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
    """Sends the wrapped response in pieces within the gate's send deadline, then frees
    the slot (also if the client went away or read too slowly)."""

    def __init__(self, inner: Response, slot: Slot) -> None:  # nothing to render
        self.inner = inner
        self.slot = slot
        self.background = None
        self.status_code = inner.status_code

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from app.http.sending import within_deadline  # sending builds on this module

        if self.inner.background is None:
            self.inner.background = self.background
        try:
            await within_deadline(self.inner, self.slot.gate.send_seconds, scope, receive, send)
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
