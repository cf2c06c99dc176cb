"""The app's Prometheus series: what an operator scrapes from ``/metrics``.

``prometheus_client`` (the Prometheus project's own Python client) holds them:

* ``attention_lab_requests_total{route, method, status}``: answers, by route *template*
  (``/labs/{lab_id}``, never the raw path; ``unmatched`` for any path no route has) and
  method (the standard ones by name, any other token as ``other``), so neither a flood of
  made-up URLs nor of made-up method tokens can grow the series;
* ``attention_lab_request_duration_seconds{route, method}``: a latency histogram;
* ``attention_lab_admission_rejections_total``: heavy work refused with 503 because
  every slot of the worker was taken (``app.http.admission``);
* ``attention_lab_heavy_in_flight``: heavy computations running now;
* ``attention_lab_queue_length``: heavy requests waiting for a slot now, and
  ``attention_lab_queue_wait_seconds``: how long each waited (admitted or refused).

The gauges are ``livesum``: with several worker processes (``prometheus_client``'s
multiprocess mode, ``app.http.scrape``) they sum the live workers only, so a worker
killed in the middle of a computation stops counting. Where a scrape is answered (the
app's port or a separate one) is ``app.http.scrape``'s.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from app.http.scrape import CONTENT_TYPE, MULTIPROC_ENV, exposition

__all__ = ["CONTENT_TYPE", "MULTIPROC_ENV", "exposition", "method_label", "observe"]

# The methods a label names; any other token a client sends is counted as ``other``.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"

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


# (route, method, status) -> the two labelled children. ``labels()`` takes a lock and
# builds a key on every call (~10 µs for the pair, 3 % of a small API request); the
# children never change, so each is looked up once. Bounded: the route is a template and
# the method one of METHODS or ``other``; the clear is a second guard (statuses).
_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
MAX_CHILDREN = 1024


def method_label(method: str) -> str:
    """The method as a label: its name if standard, else ``other``."""
    return method if method in METHODS else OTHER_METHOD


def observe(route: str, method: str, status: int, seconds: float) -> None:
    """Count one answered request (``method`` is folded by ``method_label``)."""
    method = method_label(method)
    key = (route, method, status)
    pair = _children.get(key)
    if pair is None:
        if len(_children) >= MAX_CHILDREN:
            _children.clear()
        pair = REQUESTS.labels(route, method, str(status)), LATENCY.labels(route, method)
        _children[key] = pair
    pair[0].inc()
    pair[1].observe(seconds)
