"""Hostile and heavy load on one worker: bounded work, fair sharing, peak memory.

Starts the app (one uvicorn worker on a free loopback port) afresh for each scenario,
watches its resident memory, and prints what issue 8's targets name:

  hostile   the 6 KB heads-512 body on POST /attention and /figures, and the same state
            as an s= link on /, /embed/6, /oembed and /api/v1/export: status, seconds
  softmax   one 4096 × 4096 POST /softmax (33.5 MB) while /healthz is probed: the
            longest /healthz stall
  fairness  8 clients looping on 128 × 128 POST /figures for 20 s while two probes loop
            on /healthz and a small POST /attention: probe p50/p99, heavy statuses
  maxbody   12 concurrent largest legal POST /attention bodies: statuses
  urls      49 hostile URLs on /, /embed/N, /oembed, /api/v1/export: status, seconds
  labs      the lab routes (issue 16): lab-embed, lab-ndjson, lab-order, lab-sat,
            exp-streams; see benchmarks/load_labs.py

Every scenario prints the worker's peak RSS against the pod's limit (--limit-mb, the
manifest's 768 MiB). A watchdog kills a worker whose RSS passes --kill-mb (default 1536),
so a runaway request costs this machine no more than that; the scenario then reports
"KILLED". Loopback only, every loop bounded by time or count.

    python benchmarks/load.py                      # every scenario, this checkout
    python benchmarks/load.py labs                 # the lab scenarios only
    python benchmarks/load.py fairness --seconds 10
    python benchmarks/load.py --app-dir /tmp/before  # another checkout (before/after)
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.load_kit import (
    HOST,
    ROOT,
    Prober,
    Server,
    get,
    link,
    post,
    request,
    server,
    timed,
)
from benchmarks.load_labs import LAB_SCENARIOS, add_lab_arguments


def matrix(rows: int, cols: int, rng: random.Random, digits: int = 3) -> list[list[float]]:
    return [[round(rng.uniform(-1, 1), digits) for _ in range(cols)] for _ in range(rows)]


def heads_body(heads: int = 512) -> dict[str, Any]:
    """The 6 KB body: 512 tokens of d_model 1, d_k = d_v = 512, many heads."""
    return {"x": [[1]] * 512, "w_q": [[1] * 512], "w_k": [[1] * 512], "w_v": [[1] * 512],
            "heads": heads}  # fmt: skip


def scenario_hostile(args: argparse.Namespace) -> None:
    print("hostile: the 6 KB heads-512 body and its s= link (each on a fresh worker)")
    body = json.dumps(heads_body()).encode()
    s = link(heads_body())
    cases: list[tuple[str, str, bytes | None]] = [
        ("POST /api/v1/attention", "/api/v1/attention", body),
        ("POST /api/v1/figures", "/api/v1/figures", body),
        ("GET /?s=", f"/?s={s}", None),
        ("GET /embed/6?s=", f"/embed/6?s={s}", None),
        ("GET /oembed?url=", "/oembed?url=PAGE", None),
        ("GET /api/v1/export?s=", f"/api/v1/export?s={s}", None),
    ]
    print(f"  body {len(body)} bytes, link {len(s)} characters")
    for name, path, data in cases:
        with server(args) as srv:
            method = "POST" if data else "GET"
            page = f"http://{HOST}:{srv.port}/?s={s}#fig-6"
            path = path.replace("PAGE", quote(page, safe=""))
            (status, _, _), seconds = timed(request, srv.port, method, path, data, 120)
            shown = "killed/dropped" if status == 0 else str(status)
            if status == 200 and path.startswith("/?"):
                page = get(srv.port, path)[1]
                shown = "page+message" if b'role="alert" >' in page else "page, no message"
            print(f"  {name:<24} {shown:>14} {seconds:6.2f} s  peak RSS "
                  f"{srv.peak / 2**20:.0f} MB{' KILLED' if srv.killed else ''}")  # fmt: skip


def scenario_softmax(args: argparse.Namespace) -> None:
    print("softmax: one 4096 × 4096 POST /api/v1/softmax while /healthz is probed")
    rng = random.Random(1)
    # one digit per score, as in issue 8: 16.8 million numbers in 33.5 MB
    rows = [[rng.randrange(10) for _ in range(4096)] for _ in range(4096)]
    body = json.dumps({"scores": rows}, separators=(",", ":")).encode()
    del rows
    with server(args) as srv:
        probe = Prober(srv.port, "/healthz", pause=0.01)
        time.sleep(0.5)
        (status, _), seconds = timed(post, srv.port, "/api/v1/softmax", body, 120)
        time.sleep(0.5)
        probe.stop()
        print(f"  body {len(body) / 1e6:.1f} MB -> {status or 'killed/dropped'} in {seconds:.2f} s")
        print(probe.line("/healthz"))
        print(srv.memory_line())


def figures_body(tokens: int, width: int, seed: int) -> bytes:
    rng = random.Random(seed)
    body = {"x": matrix(tokens, width, rng), "w_q": matrix(width, width, rng),
            "w_k": matrix(width, width, rng), "w_v": matrix(width, width, rng),
            "tokens": [f"t{i}" for i in range(tokens)]}  # fmt: skip
    return json.dumps(body, separators=(",", ":")).encode()


def scenario_fairness(args: argparse.Namespace) -> None:
    n, size, seconds = args.clients, args.size, args.seconds
    print(f"fairness: {n} clients looping {size} × {size} POST /api/v1/figures for {seconds} s")
    heavy = figures_body(size, size, 2)
    small = json.dumps({"x": [[1, 0], [0, 1]], "w_q": [[1, 0], [0, 1]], "w_k": [[1, 0], [0, 1]],
                        "w_v": [[1, 0], [0, 1]]}).encode()  # fmt: skip
    with server(args) as srv:
        quiet = [Prober(srv.port, "/healthz"), Prober(srv.port, "/api/v1/attention", small)]
        time.sleep(3)
        for p in quiet:
            p.stop()
        print("  quiet (no heavy clients, 3 s):")
        print(quiet[0].line("/healthz"))
        print(quiet[1].line("small /attention"))
        heavy_clients = [Prober(srv.port, "/api/v1/figures", heavy, pause=0) for _ in range(n)]
        time.sleep(1)
        probes = [Prober(srv.port, "/healthz"), Prober(srv.port, "/api/v1/attention", small)]
        time.sleep(seconds)
        for p in probes + heavy_clients:
            p._stop.set()
        for p in probes + heavy_clients:
            p.stop()
        print(f"  under load ({n} heavy clients):")
        print(probes[0].line("/healthz"))
        print(probes[1].line("small /attention"))
        done: Counter[int] = Counter()
        ms: list[float] = []
        for p in heavy_clients:
            done.update(p.statuses)
            ms += p.ms
        print(f"  heavy /figures         n={sum(done.values())} statuses {dict(done)} "
              f"median {statistics.median(ms) if ms else 0:.0f} ms")  # fmt: skip
        print(srv.memory_line())


def scenario_maxbody(args: argparse.Namespace) -> None:
    print(
        f"maxbody: {args.count} concurrent largest legal POST /api/v1/attention bodies "
        "(x, source.x, W^Q, W^K, W^V, W^O 512 × 512 and a 512 × 512 mask)"
    )
    rng = random.Random(3)

    def big() -> list[list[float]]:  # 17 significant digits, as a client's floats are
        return [[rng.uniform(-1e5, 1e5) for _ in range(512)] for _ in range(512)]

    body = {"x": big(), "source": {"x": big()}, "w_q": big(), "w_k": big(), "w_v": big(),
            "w_o": big(), "allowed": [[True] * 512] * 512}  # fmt: skip
    data = json.dumps(body, separators=(",", ":")).encode()
    del body
    with server(args) as srv:
        results: list[tuple[int, float]] = []

        def one() -> None:
            (status, _), seconds = timed(post, srv.port, "/api/v1/attention", data, 180)
            results.append((status, seconds))

        threads = [threading.Thread(target=one) for _ in range(args.count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(200)
        statuses = Counter(s for s, _ in results)
        slowest = max((s for _, s in results), default=0)
        print(f"  body {len(data) / 1e6:.1f} MB × {args.count} -> statuses {dict(statuses)}, "
              f"slowest {slowest:.1f} s")  # fmt: skip
        print(srv.memory_line())


def hostile_urls(port: int) -> list[str]:
    """49 URLs: each must be a 4xx (or the page with a message) within 5 s."""

    def nest(depth: int) -> str:
        return link({"x": json.loads("[" * depth + "]" * depth)})  # type: ignore[no-any-return]

    # 5000 levels: 13 kB of base64, under the 16 kB request line uvicorn (h11) reads
    nested = base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode().rstrip("=")
    queries = [
        "focus=%C2%B2", "head=%C2%B9", "focus=" + "9" * 5000, "s=" + nested,
        "stretch=1e400", "s=%%%not-base64", "s=" + link({"x": "abc"}),
        "s=" + link({"heads": "2", "x": [[1]]}), "s=" + link({"x": [[1e400]]}),
        "focus=99999999999999999999", "s=" + link(heads_body()), "s=" + nest(30),
    ]  # fmt: skip
    urls = ["/embed/%C2%B2"]
    for q in queries:
        page = f"http://{HOST}:{port}/?{q}#fig-6"
        urls += [f"/?{q}", f"/embed/6?{q}", "/oembed?url=" + quote(page, safe=""),
                 f"/api/v1/export?{q}"]  # fmt: skip
    return urls


def scenario_urls(args: argparse.Namespace) -> None:
    srv = Server(Path(args.app_dir).resolve(), args.kill_mb, {}, limit_mb=args.limit_mb)
    try:
        urls = hostile_urls(srv.port)
        print(f"urls: {len(urls)} hostile URLs")
        bad = 0
        for url in urls:
            (status, data, _), seconds = timed(get, srv.port, url, 30)
            ok_page = status == 200 and url.startswith("/?") and b'role="alert" >' in data
            good = (400 <= status < 500 or ok_page) and seconds <= 5
            bad += not good
            if not good or args.verbose:
                print(f"  {status:>3} {seconds:6.2f} s  {'ok ' if good else 'BAD'} {url[:90]}")
            if srv.proc.poll() is not None:
                print("  the worker died; restarting it on the same port")
                srv.stop()
                srv = Server(Path(args.app_dir).resolve(), args.kill_mb, {}, srv.port,
                             args.limit_mb)  # fmt: skip
        print(f"  {len(urls) - bad} of {len(urls)} answered with a 4xx or the page's message "
              f"within 5 s")  # fmt: skip
        print(srv.memory_line())
    finally:
        srv.stop()


SCENARIOS = {
    "hostile": scenario_hostile,
    "softmax": scenario_softmax,
    "fairness": scenario_fairness,
    "maxbody": scenario_maxbody,
    "urls": scenario_urls,
    **LAB_SCENARIOS,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "scenarios", nargs="*", help=f"labs (every lab one) or any of {', '.join(SCENARIOS)}"
    )
    parser.add_argument("--app-dir", default=str(ROOT), help="checkout to serve")
    parser.add_argument("--kill-mb", type=int, default=1536, help="watchdog kills past this")
    parser.add_argument("--limit-mb", type=int, default=768, help="the pod's limit (reported)")
    parser.add_argument("--clients", type=int, default=8, help="heavy clients (fairness)")
    parser.add_argument("--size", type=int, default=128, help="tokens = widths (fairness)")
    parser.add_argument("--seconds", type=float, default=20, help="load duration (fairness)")
    parser.add_argument("--count", type=int, default=12, help="bodies at once (maxbody)")
    parser.add_argument("--verbose", action="store_true", help="print every hostile URL")
    add_lab_arguments(parser)
    args = parser.parse_args()
    chosen = [n for s in args.scenarios for n in (LAB_SCENARIOS if s == "labs" else [s])]
    unknown = [s for s in chosen if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; choose from labs, {', '.join(SCENARIOS)}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    for name in chosen or SCENARIOS:
        SCENARIOS[name](args)
        print(flush=True)


if __name__ == "__main__":
    main()
