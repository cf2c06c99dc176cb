"""What the HTTP benchmarks share: starting uvicorn on a chosen stack, a closed-loop
HTTP/1.1 keep-alive client (asyncio, raw sockets: it costs the client little CPU, so the
server is what is measured) and the server's CPU time from /proc.

Stacks: ``h11`` is uvicorn's pure-Python default (``--loop asyncio --http h11``);
``httptools`` is what ``uvicorn[standard]`` brings (``--loop uvloop --http httptools``).
Both are named explicitly: with uvloop and httptools installed, uvicorn's ``auto`` picks
them, so leaving the flags out would measure the same stack twice.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STACKS = {
    "h11": ["--loop", "asyncio", "--http", "h11"],
    "httptools": ["--loop", "uvloop", "--http", "httptools"],
}


def available_stacks() -> list[str]:
    """The stacks this interpreter can serve: httptools only with uvicorn[standard]."""
    standard = all(importlib.util.find_spec(m) for m in ("uvloop", "httptools"))
    return ["h11", "httptools"] if standard else ["h11"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    port: int, target: str = "app", stack: str = "h11", env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """uvicorn, one worker, serving ``benchmarks.bench_app:<target>`` on ``stack``."""
    full_env = {**os.environ, "ATTENTION_LAB_LOG_LEVEL": "warning", **(env or {})}
    full_env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", f"benchmarks.bench_app:{target}", "--port", str(port),
         "--no-access-log", "--log-level", "warning", *STACKS[stack]],
        cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server ({target} on {stack}) did not start")


class Tally:
    """Per load run: latencies of answered requests, and how many 503s were retried."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.busy = 0


async def _response(reader: asyncio.StreamReader) -> tuple[bytes, dict[bytes, bytes]]:
    """Read one response (status line and headers, then the Content-Length body)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    headers = {k.strip().lower(): v.strip()
               for k, _, v in (line.partition(b":") for line in lines[1:] if line)}  # fmt: skip
    await reader.readexactly(int(headers.get(b"content-length", b"0")))
    return lines[0], headers


async def _connection(port: int, requests: list[bytes], until: float, tally: Tally) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    n = 0
    try:
        while time.perf_counter() < until:
            start = time.perf_counter()
            request = requests[n % len(requests)]
            n += 1
            while True:
                writer.write(request)
                status, headers = await _response(reader)
                if not status.startswith(b"HTTP/1.1 503"):
                    break
                # Busy (every heavy slot taken): honour Retry-After, then send it again.
                tally.busy += 1
                wait = float(headers.get(b"retry-after", b"1"))
                if time.perf_counter() + wait >= until:
                    return
                await asyncio.sleep(wait)
                if b"close" in headers.get(b"connection", b"").lower():
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
            if not status.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"unexpected response: {status[:80]!r}")
            tally.latencies.append(time.perf_counter() - start)
    finally:
        writer.close()


def load(port: int, path: str, bodies: list[bytes], seconds: float, connections: int) -> Tally:
    """Closed-loop load: ``connections`` keep-alive connections for ``seconds``, each
    sending its share of ``bodies`` in turn (a different X per request: no cache can
    answer, as long as there are more bodies than requests a connection makes per cycle)."""
    requests = [
        (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        for body in bodies
    ]  # fmt: skip
    tally = Tally()

    async def main() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_connection(port, requests[i::connections] or requests, until,
                                           tally) for i in range(connections)))  # fmt: skip

    asyncio.run(main())
    return tally


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux /proc): robust to machine load."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]
