"""The benchmark guard that CI runs (`.ci/run`, after the tests): fails when the page's
edit-to-repaint has regressed by more than 2× against the figures recorded in
`benchmarks/recorded.json`.

An absolute time means nothing on a shared or unknown machine, so every edit is measured
beside a fixed reference workload in the same page of the same browser on the same
machine, interleaved (edit, reference, edit, reference…), and the guard compares the
ratio of their medians. The edit is `benchmarks/browser.py`'s: from the Enter keydown on
an editor cell to the frame after `<main aria-busy>` turns "false" (every figure shows the
new state and has been painted). The reference builds, lays out and paints a fixed
24 × 20 table of coloured numbers, parses a fixed JSON text and waits for the next frame,
as an edit does, in a blank page of the same browser; then fixed pure-Python work in this
process (the server's share of an edit: strings, dicts, JSON).

    python benchmarks/guard.py [--edits 30] [--record --why TEXT] [--slowdown-ms 0]

`--record --why TEXT` writes the measured ratios to `benchmarks/recorded.json` instead of
checking them: commit that file with a message that says why the figures changed. `--slowdown-ms N`
is the test-only switch that shows the guard works: a busy loop of N ms is injected into
every edit (when `aria-busy` turns "true"), never into the reference. On the shared
2-core machine of the first record the ratio moved by up to ±30 % between runs; a 2×
limit leaves room for that and catches a regression like issue 27's (about 4×). Exit
code 1 when a state's ratio is more than `LIMIT` times its recorded one. The reference
workload is `benchmarks/reference.py`. Takes about 30 s on a quiet 2-core machine (100 to
140 s on the shared one at load 10 to 20).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from browser import ARGS, EDIT_JS, big_state, chromium, start_server  # noqa: E402
from reference import reference_ms, reference_page  # noqa: E402

from app.inputs.link import encode_body  # noqa: E402

RECORDED = HERE / "recorded.json"
LIMIT = 2.0  # a ratio more than twice the recorded one fails

# Test-only: a busy loop in every edit, from the moment the page says it is busy.
SLOWDOWN_JS = """
addEventListener('DOMContentLoaded', () => {
  const main = document.querySelector('main');
  if (!main) return;
  new MutationObserver(() => {
    if (main.getAttribute('aria-busy') !== 'true') return;
    const end = performance.now() + %d;
    while (performance.now() < end) {}
  }).observe(main, {attributes: true, attributeFilter: ['aria-busy']});
});
"""

# State -> (its link, how many edits: fewer for the larger one, to stay within a minute).
STATES = {
    "running example": ("/?preset=i-love-llms", 30),
    "64 tokens, d_model 32": (f"/?s={encode_body(big_state())}", 16),
}


def measure(page: Page, reference: Page, url: str, edits: int) -> dict[str, float]:
    """Edit-to-repaint in `page` and the reference workload in `reference` (a blank page of
    the same browser, so it does not grow with the state), interleaved: the medians (ms)
    and the median of each edit's ratio to the reference run just after it (neighbours
    share the machine's load of the moment)."""
    page.goto(url)
    page.wait_for_selector("main[aria-busy=false]", state="attached", timeout=60_000)
    page.wait_for_timeout(300)
    times, refs = [], []
    for i in range(edits + 2):
        selector = ('input[data-matrix="x"][data-row="0"][data-col="0"]' if i % 2 == 0
                    else 'input[data-matrix="w_q"][data-row="1"][data-col="1"]')  # fmt: skip
        total = page.evaluate(EDIT_JS, [selector, str(2 + i % 3)])[0]
        # The URL follows the state 120 ms after an edit (main.js): not inside the reference.
        page.wait_for_selector("main[data-url=synced]", state="attached")
        ref = reference_ms(reference)
        if i >= 2:  # the first two edits warm up
            times.append(total)
            refs.append(ref)
    ratio = statistics.median(t / r for t, r in zip(times, refs, strict=True))
    return {
        "edit_ms": round(statistics.median(times), 1),
        "reference_ms": round(statistics.median(refs), 1),
        "ratio": round(ratio, 3),
    }


def run(edits: int, slowdown_ms: int) -> dict[str, dict[str, float]]:
    proc, url = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=ARGS)
            out = {}
            for name, (query, count) in STATES.items():
                context = browser.new_context(
                    viewport={"width": 1440, "height": 900}, reduced_motion="reduce"
                )
                if slowdown_ms:
                    context.add_init_script(SLOWDOWN_JS % slowdown_ms)
                reference = reference_page(context)
                n = max(4, round(count * edits / 30))
                out[name] = measure(context.new_page(), reference, url + query, n)
                context.close()
            browser.close()
            return out
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def check(measured: dict[str, dict[str, float]], recorded: dict[str, Any]) -> bool:
    ok = True
    for name, now in measured.items():
        then = recorded["states"].get(name)
        if then is None:
            print(f"  {name}: no recorded figures (run --record and commit them)")
            ok = False
            continue
        factor = now["ratio"] / then["ratio"]
        verdict = "ok" if factor <= LIMIT else f"REGRESSED (more than {LIMIT:g}× the recorded)"
        print(f"  {name}: edit {now['edit_ms']:.1f} ms / reference {now['reference_ms']:.1f}"
              f" ms = {now['ratio']:.2f} (recorded {then['ratio']:.2f}: {factor:.2f}×)"
              f" {verdict}")  # fmt: skip
        ok = ok and factor <= LIMIT
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=30, help="edits of the running example")
    parser.add_argument("--record", action="store_true", help="write recorded.json")
    parser.add_argument("--why", default="", help="with --record: why the figures change")
    parser.add_argument("--slowdown-ms", type=int, default=0, help="test only: slow every edit")
    args = parser.parse_args()
    started = time.monotonic()
    measured = run(args.edits, args.slowdown_ms)
    took = time.monotonic() - started
    slow = f" (slowdown {args.slowdown_ms} ms injected)" if args.slowdown_ms else ""
    print(
        f"benchmark guard: medians of {args.edits} edits (running example), in {took:.0f} s{slow}"
    )
    if args.record:
        if not args.why:
            sys.exit("--record needs --why: what changed the figures")
        record = {"why": args.why, "recorded": time.strftime("%Y-%m-%d"), "states": measured}
        RECORDED.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        for name, now in measured.items():
            print(f"  {name}: {now}")
        print(f"recorded in {RECORDED.relative_to(HERE.parent)}: commit it and say why")
        return
    if not check(measured, json.loads(RECORDED.read_text())):
        sys.exit(1)


if __name__ == "__main__":
    main()
