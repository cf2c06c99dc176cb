"""Where a request's server CPU goes, without sockets or a server: the ASGI apps of
``benchmarks/bench_app.py`` called in process, with the scope, body and headers the HTTP
benchmark sends, timed in process CPU time (so other load on the machine barely moves it).

    python benchmarks/asgi_cost.py [--requests 2000] [--batches 7] [--profile 25]

Prints µs of CPU per request (median of batches) for the real ``POST /api/v1/attention``
(running example, a different X each request), the same app's constant route and the bare
app's constant route. Subtracting from ``benchmarks/api.py``'s "CPU µs/req" (which adds
uvicorn, the HTTP parser and the socket) splits the server's cost into "the HTTP stack"
and "the app". ``--profile N`` adds a cProfile of the real route (top N by own time).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("ATTENTION_LAB_LOG_LEVEL", "warning")

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_app import app, bare
from benchmarks.cases import varied

ASGIApp = Any


def scope(path: str, length: int) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
               (b"content-length", str(length).encode())]  # fmt: skip
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}  # fmt: skip


async def call(target: ASGIApp, path: str, body: bytes) -> int:
    """One request through ``target``; the response's status."""
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)  # a client that stays: as uvicorn would wait
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await target(scope(path, len(body)), receive, send)
    return status


async def batch(target: ASGIApp, path: str, bodies: list[bytes], n: int) -> float:
    """CPU µs per request over ``n`` requests (process time: every thread)."""
    start = time.process_time()
    for i in range(n):
        status = await call(target, path, bodies[i % len(bodies)])
        if status != 200:
            raise SystemExit(f"{path}: status {status}")
    return (time.process_time() - start) / n * 1e6


async def lifespan_start(target: ASGIApp) -> asyncio.Task[None]:
    """Run the app's startup (as uvicorn does) so state it sets up exists; the task
    stays, waiting for the shutdown message, until cancelled."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await queue.put({"type": "lifespan.startup"})
    done = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"].startswith("lifespan.startup"):
            done.set()

    task = asyncio.get_running_loop().create_task(target({"type": "lifespan"}, queue.get, send))
    await asyncio.wait_for(done.wait(), 30)
    return task


async def main(args: argparse.Namespace) -> None:
    bodies = [orjson.dumps(b) for b in varied("running-example")]
    lifespans = [await lifespan_start(target) for target in (app, bare)]
    try:
        await measure(args, bodies)
    finally:
        for task in lifespans:
            task.cancel()
        await asyncio.gather(*lifespans, return_exceptions=True)


async def measure(args: argparse.Namespace, bodies: list[bytes]) -> None:
    kinds = {"real": (app, "/api/v1/attention"),
             "constant": (app, "/bench/constant/running-example"),
             "bare": (bare, "/bench/constant/running-example")}  # fmt: skip
    for target, path in kinds.values():
        await batch(target, path, bodies, 200)  # warm up
    per: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(args.batches):
        for kind, (target, path) in kinds.items():
            per[kind].append(await batch(target, path, bodies, args.requests))
    print(f"In process (ASGI, no server), running example, a different X per request; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    med = {k: statistics.median(v) for k, v in per.items()}
    for kind, values in per.items():
        print(f"  {kind:<9} {med[kind]:7.0f} µs CPU/request  (batches: "
              f"{' '.join(f'{v:.0f}' for v in values)})")  # fmt: skip
    print(f"  the app's own cost: real − bare {med['real'] - med['bare']:.0f} µs, of which "
          f"its stack around a route (constant − bare: middleware, matching its routes, "
          f"FastAPI's handler) {med['constant'] - med['bare']:.0f} µs and the endpoint "
          f"(real − constant) {med['real'] - med['constant']:.0f} µs")  # fmt: skip
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        await batch(app, "/api/v1/attention", bodies, args.requests)
        profiler.disable()
        print(f"\ncProfile of {args.requests} real requests (top {args.profile} by own time):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="per batch")
    parser.add_argument("--batches", type=int, default=7)
    parser.add_argument("--profile", type=int, default=0, help="cProfile: top N functions")
    asyncio.run(main(parser.parse_args()))
