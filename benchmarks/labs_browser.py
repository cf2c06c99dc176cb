"""Benchmark of the lab pages: prints

* why-scale, C1 slider drag: the repaint latency of each step of the d_k slider while it
  is dragged (an `input` event, answered with the small preview run of 5,000 draws), from
  the event until <main aria-busy="false"> and the next frame: median and p95, measured
  in the page (performance.now);
* why-scale, C1 release: the same for the `change` event that asks for the full run
  (20,000 draws, streamed with progress);
* the full 200,000-draw run for four widths (“reproduce the course module”): the server
  time of GET /labs/why-scale/figures.json and of POST /api/v1/experiments/score-variance
  (median of 5);
* one-query, A1: edit-to-repaint of a score (type + Enter), median and p95;
* the first load of each lab page: bytes transferred and time until every figure is drawn.

    python benchmarks/labs_browser.py [--steps 40]

Targets (issue 11): slider repaint median ≤ 100 ms with the small run; the full run ≤ 2 s.
Starts its own server on a free port.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.browser import ARGS, chromium, start_server  # noqa: E402

# Move a control and resolve when the page is idle again and a frame has painted.
STEP_JS = """
async ([selector, value, event]) => {
  const main = document.querySelector('main');
  const input = document.querySelector(selector);
  const idle = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (main.getAttribute('aria-busy') === 'false') { obs.disconnect(); resolve(); }
    });
    obs.observe(main, {attributes: true, attributeFilter: ['aria-busy']});
  });
  const t0 = performance.now();
  input.value = value;
  const enter = new KeyboardEvent('keydown', {key: 'Enter', bubbles: true});
  input.dispatchEvent(event === 'enter' ? enter : new Event(event, {bubbles: true}));
  await idle;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}
"""


ANSWERED_JS = "name => performance.getEntriesByName(name).map(e => e.duration)"


def idle(page: Page) -> None:
    page.wait_for_selector("main[aria-busy=false]", state="attached", timeout=60_000)


def summary(times: list[float]) -> str:
    return (
        f"median {statistics.median(times):.1f} ms, p95 {float(np.percentile(times, 95)):.1f} ms, "
        f"max {max(times):.1f} ms (n = {len(times)})"
    )


def first_load(page: Page, url: str) -> tuple[int, float]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    total = [0]
    cdp.on(
        "Network.loadingFinished", lambda e: total.__setitem__(0, total[0] + e["encodedDataLength"])
    )
    page.goto(url)
    idle(page)
    done = float(page.evaluate("performance.now()"))
    cdp.detach()
    return total[0], done


def slider_drag(page: Page, steps: int) -> tuple[list[float], list[float]]:
    """d_k slider positions 3 … 9 back and forth: `input` (preview) per step; every fifth
    step is a release (`change`, the full run)."""
    drag, release = [], []
    positions = [3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4]
    for i in range(steps):
        pos = str(positions[i % len(positions)])
        drag.append(page.evaluate(STEP_JS, ["#score-histogram--dk", pos, "input"]))
        if i % 5 == 4:
            release.append(page.evaluate(STEP_JS, ["#score-histogram--dk", pos, "change"]))
    return drag, release


def server_time(url: str, method: str = "GET", body: dict[str, object] | None = None) -> float:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as response:
        response.read()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    proc, url = start_server()
    try:
        full = [
            server_time(f"{url}/labs/why-scale/figures.json?figures=score-histogram&reproduce=1")
            for _ in range(5)
        ]
        body = {"d_ks": [32, 64, 128, 256], "draws": 200_000, "seed": 0}
        api = [
            server_time(f"{url}/api/v1/experiments/score-variance", "POST", body) for _ in range(5)
        ]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=ARGS)
            context = browser.new_context(
                viewport={"width": 1440, "height": 900}, reduced_motion="reduce"
            )
            page = context.new_page()
            print("first load (bytes as sent, every figure drawn):")
            for lab in ("one-query", "step-by-step", "why-scale"):
                size, done = first_load(page, f"{url}/labs/{lab}")
                print(f"  {lab}: {size / 1e6:.3f} MB, {done:.0f} ms")
            page.goto(f"{url}/labs/why-scale")
            idle(page)
            drag, release = slider_drag(page, args.steps)
            print(f"why-scale C1, d_k slider drag (preview run, 5,000 draws): {summary(drag)}")
            answered = page.evaluate(ANSWERED_JS, "lab:score-histogram:answered")
            print(f"  of which the answer arrived (request and server): {summary(answered)}")
            print(f"why-scale C1, slider release (full run, 20,000 draws): {summary(release)}")
            page.goto(f"{url}/labs/one-query")
            idle(page)
            edits = [
                page.evaluate(STEP_JS, ["#softmax-table--scores-0", str(1 + i % 4), "enter"])
                for i in range(args.steps)
            ]
            print(f"one-query A1, score edit to repaint: {summary(edits)}")
            browser.close()
        print("full run, 200,000 draws at d_k = 32, 64, 128, 256 (server, median of 5):")
        print(f"  GET /labs/why-scale/figures.json?reproduce=1: {statistics.median(full):.3f} s")
        print(f"  POST /api/v1/experiments/score-variance: {statistics.median(api):.3f} s")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
