"""Where and how a Prometheus scrape is answered (the series are ``app.http.metrics``).

* **What a scrape reads.** One worker process: its own registry. Several (``attention-lab
  --workers N`` sets ``PROMETHEUS_MULTIPROC_DIR`` to a directory the workers share, as the
  client's multiprocess mode prescribes): every worker's files, read by a fresh
  collector per scrape. Before each such read the live gauges of workers that are gone
  (``kill -9``, an OOM kill, a crash: no exit hook runs) are dropped with the client's
  ``mark_process_dead``, so ``attention_lab_heavy_in_flight`` counts live workers only;
  counters and histograms keep a dead worker's counts, as Prometheus expects of them.
* **Where.** ``GET /metrics`` on the app's port (``app.web.health``), unless
  ``ATTENTION_LAB_METRICS_PORT`` names a port of its own: then ``serve_metrics`` answers
  scrapes there from a thread of the main process (the supervisor when there are several
  workers, so a scrape never waits on a worker's event loop and outlives any worker), and
  the app's port answers 404 at ``/metrics``: an Ingress or a published Compose port that
  forwards the app's port cannot expose them.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    start_http_server,
)
from prometheus_client import multiprocess as multiprocess_mode
from prometheus_client.metrics_core import Metric

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST
# gauge_livesum_1234.db: a live gauge's values in worker 1234 (prometheus_client's naming).
_LIVE_FILE = re.compile(r"gauge_live[a-z]*_(\d+)\.db")


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a zombie not yet reaped still does, briefly)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def forget_dead_workers(directory: str) -> list[int]:
    """Drops the live gauges of every worker that no longer runs; returns their pids."""
    dead = sorted(
        {
            int(found.group(1))
            for name in os.listdir(directory)
            if (found := _LIVE_FILE.fullmatch(name)) and not alive(int(found.group(1)))
        }
    )
    for pid in dead:
        multiprocess_mode.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
    return dead


class LiveWorkers:
    """A collector of every worker's files that first forgets the dead workers."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def collect(self) -> Iterable[Metric]:
        forget_dead_workers(self.directory)
        # registry=None: read once here, never registered anywhere.
        collector = multiprocess_mode.MultiProcessCollector(None, path=self.directory)  # type: ignore[no-untyped-call]
        return collector.collect()  # type: ignore[no-any-return, no-untyped-call]


def scrape_registry() -> CollectorRegistry:
    """What a scrape reads now: every live worker's files, or this process's registry."""
    directory = os.environ.get(MULTIPROC_ENV)
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    registry.register(LiveWorkers(directory))
    return registry


def exposition() -> bytes:
    """The text a scrape gets (a fresh registry per scrape in multiprocess mode, as the
    client's documentation prescribes)."""
    return generate_latest(scrape_registry())


def serve_metrics(host: str, port: int) -> tuple[WSGIServer, threading.Thread]:
    """Answers scrapes on ``host:port`` from a daemon thread of this process (OSError if
    the port is taken). Call it in the main process before the server starts."""
    if os.environ.get(MULTIPROC_ENV):
        Path(os.environ[MULTIPROC_ENV]).mkdir(parents=True, exist_ok=True)
    return start_http_server(port, addr=host, registry=scrape_registry())
