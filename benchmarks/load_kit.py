"""What the load scenarios share (``benchmarks/load.py``, ``benchmarks/load_labs.py``):
one uvicorn worker with a memory watchdog, a small HTTP client that follows redirects,
a looping prober and percentiles. Loopback only.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
LOG = Path(os.environ.get("LOAD_LOG", "/tmp/attention-lab-load.log"))
REDIRECTS = (301, 302, 303, 307, 308)


class Server:
    """One uvicorn worker in a child process, with a memory watchdog: it kills the worker
    when its RSS passes ``kill_mb`` (so a runaway request cannot take the machine down) and
    reports the peak against ``limit_mb`` (the pod's memory limit)."""

    def __init__(
        self, app_dir: Path, kill_mb: int, env: dict[str, str], port: int = 0, limit_mb: int = 768
    ) -> None:
        self.port = port
        if not port:
            with socket.socket() as s:
                s.bind((HOST, 0))
                self.port = s.getsockname()[1]
        cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--app-dir", str(app_dir),
               "--host", HOST, "--port", str(self.port), "--log-level", "warning",
               "--no-access-log"]  # fmt: skip
        full_env = {**os.environ, "PYTHONPATH": str(app_dir), **env}
        full_env.setdefault("OPENBLAS_NUM_THREADS", "1")
        self.log = open(LOG, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, env=full_env, cwd=app_dir, stdout=self.log,
                                     stderr=subprocess.STDOUT)  # fmt: skip
        self.kill_bytes = kill_mb * 2**20
        self.limit_mb = limit_mb
        self.peak = 0
        self.killed = False
        self._stop = threading.Event()
        self._wait_ready()
        threading.Thread(target=self._watch, daemon=True).start()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if get(self.port, "/healthz", timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not start within 30 s")

    def rss(self) -> int:
        try:
            text = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def _watch(self) -> None:
        while not self._stop.is_set() and self.proc.poll() is None:
            rss = self.rss()
            self.peak = max(self.peak, rss)
            if rss > self.kill_bytes:
                self.killed = True
                self.proc.send_signal(signal.SIGKILL)
                return
            time.sleep(0.01)

    def alive(self) -> bool:
        return not self.killed and self.proc.poll() is None

    def stop(self) -> None:
        self._stop.set()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def memory_line(self) -> str:
        mb = self.peak / 2**20
        if self.killed:
            state = f"KILLED by the watchdog over {self.kill_bytes // 2**20} MiB"
        elif self.proc.poll() is not None:
            state = f"DIED (exit {self.proc.returncode})"
        else:
            state = "alive"
        over = f", OVER the {self.limit_mb} MiB limit" if mb > self.limit_mb else ""
        return f"  peak RSS {mb:.0f} MiB (worker {state}{over})"


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    timeout: float = 60,
    decode: bool = False,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, dict[str, str]]:
    """(status, body, headers); status 0 when the connection failed or timed out. Asks
    for gzip, as browsers do; ``decode`` decompresses the body. Follows up to 5
    redirects on the same server (a moved route answers where it moved to)."""
    for _ in range(6):
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        try:
            sent = {"Accept-Encoding": "gzip", **(headers or {})}
            if body is not None:
                sent["Content-Type"] = "application/json"
            conn.request(method, path, body=body, headers=sent)
            resp = conn.getresponse()
            data = resp.read()
            got = {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, http.client.HTTPException):
            return 0, b"", {}
        finally:
            conn.close()
        if resp.status in REDIRECTS and "location" in got:
            path = relative(got["location"])
            if resp.status == 303:
                method, body = "GET", None
            continue
        if got.get("content-encoding") == "gzip" and decode:
            data = gzip.decompress(data)
        return resp.status, data, got
    return 0, b"", {}


def relative(location: str) -> str:
    """The path and query of a Location header (absolute or not)."""
    parts = urlsplit(location)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def get(port: int, path: str, timeout: float = 60) -> tuple[int, bytes, dict[str, str]]:
    return request(port, "GET", path, timeout=timeout, decode=True)


def post(port: int, path: str, body: bytes, timeout: float = 120) -> tuple[int, bytes]:
    status, data, _ = request(port, "POST", path, body, timeout)
    return status, data


def link(body: dict[str, Any]) -> str:
    """The ``s=`` value of a page state, as app/inputs/link.py encodes it."""
    raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


class Prober:
    """Loops a GET or POST until stopped, recording each latency in milliseconds (a
    timeout after ``timeout`` seconds counts as status 0, as a liveness probe fails)."""

    def __init__(
        self,
        port: int,
        path: str,
        body: bytes | None = None,
        pause: float = 0.02,
        timeout: float = 30,
    ) -> None:
        """``pause`` seconds between requests; after a 503, its Retry-After instead."""
        self.port, self.path, self.body, self.pause = port, path, body, pause
        self.timeout = timeout
        self.ms: list[float] = []
        self.statuses: Counter[int] = Counter()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        method = "GET" if self.body is None else "POST"
        while not self._stop.is_set():
            (status, _, headers), seconds = timed(
                request, self.port, method, self.path, self.body, self.timeout
            )
            self.ms.append(seconds * 1000)
            self.statuses[status] += 1
            retry = headers.get("retry-after", "")
            self._stop.wait(float(retry) if status == 503 and retry.isdigit() else self.pause)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(40)

    def line(self, name: str) -> str:
        return (f"  {name:<22} n={len(self.ms):<5} p50 {percentile(self.ms, 50):7.1f} ms  "
                f"p99 {percentile(self.ms, 99):7.1f} ms  max {max(self.ms, default=0):7.1f} ms  "
                f"statuses {dict(self.statuses)}")  # fmt: skip


@contextmanager
def server(args: argparse.Namespace, **env: str) -> Iterator[Server]:
    srv = Server(Path(args.app_dir).resolve(), args.kill_mb, env, limit_mb=args.limit_mb)
    try:
        yield srv
    finally:
        srv.stop()
