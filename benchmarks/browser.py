"""Browser benchmark of the page, measured inside the page: for the running example and a
64-token, d_model 32 state, the bytes transferred on first load (as sent, i.e.
compressed), the time to the first painted figure, and the edit-to-repaint latency over
30 edits (from the Enter keydown on an editor cell to the frame after <main aria-busy>
turns "false", i.e. every figure shows the new state and has been painted): median and
p95. Then the first paint of a 128 × 128 state (128 tokens, d_model = d_k = d_v = 128).
Beside each, the fixed reference workload of `benchmarks/reference.py` measured in the
same run (median of 15), and the ratio to it: on a shared machine, compare ratios.

    python benchmarks/browser.py [--edits 30]

Targets (issue 27, on a quiet machine): running example median ≤ 20 ms and p95 ≤ 40 ms;
64 × 32 median ≤ 30 ms; 128 × 128 first paint ≤ 0.5 s; first load ≤ 1.5 MB. Each line
says whether its target is met. Starts its own server on a free port.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.inputs.link import encode_body  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import reference_ms, reference_page  # noqa: E402

ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]  # fmt: skip

# Records when the first figure has been drawn (a grid by grid.js, or a Plotly graph),
# then the frame after it: a painted figure.
FIRST_FIGURE_JS = """
new MutationObserver((_, obs) => {
  if (document.querySelector(
        '[data-figure] table.grid, [data-figure] .grid-canvas, [data-figure] .main-svg')) {
    obs.disconnect();
    requestAnimationFrame(() => setTimeout(() => { window.__firstFigure = performance.now(); }));
  }
}).observe(document, {subtree: true, childList: true});
"""

# One edit: type a value and press Enter; resolve when aria-busy is false and a frame painted.
EDIT_JS = """
async ([selector, text]) => {
  const main = document.querySelector('main');
  const input = document.querySelector(selector);
  const idle = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (main.getAttribute('aria-busy') === 'false') { obs.disconnect(); resolve(); }
    });
    obs.observe(main, {attributes: true, attributeFilter: ['aria-busy']});
  });
  performance.clearMarks('attention-lab:visible-drawn');
  const t0 = performance.now();
  input.value = text;
  input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  await idle;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const mark = performance.getEntriesByName('attention-lab:visible-drawn').pop();
  return [performance.now() - t0, mark ? mark.startTime - t0 : null];
}
"""


def chromium() -> str:
    for candidate in (os.environ.get("CHROMIUM_PATH"), shutil.which("chromium"),
                      shutil.which("chromium-browser")):  # fmt: skip
        if candidate:
            return candidate
    sys.exit("No Chromium: set $CHROMIUM_PATH or install chromium.")


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port),
           "--log-level", "warning"]  # fmt: skip
    env = {**os.environ, "ATTENTION_LAB_LOG_LEVEL": "warning"}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    sys.exit("server did not start")


def big_state() -> dict[str, Any]:
    """64 tokens, d_model = d_k = d_v = 32, entries 0/1 (short enough for a link)."""
    rng = np.random.default_rng(0)

    def m(rows: int, cols: int) -> list[list[int]]:
        return rng.integers(0, 2, size=(rows, cols)).tolist()  # type: ignore[no-any-return]

    return {
        "tokens": [f"t{i}" for i in range(64)], "x": m(64, 32), "w_q": m(32, 32),
        "w_k": m(32, 32), "w_v": m(32, 32), "scale": True, "mask": "none", "heads": 1,
    }  # fmt: skip


def first_load(page: Page, url: str) -> tuple[int, float, float]:
    """Bytes on the wire (CDP encodedDataLength), first painted figure, all figures (ms)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    total = [0]
    cdp.on(
        "Network.loadingFinished", lambda e: total.__setitem__(0, total[0] + e["encodedDataLength"])
    )
    page.goto(url)
    # A selector, not wait_for_function: that evaluates a string, which the CSP forbids.
    page.wait_for_selector("main[aria-busy=false]", state="attached", timeout=60_000)
    first = page.evaluate("window.__firstFigure")
    done = page.evaluate("performance.now()")
    page.wait_for_timeout(300)
    cdp.detach()
    return total[0], first, done


def edits(page: Page, count: int) -> tuple[list[float], list[float]]:
    """Alternate the value of X[0][0] and W^Q[1][1] so every edit changes the figures."""
    times, visible = [], []
    for i in range(count):
        selector = ('input[data-matrix="x"][data-row="0"][data-col="0"]' if i % 2 == 0
                    else 'input[data-matrix="w_q"][data-row="1"][data-col="1"]')  # fmt: skip
        total, on_screen = page.evaluate(EDIT_JS, [selector, str(2 + i % 3)])
        times.append(total)
        visible.append(on_screen if on_screen is not None else total)
    return times, visible


def verdict(ok: bool) -> str:
    return "target met" if ok else "TARGET MISSED"


def reference(page: Page) -> float:
    """Median of 15 runs of the reference workload (ms)."""
    return statistics.median(reference_ms(page) for _ in range(15))


def report(name: str, page: Page, url: str, count: int, target: tuple[float, float]) -> None:
    size, first, done = first_load(page, url)
    ref = reference(reference_page(page.context))
    # The reference's page, opened after this one, covers it: Chromium then treats this page
    # as occluded and defers its off-screen work, which made every edit look 5× slower
    # (150 ms instead of 30). A learner edits the page in front: measure that.
    page.bring_to_front()
    times, visible = edits(page, count)
    median, p95 = statistics.median(times), float(np.percentile(times, 95))
    print(f"{name}: (reference workload {ref:.1f} ms; edit median = {median / ref:.2f}×)")
    print(f"  first load: {size / 1e6:.3f} MB transferred ({verdict(size <= 1.5e6)}: ≤ 1.5 MB);"
          f" first figure painted at {first:.0f} ms; all drawn at {done:.0f} ms")  # fmt: skip
    print(f"  edit-to-repaint over {count} edits: median {median:.1f} ms, p95 {p95:.1f} ms,"
          f" max {max(times):.1f} ms ({verdict(median <= target[0] and p95 <= target[1])}:"
          f" median ≤ {target[0]:.0f}, p95 ≤ {target[1]:.0f})")  # fmt: skip
    print(f"  figures on screen repainted: median {statistics.median(visible):.1f} ms,"
          f" p95 {float(np.percentile(visible, 95)):.1f} ms")  # fmt: skip


def square_state(n: int) -> dict[str, Any]:
    """n tokens, d_model = d_k = d_v = n, entries 0/1."""
    rng = np.random.default_rng(1)

    def m() -> list[list[int]]:
        return rng.integers(0, 2, size=(n, n)).tolist()  # type: ignore[no-any-return]

    return {"tokens": [f"t{i}" for i in range(n)], "x": m(), "w_q": m(), "w_k": m(),
            "w_v": m(), "scale": True, "mask": "none", "heads": 1}  # fmt: skip


def first_paint_of(page: Page, url: str, body: dict[str, Any]) -> float:
    """First figure painted for a state too large for a link: the page's own HTML with
    that state as its initial state (the page then asks the server for every figure)."""
    html = urllib.request.urlopen(url + "/").read().decode()
    block = re.compile(
        r'(<script type="application/json" id="initial-state">)(.*?)(</script>)', re.S
    )
    found = block.search(html)
    assert found, "the page has no initial-state block"
    # The server's own initial state (figures, limits, defaults…) with this body in it.
    initial = {**json.loads(found.group(2)), "body": body, "preset_id": None, "error": None}
    initial["view"] = {**initial["view"], "focus": 1, "theme": "light"}
    state = json.dumps(initial).replace("<", "\\u003c")
    html = html[: found.start(2)] + state + html[found.end(2) :]
    page.route(url + "/", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto(url + "/")
    page.wait_for_selector("main[aria-busy=false]", state="attached", timeout=120_000)
    first: float = page.evaluate("window.__firstFigure")
    return first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=30)
    args = parser.parse_args()
    proc, url = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=ARGS)
            states = [
                ("running example", "/?preset=i-love-llms", (20.0, 40.0)),
                ("64 tokens, d_model 32", f"/?s={encode_body(big_state())}", (30.0, 1e9)),
            ]
            for name, query, target in states:
                # Reduced motion: Figure 3 does not autoplay, so no frame ticks skew timings.
                context = browser.new_context(
                    viewport={"width": 1440, "height": 900}, reduced_motion="reduce"
                )
                context.add_init_script(FIRST_FIGURE_JS)
                report(name, context.new_page(), url + query, args.edits, target)
                context.close()
            context = browser.new_context(
                viewport={"width": 1440, "height": 900}, reduced_motion="reduce"
            )
            context.add_init_script(FIRST_FIGURE_JS)
            ref = reference(reference_page(context))
            first = first_paint_of(context.new_page(), url, square_state(128))
            print(f"128 tokens, d_model 128: first figure painted at {first:.0f} ms"
                  f" ({verdict(first <= 500)}: ≤ 0.5 s; reference {ref:.1f} ms,"
                  f" {first / ref:.1f}×)")  # fmt: skip
            context.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
