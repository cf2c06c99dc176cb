"""The app as a process for the browser tests: ``serving(command)`` starts it on a free
port, waits until ``/healthz`` answers, yields its address and stops it when the block
ends. Used by the session's server (conftest.py) and by the sub-path test's app behind
its proxy (proxy_support.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    name: str, command: list[str], port: int, stdout: int | IO[bytes] | None = None
) -> Iterator[str]:
    """Run ``command`` (``name`` in messages; it listens on ``port``) from the repository
    root, quiet and on one BLAS thread; yield ``http://127.0.0.1:<port>`` once it is up."""
    env = {**os.environ, "ATTENTION_LAB_LOG_LEVEL": "warning", "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=stdout)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, name)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_up(
    url: str, process: subprocess.Popen[bytes], name: str, timeout: float = 60
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:  # /healthz straight to the server (never through a proxy's prefix)
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server at {url} did not start within {timeout} s")
