"""Two hostile clients against a real server on loopback, and what they cost (issue 25):

* ``methods``: requests with N made-up HTTP method tokens (default 20,000), then the size
  and time of a ``/metrics`` scrape (bounded labels fold them into ``method="other"``);
* ``slowloris``: C connections (default 120) that send a request head one header line
  every few seconds and never finish it, while a probe asks ``/healthz`` ten times a
  second on fresh connections: its statuses and p50/p99 (a header timeout closes the
  slow connections, and they do not crowd out the probe).

    python benchmarks/hostile_clients.py              # both, on a server it starts
    python benchmarks/hostile_clients.py slowloris --seconds 40 --connections 120
    python benchmarks/hostile_clients.py methods --url http://127.0.0.1:8000

The server it starts is ``python -m app`` with one worker and the environment's settings;
``--metrics-url`` names where to scrape when metrics are on a separate port.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port)],
        cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start in 60 s")


async def one_request(host: str, port: int, head: bytes, timeout: float = 10) -> tuple[int, float]:
    """(status, seconds) of one request on a fresh connection; status 0 if none came."""
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        writer.write(head)
        line = await asyncio.wait_for(reader.readline(), timeout)
        writer.close()
        status = int(line.split()[1]) if line.startswith(b"HTTP/") else 0
    except (OSError, TimeoutError, ValueError, IndexError):
        status = 0
    return status, time.perf_counter() - start


async def flood_methods(host: str, port: int, count: int, parallel: int = 16) -> Counter[int]:
    """``count`` requests, each with its own random method token."""
    statuses: Counter[int] = Counter()
    queue = iter(range(count))

    async def worker() -> None:
        for _ in queue:
            method = "X" + secrets.token_hex(6).upper()
            head = f"{method} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            status, _ = await one_request(host, port, head.encode())
            statuses[status] += 1

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return statuses


def scrape(url: str) -> tuple[int, float]:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        size = len(r.read())
    return size, time.perf_counter() - start


def methods(base: str, metrics_url: str, count: int) -> None:
    parts = urlsplit(base)
    size0, _ = scrape(metrics_url)
    began = time.perf_counter()
    statuses = asyncio.run(flood_methods(parts.hostname or "127.0.0.1", parts.port or 80, count))
    took = time.perf_counter() - began
    scrapes = [scrape(metrics_url) for _ in range(3)]
    size = scrapes[-1][0]
    median = statistics.median(s for _, s in scrapes)
    print(f"methods: {count} made-up methods in {took:.1f} s, answers {dict(statuses)}")
    print(f"methods: /metrics {size0:,} bytes before, {size:,} bytes after; "
          f"scrape median {median * 1000:.1f} ms (3 scrapes)")  # fmt: skip


async def slow_client(host: str, port: int, until: float, pause: float) -> int:
    """Sends a request head one header line every ``pause`` seconds until ``until``,
    reconnecting when the server closes it; returns how many times it was closed."""
    closed = 0
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            await writer.drain()
            while time.monotonic() < until:
                await asyncio.sleep(pause)
                if reader.at_eof():
                    break
                writer.write(f"X-Slow-{secrets.token_hex(2)}: 1\r\n".encode())
                await writer.drain()
            writer.close()
        except OSError:
            pass
        closed += 1
    return closed


async def probe(host: str, port: int, until: float) -> list[tuple[int, float]]:
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    results = []
    while time.monotonic() < until:
        results.append(await one_request(host, port, head, timeout=5))
        await asyncio.sleep(0.1)
    return results


async def slowloris_run(host: str, port: int, connections: int, seconds: float) -> None:
    until = time.monotonic() + seconds
    slow = [slow_client(host, port, until, pause=2.0) for _ in range(connections)]
    await asyncio.sleep(0)  # let the slow clients connect first
    *closed, probes = await asyncio.gather(*slow, probe(host, port, until))
    statuses = Counter(s for s, _ in probes)
    times = sorted(t for _, t in probes)
    p50 = times[len(times) // 2]
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"slowloris: {connections} slow-header connections for {seconds:.0f} s; "
          f"/healthz x{len(probes)}: {dict(statuses)}, p50 {p50 * 1000:.0f} ms, "
          f"p99 {p99 * 1000:.0f} ms; slow connections closed by the server "
          f"{sum(closed) - connections} times")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = ("methods", "slowloris", "both")
    parser.add_argument("which", nargs="?", choices=which, default="both")
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--metrics-url", help="where to scrape (default: URL/metrics)")
    parser.add_argument("--count", type=int, default=20_000, help="made-up methods")
    parser.add_argument("--connections", type=int, default=120, help="slow-header clients")
    parser.add_argument("--seconds", type=float, default=40, help="how long they stay")
    args = parser.parse_args()
    proc = None
    if args.url is None:
        port = free_port()
        proc = start_server(port, {"ATTENTION_LAB_LOG_LEVEL": "warning"})
        args.url = f"http://127.0.0.1:{port}"
    try:
        if args.which in ("methods", "both"):
            methods(args.url, args.metrics_url or f"{args.url}/metrics", args.count)
        if args.which in ("slowloris", "both"):
            parts = urlsplit(args.url)
            asyncio.run(slowloris_run(parts.hostname or "127.0.0.1", parts.port or 80,
                                      args.connections, args.seconds))  # fmt: skip
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
