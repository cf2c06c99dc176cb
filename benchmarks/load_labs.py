"""The lab routes under load (issue 16's table), each on a fresh worker with
``ATTENTION_LAB_MAX_HEAVY=1`` while ``/healthz`` is probed as a liveness probe would
(3 s timeout):

  lab-embed     /embed/labs/one-query/two-maps?s=<512-token state>: one, then 3 at once
  lab-ndjson    figures.ndjson?figures=two-maps&s=<same> read by slow readers (1 byte/s)
  lab-order     /labs/order/figures.json?T=128&d=512 from 48 clients
  lab-sat       8 × /embed/labs/why-scale/saturation?dk=1024&keys=512&trials=10000&sweep=1
                at once, then the same state through figures.json (its page keys)
  exp-streams   50 POST /api/v1/experiments/saturation with Accept: application/x-ndjson

Each prints the status counts (200 / 4xx / 503 / other; 0 is a dropped or timed-out
connection), /healthz p50/p99 (the issue wants p99 < 500 ms), the worker's peak RSS
against the pod's limit and whether it survived. Every scenario is bounded by
``--lab-seconds`` (plus a request's timeout). The lab JSON's URLs are options
(``--lab-figures``, ``--lab-embed``) since they may move; redirects are followed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from benchmarks.load_kit import (
    HOST,
    Prober,
    Server,
    link,
    percentile,
    relative,
    request,
    server,
    timed,
)

LIVENESS_S = 3.0  # a /healthz answer slower than this fails the probe (status 0)
TARGET_P99_MS = 500


def state_512(seed: int = 5) -> dict[str, Any]:
    """A 512-token page state (projection mode, d_model 2) small enough for a URL."""
    rng = random.Random(seed)
    x = [[rng.randrange(-4, 5), rng.randrange(-4, 5)] for _ in range(512)]
    return {"x": x, "w_q": [[1, 0], [0, 1]], "w_k": [[0, 1], [1, 0]], "w_v": [[1, 0], [0, 1]]}


def figures_url(args: argparse.Namespace, lab: str, fmt: str, query: dict[str, str]) -> str:
    return args.lab_figures.format(lab=lab, fmt=fmt) + "?" + urlencode(query)


def embed_url(args: argparse.Namespace, lab: str, figure: str, query: dict[str, str]) -> str:
    return args.lab_embed.format(lab=lab, figure=figure) + "?" + urlencode(query)


def classes(statuses: Counter[int]) -> str:
    """Status counts as 200 / 4xx / 503 / other (0: dropped or timed out)."""
    four = sum(n for s, n in statuses.items() if 400 <= s < 500)
    other = {s: n for s, n in statuses.items() if s not in (200, 503) and not 400 <= s < 500}
    return f"200: {statuses[200]}, 4xx: {four}, 503: {statuses[503]}, other: {other or 0}"


def report(srv: Server, probe: Prober, statuses: Counter[int], seconds: list[float]) -> None:
    p99 = percentile(probe.ms, 99)
    verdict = "met" if p99 < TARGET_P99_MS else "MISSED"
    print(f"  statuses {classes(statuses)}; latency p50 {median(seconds):.2f} s, "
          f"max {max(seconds, default=0):.2f} s")  # fmt: skip
    print(probe.line("/healthz") + f"  (p99 < {TARGET_P99_MS} ms: {verdict})")
    print(srv.memory_line() + f"; survived: {'yes' if srv.alive() else 'NO'}", flush=True)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def together(n: int, fn: Callable[[int], tuple[int, float]]) -> tuple[Counter[int], list[float]]:
    """Run ``fn(i)`` for i < n in threads started at once: (status counts, seconds)."""
    out: list[tuple[int, float]] = []
    threads = [threading.Thread(target=lambda i=i: out.append(fn(i))) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Counter(s for s, _ in out), [s for _, s in out]


def probed(
    args: argparse.Namespace, run: Callable[[Server], tuple[Counter[int], list[float]]]
) -> None:
    """A fresh worker, /healthz probed while ``run`` loads it, then the report."""
    with server(args, ATTENTION_LAB_MAX_HEAVY="1") as srv:
        probe = Prober(srv.port, "/healthz", pause=0.05, timeout=LIVENESS_S)
        time.sleep(0.5)
        statuses, seconds = run(srv)
        time.sleep(0.5)
        probe.stop()
        report(srv, probe, statuses, seconds)


def get_timed(
    port: int, path: str, timeout: float, sizes: list[int] | None = None
) -> tuple[int, float]:
    """(status, seconds) of one GET; its body's size (unzipped) goes to ``sizes``."""
    (status, data, _), seconds = timed(request, port, "GET", path, None, timeout, True)
    if sizes is not None:
        sizes.append(len(data))
    return status, seconds


def scenario_lab_embed(args: argparse.Namespace) -> None:
    s = link(state_512())
    path = embed_url(args, "one-query", "two-maps", {"s": s})
    print(f"lab-embed: GET {path[:60]}… (s = 512 tokens, {len(s)} characters)")
    for n in (1, args.lab_embeds):
        print(f"  {n} at once:")
        sizes: list[int] = []
        probed(args, lambda srv, n=n, sizes=sizes: together(
            n, lambda _: get_timed(srv.port, path, args.lab_timeout, sizes)))  # fmt: skip
        print(f"  response sizes (unzipped): {[f'{b / 1e6:.1f} MB' for b in sizes]}")


def slow_read(port: int, path: str, seconds: float, rate: float) -> tuple[int, float]:
    """GET ``path`` and read the body at ``rate`` bytes/s for ``seconds`` (the headers at
    full speed, following redirects): (status, seconds until the server ended or we left)."""
    start = time.perf_counter()
    for _ in range(5):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(seconds)
        try:
            sock.connect((HOST, port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(1)
                if not chunk:
                    return 0, time.perf_counter() - start
                head += chunk
            status = int(head.split(b" ", 2)[1])
            if status in (301, 302, 303, 307, 308):
                line = next(h for h in head.split(b"\r\n") if h.lower().startswith(b"location:"))
                path = relative(line.split(b":", 1)[1].strip().decode())
                continue
            while time.perf_counter() - start < seconds and sock.recv(1):
                time.sleep(1 / rate)
            return status, time.perf_counter() - start
        except OSError:
            return 0, time.perf_counter() - start
        finally:
            sock.close()
    return 0, time.perf_counter() - start


def scenario_lab_ndjson(args: argparse.Namespace) -> None:
    s = link(state_512())
    path = figures_url(args, "one-query", "ndjson", {"figures": "two-maps", "s": s})
    print(f"lab-ndjson: GET {path[:60]}… read at {args.read_rate:g} byte/s for "
          f"{args.lab_seconds:g} s")  # fmt: skip
    for n in args.readers:
        print(f"  {n} slow reader(s):")
        probed(args, lambda srv, n=n: together(
            n, lambda _: slow_read(srv.port, path, args.lab_seconds, args.read_rate)))  # fmt: skip


def scenario_lab_order(args: argparse.Namespace) -> None:
    path = figures_url(args, "order", "json", {"T": "128", "d": "512"})
    print(f"lab-order: {args.lab_clients} clients looping GET {path} for {args.lab_seconds:g} s")

    def run(srv: Server) -> tuple[Counter[int], list[float]]:
        clients = [Prober(srv.port, path, pause=0, timeout=args.lab_timeout)
                   for _ in range(args.lab_clients)]  # fmt: skip
        time.sleep(args.lab_seconds)
        for c in clients:
            c._stop.set()
        for c in clients:
            c.stop()
        done: Counter[int] = Counter()
        for c in clients:
            done.update(c.statuses)
        return done, [ms / 1000 for c in clients for ms in c.ms]

    probed(args, run)


def scenario_lab_saturation(args: argparse.Namespace) -> None:
    state = {"dk": "1024", "keys": "512", "trials": "10000", "sweep": "1"}
    embed = embed_url(args, "why-scale", "saturation", state)
    page = {"saturation.dk": "1024", "saturation.keys": "512", "trials": "10000", "sweep": "1"}
    as_json = figures_url(args, "why-scale", "json", {"figures": "saturation", **page})
    for path in (embed, as_json):
        print(f"lab-sat: {args.lab_sat} × GET {path} at once")
        probed(args, lambda srv, p=path: together(
            args.lab_sat, lambda _: get_timed(srv.port, p, args.lab_timeout)))  # fmt: skip


def ndjson_post(port: int, path: str, body: bytes, until: float) -> tuple[int, float, str]:
    """POST ``body`` asking for NDJSON and read lines until the end or ``until``: (status,
    seconds, how it ended: result / busy line / detail line / unfinished / retry-after=N)."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=max(1.0, until - start))
    try:
        conn.request("POST", path, body, {"Content-Type": "application/json",
                                          "Accept": "application/x-ndjson"})  # fmt: skip
        resp = conn.getresponse()
        if resp.status != 200:
            resp.read()
            return (
                resp.status,
                time.perf_counter() - start,
                f"retry-after={resp.getheader('retry-after')}",
            )
        end = "unfinished"
        while time.perf_counter() < until and (line := resp.readline()):
            if line.startswith(b'{"result"'):
                end = "result"
            elif line.startswith(b'{"detail"'):
                end = "busy line" if b'"busy"' in line else "detail line"
        return 200, time.perf_counter() - start, end
    except (OSError, http.client.HTTPException):
        return 0, time.perf_counter() - start, "dropped"
    finally:
        conn.close()


def scenario_experiment_streams(args: argparse.Namespace) -> None:
    body = json.dumps({"d_k": 1024, "keys": 512, "trials": 10000}).encode()
    path = "/api/v1/experiments/saturation"
    print(f"exp-streams: {args.streams} × POST {path} (NDJSON) {body.decode()} at once, "
          f"read for at most {args.lab_seconds:g} s")  # fmt: skip
    ends: list[str] = []

    def one(_: int, port: int, until: float) -> tuple[int, float]:
        status, seconds, end = ndjson_post(port, path, body, until)
        ends.append(end)
        return status, seconds

    def run(srv: Server) -> tuple[Counter[int], list[float]]:
        until = time.perf_counter() + args.lab_seconds
        return together(args.streams, lambda i: one(i, srv.port, until))

    probed(args, run)
    print(f"  how the streams ended: {dict(Counter(ends))}")


LAB_SCENARIOS: dict[str, Callable[[argparse.Namespace], None]] = {
    "lab-embed": scenario_lab_embed,
    "lab-ndjson": scenario_lab_ndjson,
    "lab-order": scenario_lab_order,
    "lab-sat": scenario_lab_saturation,
    "exp-streams": scenario_experiment_streams,
}


def add_lab_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--lab-figures",
        default="/labs/{lab}/figures.{fmt}",
        help="lab figures JSON/NDJSON URL ({lab}, {fmt}: json or ndjson)",
    )
    add("--lab-embed", default="/embed/labs/{lab}/{figure}", help="lab embed URL")
    add("--lab-seconds", type=float, default=25, help="bound of a lab scenario's load")
    add("--lab-timeout", type=float, default=40, help="a lab request's timeout (s)")
    add("--lab-embeds", type=int, default=3, help="lab embeds at once (lab-embed)")
    add(
        "--readers",
        type=lambda t: [int(n) for n in t.split(",")],
        default=[1, 12],
        help="slow readers, one worker per count (lab-ndjson), e.g. 1,6,12",
    )
    add("--read-rate", type=float, default=1.0, help="a slow reader's bytes per second")
    add("--lab-clients", type=int, default=48, help="clients (lab-order)")
    add("--lab-sat", type=int, default=8, help="requests at once (lab-sat)")
    add("--streams", type=int, default=50, help="NDJSON streams at once (exp-streams)")  # fmt: skip
