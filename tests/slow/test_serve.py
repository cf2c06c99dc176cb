"""A real server: ``python -m app`` from another working directory prints its URL, answers
/healthz and logs one access line per request (seconds: it spawns the server)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_python_m_app_serves_and_logs_one_line_per_request(tmp_path: Path) -> None:
    """A real server from another working directory: URL printed, /healthz answered, and
    one access line per request with status and duration."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTENTION_LAB_LOG_LEVEL": "info"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        body = b""
        deadline = time.monotonic() + 60  # the start alone takes seconds on a busy machine
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    body = r.read()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.1)
        assert body == b'{"status":"ok"}'
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/no-such-page", timeout=2)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert f"open http://127.0.0.1:{port}" in out
    access = [line for line in err.splitlines() if "attention_lab.access" in line]
    assert len(access) == 2, err
    assert access[0].endswith("ms")
    assert "GET /healthz 200 " in access[0]
    assert "GET /no-such-page 404 " in access[1]


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[bytes, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=5) as r:
        return r.read(), dict(r.headers)


def _healthz_total(metrics: str) -> float:
    for line in metrics.splitlines():
        if line.startswith("attention_lab_requests_total{") and 'route="/healthz"' in line:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_two_workers_log_json_and_any_worker_reports_both(tmp_path: Path) -> None:
    """``--workers 2`` with JSON logs: every line is a JSON object with a request id, the
    sent X-Request-ID comes back and is logged, and a scrape of whichever worker answers
    counts the requests of both (Prometheus' multiprocess mode)."""
    import json

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTENTION_LAB_LOG_FORMAT": "json"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port), "--workers", "2"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60  # two workers start slowly on a busy machine
        while True:
            try:
                _get(f"{base}/healthz")
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the server did not start in 60 s"
                time.sleep(0.2)
        _, headers = _get(f"{base}/healthz", {"X-Request-ID": "probe-42"})
        assert headers["x-request-id"] == "probe-42"
        for _ in range(19):
            _get(f"{base}/healthz")
        totals = {_healthz_total(_get(f"{base}/metrics")[0].decode()) for _ in range(6)}
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    # 1 readiness probe + 20: every scrape, whichever worker answered it, sees them all.
    assert totals == {21.0}, totals
    entries = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert entries, err
    access = [e for e in entries if e["logger"] == "attention_lab.access"]
    assert any(e["request_id"] == "probe-42" and "GET /healthz 200" in e["message"]
               for e in access)  # fmt: skip
    assert all(e["request_id"] != "-" for e in access)
