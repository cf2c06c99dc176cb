"""Benchmark of the why-scale experiments (Labs I). Prints figures; it is not a timed test.

    python benchmarks/labs.py [--repeats 7] [--no-server]

1. In process: the median time of ``run_experiment`` + ``encode`` for the full
   200,000-draw score-variance run at four widths (target ≤ 2 s), the page's default and
   slider-size runs, and the largest saturation and scaling-table runs the budget admits.
2. Over HTTP against uvicorn (one worker) on a free port: the same bodies end to end
   (median), and for the 200,000-draw run with ``Accept: application/x-ndjson`` the time to
   the first progress line and to the result.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as app.attention does for the server

import argparse
import http.client
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.labs.experiments import (  # noqa: E402
    Params,
    SaturationParams,
    ScalingTableParams,
    ScoreVarianceParams,
    run_experiment,
)
from app.wire import encode  # noqa: E402
from benchmarks.closed_loop import free_port, start_server  # noqa: E402

# (label, route, body, params): the bodies the why-scale page sends.
CASES: list[tuple[str, str, dict[str, Any], Params]] = [
    ("C1 full: 4 widths × 200,000 draws", "score-variance",
     {"d_ks": [32, 64, 128, 256], "draws": 200_000},
     ScoreVarianceParams((32, 64, 128, 256), 200_000)),
    ("C1 page default: d_k 64, 20,000 draws", "score-variance", {"d_ks": [64]},
     ScoreVarianceParams((64,), 20_000)),
    ("C1 slider drag: d_k 64, 2,000 draws", "score-variance", {"d_ks": [64], "draws": 2000},
     ScoreVarianceParams((64,), 2000)),
    ("C2 default: d_k 128, 64 keys, 500 trials", "saturation", {}, SaturationParams()),
    ("C2 largest on the page: 1024, 512 keys, 10,000", "saturation",
     {"d_k": 1024, "keys": 512, "trials": 10_000}, SaturationParams(1024, 512, 10_000)),
    ("C3 default: 5 widths, 8 keys, 200 draws", "scaling-table", {}, ScalingTableParams()),
    ("C3 large: 5 widths, 8 keys, 10,000 draws", "scaling-table", {"draws": 10_000},
     ScalingTableParams(draws=10_000)),
]  # fmt: skip


def median_ms(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def post(port: int, route: str, body: dict[str, Any], ndjson: bool = False) -> tuple[float, float]:
    """(ms to the first body bytes, ms to the end) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"content-type": "application/json"}
    if ndjson:
        headers["accept"] = "application/x-ndjson"
    start = time.perf_counter()
    conn.request("POST", f"/api/v1/experiments/{route}", orjson.dumps(body), headers)
    r = conn.getresponse()
    if r.status != 200:
        raise SystemExit(f"{route}: {r.status} {r.read()[:200]!r}")
    first = r.readline() if ndjson else r.read(1)
    t_first = time.perf_counter() - start
    rest = r.read()
    t_end = time.perf_counter() - start
    conn.close()
    if ndjson:
        last = (first + rest).strip().split(b"\n")[-1]
        assert last.startswith(b'{"result":'), last[:40]
    return t_first * 1000, t_end * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-server", action="store_true", help="skip the HTTP part")
    args = parser.parse_args()

    print(f"In process (median of {args.repeats}: run + encode):")
    for label, _, _, params in CASES:
        ms = median_ms(lambda p=params: encode(run_experiment(p)), args.repeats)
        print(f"  {label:<48} {ms:9.1f} ms")
    if args.no_server:
        return
    port = free_port()
    server = start_server(port)
    try:
        for _, route, body, _ in CASES:  # warm up
            post(port, route, body)
        print(f"Over HTTP, uvicorn one worker (median of {args.repeats}):")
        for label, route, body, _ in CASES:
            ms = median_ms(lambda r=route, b=body: post(port, r, b), args.repeats)
            print(f"  {label:<48} {ms:9.1f} ms")
        label, route, body, _ = CASES[0]
        runs = [post(port, route, body, ndjson=True) for _ in range(args.repeats)]
        first = statistics.median(r[0] for r in runs)
        end = statistics.median(r[1] for r in runs)
        print(f"  {label} as NDJSON: first progress line {first:.1f} ms, result {end:.1f} ms")
    finally:
        server.terminate()
        server.wait(timeout=10)
    target = median_ms(lambda: encode(run_experiment(CASES[0][3])), args.repeats)
    verdict = "meets" if target <= 2000 else "MISSES"
    print(f"Target: the full 200,000-draw run for four widths ≤ 2 s: {target:.0f} ms ({verdict})")


if __name__ == "__main__":
    main()
