"""The answer cache: identical requests are computed once per worker.

A class opening the same model page or lesson at once asks the same thing thirty times.
``AnswerCache.shared(key, make)`` answers from the cache when ``key`` was computed
(``hit``), waits for the computation when an identical request is already computing it
(``shared``: in flight work is coalesced, not repeated), else computes it (``miss``).
The cache is bounded by the bytes it keeps (``ATTENTION_LAB_ANSWER_CACHE_BYTES``, least
recently used first out; an answer larger than a quarter of it is not kept). Every answer
is a pure function of what was asked (the key), so it never goes stale. A computation
that fails fails its sharers with the same error (the same input gets the same 4xx or
503); one cancelled (its client went away) lets the next sharer compute.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

import anyio

from app.http import metrics
from app.http.sending import Answer

# The series' children, looked up once (a label lookup takes a lock on every call).
HIT, SHARED, MISS = (metrics.ANSWER_CACHE.labels(r) for r in ("hit", "shared", "miss"))


class Flight:
    """An answer being computed: sharers wait on ``done``."""

    __slots__ = ("answer", "done", "error")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.answer: Answer | None = None
        self.error: Exception | None = None


class AnswerCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.entries: OrderedDict[Hashable, Answer] = OrderedDict()
        self.flights: dict[Hashable, Flight] = {}

    def get(self, key: Hashable) -> Answer | None:
        found = self.entries.get(key)
        if found is not None:
            self.entries.move_to_end(key)
        return found

    def put(self, key: Hashable, answer: Answer) -> None:
        size = answer.size
        if answer.status != 200 or size > self.max_bytes // 4 or key in self.entries:
            return
        self.entries[key] = answer
        self.size += size
        while self.size > self.max_bytes:
            _, old = self.entries.popitem(last=False)
            self.size -= old.size

    def inline(self, key: Hashable, make: Callable[[], Answer]) -> Answer:
        """``make()``'s answer, or the cached one: for small work computed on the event
        loop, which no identical request can be computing meanwhile."""
        found = self.get(key)
        if found is not None:
            HIT.inc()
            return found
        MISS.inc()
        answer = make()
        self.put(key, answer)
        return answer

    async def shared(
        self, key: Hashable, make: Callable[[], Awaitable[tuple[Answer, Any]]]
    ) -> tuple[Answer, Any]:
        """``(answer, extra)``: ``make()``'s for the one request that computes, the
        cached or shared answer with ``extra`` None for every other."""
        while True:
            found = self.get(key)
            if found is not None:
                HIT.inc()
                return found, None
            flight = self.flights.get(key)
            if flight is None:
                break
            await flight.done.wait()
            if flight.answer is not None:
                SHARED.inc()
                return flight.answer, None
            if flight.error is not None:
                raise flight.error
        MISS.inc()
        flight = self.flights[key] = Flight()
        try:
            answer, extra = await make()
            flight.answer = answer
            self.put(key, answer)
            return answer, extra
        except Exception as exc:
            flight.error = exc
            raise
        finally:
            del self.flights[key]
            flight.done.set()
