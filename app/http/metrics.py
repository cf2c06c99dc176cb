"""The app's Prometheus metrics: what an operator scrapes from ``GET /metrics``.

``prometheus_client`` (the Prometheus project's own Python client) holds the series:

* ``attention_lab_requests_total{route, method, status}``: answers, by route *template*
  (``/labs/{lab_id}``, never the raw path, so a flood of distinct URLs cannot grow the
  series without bound);
* ``attention_lab_request_duration_seconds{route, method}``: a latency histogram;
* ``attention_lab_admission_rejections_total``: heavy work refused with 503 because
  every slot of the worker was taken (``app.http.admission``);
* ``attention_lab_heavy_in_flight``: heavy computations running now;
* ``attention_lab_queue_length``: heavy requests waiting for a slot now, and
  ``attention_lab_queue_wait_seconds``: how long each waited (admitted or refused);
* ``attention_lab_send_timeouts_total``: answers whose client read too slowly (closed);
* ``attention_lab_answer_cache_total{result}``: answers served from the cache (``hit``),
  shared with an identical request in flight (``shared``) or computed (``miss``).

With several worker processes each keeps its own numbers; ``prometheus_client``'s
multiprocess mode sums them when ``PROMETHEUS_MULTIPROC_DIR`` names a directory shared by
the workers (``attention-lab`` sets one up when it starts more than one worker), so any
worker answers a scrape for all of them.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as multiprocess_mode

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds: a cached page answers in about a millisecond, a 128-token figure set in about a
# second, the largest experiment in several.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

REQUESTS = Counter(
    "attention_lab_requests_total",
    "HTTP requests answered, by route template, method and status.",
    ("route", "method", "status"),
)
LATENCY = Histogram(
    "attention_lab_request_duration_seconds",
    "Time from the request's arrival to the last byte of its answer.",
    ("route", "method"),
    buckets=LATENCY_BUCKETS,
)
REJECTIONS = Counter(
    "attention_lab_admission_rejections_total",
    "Heavy requests refused with 503 because every heavy slot of the worker was taken.",
)
HEAVY_IN_FLIGHT = Gauge(
    "attention_lab_heavy_in_flight",
    "Heavy computations running now (summed over the workers).",
    multiprocess_mode="livesum",
)

QUEUE_LENGTH = Gauge(
    "attention_lab_queue_length",
    "Heavy requests waiting for a slot now (summed over the workers).",
    multiprocess_mode="livesum",
)
QUEUE_WAIT = Histogram(
    "attention_lab_queue_wait_seconds",
    "How long a heavy request waited in the queue, admitted or refused.",
    buckets=LATENCY_BUCKETS,
)
SEND_TIMEOUTS = Counter(
    "attention_lab_send_timeouts_total",
    "Answers not read by their client within send_seconds; the connection was closed.",
)
ANSWER_CACHE = Counter(
    "attention_lab_answer_cache_total",
    "Computed answers by how they were served: hit, shared (in flight) or miss.",
    ("result",),
)


# (route, method, status) -> the two labelled children. ``labels()`` takes a lock and
# builds a key on every call (~10 µs for the pair, 3 % of a small API request); the
# children never change, so each is looked up once. Bounded: the route is a template,
# but a client may send any method token.
_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
MAX_CHILDREN = 1024


def observe(route: str, method: str, status: int, seconds: float) -> None:
    """Count one answered request."""
    key = (route, method, status)
    pair = _children.get(key)
    if pair is None:
        if len(_children) >= MAX_CHILDREN:
            _children.clear()
        pair = REQUESTS.labels(route, method, str(status)), LATENCY.labels(route, method)
        _children[key] = pair
    pair[0].inc()
    pair[1].observe(seconds)


def exposition() -> bytes:
    """The text a scrape gets: this process's series, or every worker's in multiprocess
    mode (a fresh registry per scrape, as the client's documentation prescribes)."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess_mode.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest()
