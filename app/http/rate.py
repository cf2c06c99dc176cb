"""A rate per client: how many times a minute one client (its IP address) may do a thing.

``Rate(per_minute)`` is a token bucket per client: ``per_minute`` tokens, refilled evenly
over a minute; each use takes one, and with none left ``take`` answers the seconds until
the next one (the ``Retry-After`` of a 429). It lives in one worker's memory: with N
workers (or replicas) a client gets up to N times the rate, which bounds abuse without a
shared store on every request. At most ``MAX_CLIENTS`` are remembered, the longest unseen
forgotten first (a forgotten client starts with a full bucket), so a flood of addresses
cannot grow it without bound.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MAX_CLIENTS = 10_000


class Rate:
    """A token bucket per client key (see the module docstring)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.per_second = per_minute / 60.0
        self.clock = clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, when
        self.lock = threading.Lock()

    def take(self, client: str) -> int:
        """0 when ``client`` may go ahead (a token taken), else the whole seconds until it
        may (at least 1)."""
        with self.lock:
            now = self.clock()
            tokens, then = self.buckets.pop(client, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - then) * self.per_second)
            wait = 0
            if tokens >= 1:
                tokens -= 1
            else:
                wait = max(1, math.ceil((1 - tokens) / self.per_second))
            self.buckets[client] = (tokens, now)
            while len(self.buckets) > MAX_CLIENTS:
                self.buckets.popitem(last=False)
            return wait
