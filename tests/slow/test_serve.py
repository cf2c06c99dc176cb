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
        for _ in range(100):
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
