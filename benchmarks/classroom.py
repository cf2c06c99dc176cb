"""A class at once: N simulated students following a built-in lesson on a real server.

Starts the app (uvicorn, 1 or 2 workers, on a free loopback port), then N students
(default 200), each a thread, do what the lesson player and the model page ask of the
server, with think times between steps:

  lesson    open the lesson page (``GET /lessons/{id}``)
  answers   the lesson's computed answers (``POST /api/v1/lessons/answers``), once
  step      every step's figures, as the player asks them (``POST /api/v1/figures``
            for a main-page step, ``GET /api/v1/labs/{lab}/figures`` for a lab step)
  model     the model page with the lesson's sentence (``GET /models/{id}?text=``), then
            its heads (``GET /models/{id}/heads.json``)
  edit      a share of the students (``--edit``) edit a number of a step and ask the
            figures again (distinct work: not shared with anyone)

A 503 is retried after its ``Retry-After``, as ``static/js/api.js`` does ("waiting for the
server…"), for up to ``--patience`` seconds; a student is *shown an error* only when a
request still fails after that (or answers another status); ``--no-retry`` shows the
first 503, as the pages did before they waited. It prints, per step, the requests,
p50/p95/p99 of the time the student waited for the step (retries included), how many
503s were seen (and retried), the students who saw an error, and the peak RSS of each worker.

    python benchmarks/classroom.py                      # 200 students, 1 then 2 workers
    python benchmarks/classroom.py --students 30 --workers 1 --only model --arrive 0
    python benchmarks/classroom.py --no-retry     # pages that show a 503 (as before)
    python benchmarks/classroom.py --app-dir /tmp/main  # another checkout (before/after)

Loopback only; every student's requests are bounded by count and ``--patience``.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.load_kit import HOST, ROOT, get, percentile, request

STATE = re.compile(r'<script type="application/json" id="lesson-state">(.*?)</script>', re.S)


class Workers:
    """``uvicorn --workers N`` in a child process; the peak RSS of each worker."""

    def __init__(self, app_dir: Path, workers: int, env: dict[str, str]) -> None:
        with socket.socket() as s:
            s.bind((HOST, 0))
            self.port = s.getsockname()[1]
        cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--app-dir", str(app_dir),
               "--host", HOST, "--port", str(self.port), "--log-level", "warning",
               "--no-access-log", "--workers", str(workers)]  # fmt: skip
        full = {**os.environ, "PYTHONPATH": str(app_dir), "OPENBLAS_NUM_THREADS": "1", **env}
        self.log = open("/tmp/attention-lab-classroom.log", "ab")  # noqa: SIM115 - stop()
        self.proc = subprocess.Popen(cmd, env=full, cwd=app_dir, stdout=self.log,
                                     stderr=subprocess.STDOUT)  # fmt: skip
        self.peaks: dict[int, int] = defaultdict(int)
        self._stop = threading.Event()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if get(self.port, "/healthz", timeout=1)[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError("the server did not start within 60 s")
        threading.Thread(target=self._watch, daemon=True).start()

    def pids(self) -> list[int]:
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        except OSError:
            return []
        found = [int(p) for p in children.split()]
        return found or [self.proc.pid]

    def _watch(self) -> None:
        while not self._stop.is_set():
            for pid in self.pids():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmRSS:"):
                        self.peaks[pid] = max(self.peaks[pid], int(line.split()[1]) * 1024)
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Tally:
    """Per step: seconds each student waited, 503s seen, students shown an error."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.requests: dict[str, int] = defaultdict(int)
        self.refusals: dict[str, int] = defaultdict(int)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.completed = 0

    def add(self, step: str, seconds: float, refusals: int, error: str | None) -> None:
        with self.lock:
            self.seconds[step].append(seconds)
            self.requests[step] += 1
            self.refusals[step] += refusals
            if error:
                self.errors[step].append(error)


def ask(
    port: int, tally: Tally, step: str, method: str, path: str, body: Any, patience: float
) -> bytes | None:
    """One request as the page makes it: a 503 retried after Retry-After until
    ``patience`` runs out. The body, or None when the student was shown an error."""
    raw = None if body is None else json.dumps(body).encode()
    start = time.monotonic()
    refusals = 0
    while True:
        status, data, headers = request(port, method, path, raw, timeout=120, decode=True)
        if status == 503 and time.monotonic() - start < patience:  # --no-retry: patience 0
            refusals += 1
            time.sleep(min(float(headers.get("retry-after", "1")), 10))
            continue
        error = None if 200 <= status < 300 else f"{status} {path[:60]}"
        tally.add(step, time.monotonic() - start, refusals, error)
        return None if error else data


def lesson_state(page: bytes) -> dict[str, Any]:
    found = STATE.search(page.decode("utf-8"))
    if found is None:
        raise RuntimeError("the lesson page has no #lesson-state")
    state: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return state


def step_request(step: dict[str, Any]) -> tuple[str, str, Any] | None:
    """What the player asks for one step (None: a step of static figures only)."""
    if step["kind"] == "lab":
        query = {**step["query"], "figures": step["section"], "theme": "light"}
        return "GET", f"/api/v1/labs/{step['lab']}/figures?{urlencode(query)}", None
    live = [n for n in step["figures"] if n not in step["static"]]
    if not live:
        return None
    view = {**step["view"], "theme": "light", "figures": live}
    return "POST", "/api/v1/figures?draw=tables", {**step["body"], "view": view}


def edited(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The step's body with one number of X changed, as a student's edit does."""
    out = json.loads(json.dumps(body))
    x = out.get("x")
    if isinstance(x, list) and x and isinstance(x[0], list):
        row = rng.randrange(len(x))
        x[row][rng.randrange(len(x[row]))] = round(rng.uniform(-2, 2), 2)
    return out


def student(n: int, port: int, args: argparse.Namespace, tally: Tally) -> None:
    rng = random.Random(n)

    def think() -> None:
        time.sleep(rng.uniform(0.5, 1.5) * args.think)

    time.sleep(rng.uniform(0, args.arrive))
    patience = args.patience if args.retry else 0.0
    if args.only == "model":
        model_page(port, args, tally, "I love LLMs", patience)
        return
    page = ask(port, tally, "lesson", "GET", f"/lessons/{args.lesson}", None, patience)
    if page is None:
        return
    state = lesson_state(page)
    ask(port, tally, "answers", "POST", "/api/v1/lessons/answers", state["lesson"], patience)
    sentence = None
    for step in state["steps"]:
        think()
        asked = step_request(step)
        if asked is None:
            continue
        method, path, body = asked
        ask(port, tally, "step", method, path, body, patience)
        if body is not None:
            sentence = sentence or " ".join(body.get("tokens") or [])
            if rng.random() < args.edit:
                ask(port, tally, "edit", method, path, edited(body, rng), patience)
    think()
    model_page(port, args, tally, sentence or "I love LLMs", patience)


def model_page(
    port: int, args: argparse.Namespace, tally: Tally, text: str, patience: float
) -> None:
    """The model page on ``text`` and its heads, as the page's script asks them."""
    query = urlencode({"text": text})
    if ask(port, tally, "model", "GET", f"/models/{args.model}?{query}", None, patience) is None:
        return
    heads = urlencode({"text": text, "theme": "light", "hide_special": "0", "layer": 0,
                       "head": 0})  # fmt: skip
    path = f"/models/{args.model}/heads.json?{heads}"
    if ask(port, tally, "heads", "GET", path, None, patience) is not None:
        with tally.lock:
            tally.completed += 1


def run(args: argparse.Namespace, workers: int) -> None:
    env = {"ATTENTION_LAB_MAX_HEAVY": str(args.max_heavy)}
    server = Workers(Path(args.app_dir), workers, env)
    tally = Tally()
    start = time.monotonic()
    try:
        threads = [threading.Thread(target=student, args=(i, server.port, args, tally))
                   for i in range(args.students)]  # fmt: skip
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        wall = time.monotonic() - start
        server.stop()
    shown = sum(len(e) for e in tally.errors.values())
    print(f"{workers} worker{'s' * (workers > 1)}, {args.students} students, "
          f"MAX_HEAVY={args.max_heavy}: {tally.completed} completed in {wall:.1f} s, "
          f"{shown} errors shown")  # fmt: skip
    print(f"  {'step':<8} {'requests':>8} {'p50 s':>7} {'p95 s':>7} {'p99 s':>7} "
          f"{'503s':>6} {'errors':>6}")  # fmt: skip
    for step in ("lesson", "answers", "step", "edit", "model", "heads"):
        seconds = tally.seconds.get(step)
        if not seconds:
            continue
        p = [percentile(seconds, q) for q in (50, 95, 99)]
        print(f"  {step:<8} {tally.requests[step]:>8} {p[0]:>7.2f} {p[1]:>7.2f} {p[2]:>7.2f} "
              f"{tally.refusals[step]:>6} {len(tally.errors[step]):>6}")  # fmt: skip
    for step, errors in tally.errors.items():
        if errors:
            print(f"  first errors of {step}: {errors[:3]}")
    peaks = ", ".join(f"{b / 2**20:.0f}" for b in sorted(server.peaks.values(), reverse=True))
    print(f"  peak RSS per process (MiB): {peaks}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--lesson", default="why-scale")
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--think", type=float, default=2.0, help="mean think time, s")
    parser.add_argument("--arrive", type=float, default=5.0, help="arrivals spread over, s")
    parser.add_argument("--edit", type=float, default=0.2, help="share of steps edited")
    parser.add_argument("--patience", type=float, default=60.0, help="retrying 503s, s")
    parser.add_argument("--max-heavy", type=int, default=1)
    parser.add_argument(
        "--only",
        choices=("lesson", "model"),
        default="lesson",
        help="model: each student only opens the model page (and its heads)",
    )
    parser.add_argument(
        "--retry",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="retry 503s after Retry-After as the pages now do (--no-retry: "
        "show it, as the pages did before)",
    )
    parser.add_argument("--app-dir", default=str(ROOT))
    args = parser.parse_args()
    for workers in args.workers:
        run(args, workers)


if __name__ == "__main__":
    main()
