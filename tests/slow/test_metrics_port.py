"""The metrics of real processes: a separate port that outlives the workers, and live
gauges that stop counting a worker killed with ``kill -9`` (issue 25:
``attention_lab_heavy_in_flight`` stayed at 1 with nothing running)."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from app.http import scrape

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Generous: on the shared 2-core machine (load average above 20) a worker took a minute
# to start; a healthy run takes seconds.
WAIT = 120
HEAVY, REJECTED = "attention_lab_heavy_in_flight", "attention_lab_admission_rejections_total"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def value(text: str, name: str) -> float:
    """The value of an unlabelled series in Prometheus' text format (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(f"{name} "):
            return float(line.split()[1])
    return 0.0


def until(check: Callable[[], bool], seconds: float, what: str) -> None:
    """Waits for ``check()`` (a refused connection counts as not yet)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if check():
                return
        except OSError:
            pass
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


# A worker of its own: counts as a worker would, says so, and waits to be killed.
WORKER = textwrap.dedent("""
    from app.http import metrics
    metrics.HEAVY_IN_FLIGHT.inc()
    metrics.QUEUE_LENGTH.inc(2)
    metrics.REJECTIONS.inc()
    print("counted", flush=True)
    import time; time.sleep(120)
""")


def test_a_killed_workers_gauges_stop_counting_and_its_counts_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), scrape.MULTIPROC_ENV: str(tmp_path)}
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None
            assert worker.stdout.readline() == "counted\n"
        monkeypatch.setenv(scrape.MULTIPROC_ENV, str(tmp_path))
        both = scrape.exposition().decode()
        assert (value(both, HEAVY), value(both, "attention_lab_queue_length")) == (2, 4)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait(timeout=10)  # reaped: no exit hook of its own ever ran
        one = scrape.exposition().decode()
        assert (value(one, HEAVY), value(one, "attention_lab_queue_length")) == (1, 2)
        assert value(one, REJECTED) == 2  # a counter keeps what the dead worker counted
        assert scrape.forget_dead_workers(str(tmp_path)) == []  # already forgotten
    finally:
        for worker in workers:
            worker.kill()
            worker.communicate(timeout=10)  # reaps it and closes its pipe


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def _healthz_total(text: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("attention_lab_requests_total{")
               and 'route="/healthz"' in line)  # fmt: skip


def _workers(supervisor: int) -> list[int]:
    """uvicorn's worker processes: the supervisor's children started by multiprocessing."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    return [int(pid) for pid in children
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]  # fmt: skip


def _slow_reader(port: int) -> socket.socket:
    """A client that asks for a 32 MB answer and reads none of it: its slot stays held."""
    rng = random.Random(1)
    body = json.dumps({"x": [[round(rng.random(), 3)] for _ in range(512)],
                       "w_q": [[1.0]], "w_k": [[1.0]], "w_v": [[1.0]]}).encode()  # fmt: skip
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(b"POST /api/v1/attention HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                 b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
    return sock


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_two_workers_report_on_the_metrics_port_and_a_killed_one_stops_counting(
    tmp_path: Path,
) -> None:
    port, metrics_port = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTENTION_LAB_LOG_LEVEL": "warning",
           "ATTENTION_LAB_METRICS_PORT": str(metrics_port)}  # fmt: skip
    env.pop(scrape.MULTIPROC_ENV, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port), "--workers", "2"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    app, scraped = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{metrics_port}/metrics"
    try:
        until(lambda: proc.poll() is not None or _get(f"{app}/healthz")[0] == 200, WAIT, "start")
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        until(lambda: len(_workers(proc.pid)) == 2, WAIT, "two workers")
        assert _get(f"{app}/metrics")[0] == 404  # the app's port (what a proxy forwards) has none
        probes = _healthz_total(_get(scraped)[1])
        assert probes >= 1
        reader = _slow_reader(port)
        try:
            until(lambda: value(_get(scraped)[1], HEAVY) == 1, WAIT, "the slot is never held")
            for pid in _workers(proc.pid):  # kill -9 both: whichever holds the slot
                os.kill(pid, signal.SIGKILL)
            until(lambda: value(_get(scraped)[1], HEAVY) == 0, WAIT, "a dead worker counts")
            assert _healthz_total(_get(scraped)[1]) == probes  # the dead ones' counts stay
        finally:
            reader.close()
        # uvicorn starts new workers; the port answered throughout, and still does. A
        # request is counted once its answer is sent, so the scrape may come first: wait
        # for the count (with no other request to /healthz, only this one can raise it).
        until(lambda: _get(f"{app}/healthz")[0] == 200, WAIT, "no new worker")
        until(lambda: _healthz_total(_get(scraped)[1]) > probes, WAIT, "uncounted probe")
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
