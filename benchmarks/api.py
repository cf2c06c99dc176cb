"""Benchmark of POST /api/v1/attention: throughput and latency over HTTP, and the
server-side cost per request. Prints figures; it is not a timed test.

    python benchmarks/api.py [--seconds 3] [--rounds 5] [--connections 4]
                             [--stack h11] [--stack httptools] [--case running-example]
                             [--no-in-process]

1. Over HTTP, per stack (``h11``: uvicorn's default asyncio + h11; ``httptools``:
   uvicorn[standard]'s uvloop + httptools; default: each one installed), starts uvicorn
   (one worker) with ``benchmarks.bench_app:app`` and ``:bare`` on free ports and drives
   them from an asyncio HTTP/1.1 keep-alive client. Per round, every stack and endpoint
   runs ``--seconds`` in an order that alternates between rounds, so drifting machine
   load hits them alike; each round gives a ratio, and the table shows medians.
   "constant" is the same app's route answering fixed bytes of the real response's size
   (same middleware); "bare" is a FastAPI app with that route only. Both read the body.
   Each request carries a different X (``cases.VARIANTS`` random bodies of the case's
   shape, in turn), so nothing can be answered from a cache. A heavy case (above the cost
   model's inline threshold) is driven over ``ATTENTION_LAB_MAX_HEAVY`` connections (1
   by default), since the server admits that many at once and answers 503 past it; any
   503 is retried after its Retry-After, counted in the "503s" column and not as a
   request served.
2. In process: medians of parse + validate, compute (``run``) and encode
   (``stages_to_chunks``) for L = 3, 64, 256, 512 with d = 64.
Targets: running example ≥ 0.55 of the bare endpoint's throughput on the same stack
(issues 10 and 16); L = 512, d = 64 computed and encoded in ≤ 50 ms.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as app.attention does for the server

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.attention import run  # noqa: E402
from app.inputs.body import AttentionRequest  # noqa: E402
from app.inputs.limits import attention_cost, is_heavy, request_shape  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.wire import stages_to_chunks  # noqa: E402
from benchmarks.cases import CASES, random_body, varied  # noqa: E402
from benchmarks.closed_loop import (  # noqa: E402
    available_stacks,
    cpu_seconds,
    free_port,
    load,
    pct,
    start_server,
)

KINDS = ("real", "bare", "constant")
TARGET = 0.55


class Stack:
    """The two servers of one stack and what each endpoint measured, per round."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ports = {"app": free_port(), "bare": free_port()}
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        for target, port in self.ports.items():
            self.procs[target] = start_server(port, target, name)
        self.rps: dict[str, list[float]] = {k: [] for k in KINDS}
        self.lat: dict[str, list[float]] = {k: [] for k in KINDS}
        self.cpu_us: dict[str, list[float]] = {k: [] for k in KINDS}
        self.busy = dict.fromkeys(KINDS, 0)

    def reset(self) -> None:
        for d in (self.rps, self.lat, self.cpu_us):
            for k in KINDS:
                d[k] = []
        self.busy = dict.fromkeys(KINDS, 0)

    def run(self, kind: str, case: str, bodies: list[bytes], seconds: float, conns: int) -> None:
        target = "bare" if kind == "bare" else "app"
        path = "/api/v1/attention" if kind == "real" else f"/bench/constant/{case}"
        pid = self.procs[target].pid
        before = cpu_seconds(pid)
        tally = load(self.ports[target], path, bodies, seconds, conns)
        served = max(1, len(tally.latencies))
        self.cpu_us[kind].append((cpu_seconds(pid) - before) / served * 1e6)
        self.rps[kind].append(len(tally.latencies) / seconds)
        self.lat[kind] += tally.latencies
        self.busy[kind] += tally.busy

    def ratios(self, floor: str) -> list[float]:
        return [r / f for r, f in zip(self.rps["real"], self.rps[floor], strict=True)]

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.terminate()
            proc.wait(10)


def print_case(name: str, stacks: list[Stack], conns: int, size: int) -> None:
    for st in stacks:
        for kind in KINDS:
            print(f"{name:<16}{st.name:<10}{kind:<9}{conns:>4}{size:>9}"
                  f"{statistics.median(st.rps[kind]):>9.1f}"
                  + "".join(f"{pct(st.lat[kind], q) * 1000:>8.2f}" for q in (50, 95, 99))
                  + f"{statistics.median(st.cpu_us[kind]):>11.0f}{st.busy[kind]:>6}")  # fmt: skip
    for st in stacks:
        for floor in ("bare", "constant"):
            ratios = st.ratios(floor)
            med = statistics.median(ratios)
            verdict = ""
            if (name, floor) == ("running-example", "bare"):  # issues 10 and 16
                verdict = f" ({'target met' if med >= TARGET else 'TARGET MISSED'}: ≥ {TARGET})"
            rounds = " ".join(f"{r:.2f}" for r in ratios)
            # CPU per request: what throughput would be with the server alone on a core
            by_cpu = [f / r for r, f in zip(st.cpu_us["real"], st.cpu_us[floor], strict=True)]
            print(f"{name:<16}{st.name:<10}real/{floor:<9} median {med:.2f} "
                  f"(rounds: {rounds}){verdict}; by server CPU per request: median "
                  f"{statistics.median(by_cpu):.2f}")  # fmt: skip
    if len(stacks) == 2:
        a, b = stacks
        gain = [y / x for x, y in zip(a.rps["real"], b.rps["real"], strict=True)]
        print(f"{name:<16}real req/s {b.name}/{a.name}: median {statistics.median(gain):.2f} "
              f"(rounds: {' '.join(f'{g:.2f}' for g in gain)})")  # fmt: skip


def http_figures(args: argparse.Namespace, cases: list[str]) -> None:
    stacks: list[Stack] = []
    try:
        for name in args.stack or available_stacks():
            stacks.append(Stack(name))
        print(f"HTTP: uvicorn, 1 worker per server, {args.connections} keep-alive connections "
              f"(a heavy case: max_heavy), {args.rounds} rounds × {args.seconds:g} s per stack "
              f"and endpoint, order alternating; req/s and CPU: median of rounds")  # fmt: skip
        print(f"{'case':<16}{'stack':<10}{'endpoint':<9}{'conn':>4}{'bytes':>9}{'req/s':>9}"
              f"{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'CPU µs/req':>11}{'503s':>6}")  # fmt: skip
        for name in cases:
            bodies = [orjson.dumps(b) for b in varied(name)]
            # A heavy request takes one of max_heavy slots: more connections only add 503s.
            shape = request_shape(AttentionRequest.model_validate(CASES[name]))
            heavy = is_heavy(attention_cost(shape))
            conns = min(args.connections, Settings().max_heavy) if heavy else args.connections
            for st in stacks:
                st.reset()
                for kind in KINDS:
                    st.run(kind, name, bodies, 0.5, conns)  # warm up
                st.reset()
            for r in range(args.rounds):
                order = [(st, k) for st in stacks for k in KINDS]
                for st, kind in order if r % 2 == 0 else order[::-1]:
                    st.run(kind, name, bodies, args.seconds, conns)
                print(f"  round {r + 1}: load average {os.getloadavg()[0]:.2f}", flush=True)
            size = len(urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{stacks[0].ports['app']}/api/v1/attention", data=bodies[0],
                headers={"content-type": "application/json"})).read())  # fmt: skip
            print_case(name, stacks, conns, size)
    finally:
        for st in stacks:
            st.stop()


def timings_ms(f: object, repeat: int) -> tuple[float, float]:
    """(median, best) wall time of ``f()`` in ms; the best is the uncontended cost."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, min(times) * 1000


def server_side_figures() -> None:
    print("\nServer side, in process, one thread, d = 64: median ms per request (best)")
    print(f"{'L':>5}{'parse+validate':>18}{'compute':>16}{'encode':>16}"
          f"{'compute+encode':>18}{'response MB':>13}")  # fmt: skip
    for length in (3, 64, 256, 512):
        raw = orjson.dumps(random_body(length))
        repeat = 41 if length <= 256 else 25
        request = AttentionRequest.model_validate_json(raw)
        stages = run(request.to_input())
        size = sum(len(c) for c in stages_to_chunks(stages))
        figures = [
            timings_ms(lambda raw=raw: AttentionRequest.model_validate_json(raw), repeat),
            timings_ms(lambda r=request: run(r.to_input()), repeat),
            timings_ms(lambda s=stages: stages_to_chunks(s), repeat),
            timings_ms(lambda r=request: stages_to_chunks(run(r.to_input())), repeat),
        ]
        texts = [f"{med:.2f} ({best:.2f})" for med, best in figures]
        cells = "".join(f"{t:>{w}}" for t, w in zip(texts, (18, 16, 16, 18), strict=True))
        print(f"{length:>5}{cells}{size / 1e6:>13.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per endpoint and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (median)")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument(
        "--stack",
        action="append",
        choices=["h11", "httptools"],
        help="server stack (repeatable; default: every one installed)",
    )
    parser.add_argument(
        "--case",
        action="append",
        choices=list(CASES),
        help="only this case over HTTP (repeatable; default: every case)",
    )
    parser.add_argument(
        "--no-in-process", action="store_true", help="skip the in-process timings (part 2)"
    )
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    http_figures(args, args.case or list(CASES))
    if not args.no_in_process:
        server_side_figures()


if __name__ == "__main__":
    main()
