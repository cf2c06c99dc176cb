"""SIGTERM is bounded: a worker with a client that stops reading a large answer still
exits after ``ATTENTION_LAB_SHUTDOWN_TIMEOUT`` (uvicorn's ``timeout_graceful_shutdown``),
well inside the pod's grace period, instead of waiting for the client forever."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SHUTDOWN_TIMEOUT = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until_up(proc: subprocess.Popen[str], port: int) -> None:
    deadline = time.monotonic() + 60  # the start alone takes seconds on a busy machine
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except OSError:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
    raise AssertionError("the server did not start")


def slow_reader(port: int) -> socket.socket:
    """A client that asks for a ~20 MB answer, reads its first bytes, then stops reading."""
    w = [[0.5] * 64 for _ in range(64)]
    body = json.dumps({"x": [[0.25] * 64] * 512, "w_q": w, "w_k": w, "w_v": w}).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    head = (
        f"POST /api/v1/attention HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    first = sock.recv(64)
    assert first.startswith(b"HTTP/1.1 200"), first
    return sock


def test_sigterm_with_a_slow_reader_exits_within_the_shutdown_timeout(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "ATTENTION_LAB_SHUTDOWN_TIMEOUT": str(SHUTDOWN_TIMEOUT)}  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    sock = None
    try:
        wait_until_up(proc, port)
        sock = slow_reader(port)
        time.sleep(0.5)  # the server is now blocked sending to a client that does not read
        proc.send_signal(signal.SIGTERM)
        # Generous for a loaded machine, far below "forever" and below the pod's 30 s.
        proc.wait(timeout=SHUTDOWN_TIMEOUT + 15)
    finally:
        if sock is not None:
            sock.close()
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate(timeout=10)
    # uvicorn re-raises the signal once it has shut down: the exit is SIGTERM's own
    assert proc.returncode in (0, -signal.SIGTERM), err
    assert "timeout graceful shutdown exceeded" in err  # it cancelled the stuck answer
    assert "Finished server process" in err
