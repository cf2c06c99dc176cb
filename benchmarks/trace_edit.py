"""Profile real edits of the page in Chromium: a CDP CPU profile (JS self time by
function) and a performance trace (Blink's style, layout, paint and script events) over
`--edits` edits of the running example (or `--query`), printed as the top entries.

    python benchmarks/trace_edit.py [--edits 10] [--query "/?preset=i-love-llms"]

What took the time is named by function and file (profile) and by the browser's phase
(trace); the trace is also written to `--out` for chrome://tracing or Perfetto.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import ARGS, EDIT_JS, chromium, start_server


def self_times(profile: dict[str, Any]) -> collections.Counter[str]:
    """Self time (ms) per function of a CDP Profiler profile."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    deltas = profile["timeDeltas"]
    counts: collections.Counter[str] = collections.Counter()
    for sample, dt in zip(profile["samples"], deltas, strict=False):
        frame = nodes[sample]["callFrame"]
        url = frame["url"].rsplit("/", 1)[-1]
        counts[f"{frame['functionName'] or '(anon)'} {url}:{frame['lineNumber'] + 1}"] += dt / 1000
    return counts


def inclusive_ours(profile: dict[str, Any]) -> collections.Counter[str]:
    """Inclusive time (ms) per function of the page's own modules (static/js, not vendor):
    which of our calls the library and browser time is spent under."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    counts: collections.Counter[str] = collections.Counter()
    for sample, dt in zip(profile["samples"], profile["timeDeltas"], strict=False):
        seen, node = set(), sample
        while node in nodes:
            frame = nodes[node]["callFrame"]
            url = frame["url"]
            if "/static/js/" in url and "/vendor/" not in url:
                key = f"{frame['functionName'] or '(anon)'} {url.rsplit('/', 1)[-1]}"
                if key not in seen:
                    seen.add(key)
                    counts[key] += dt / 1000
            node = parent.get(node)
    return counts


def phases(events: list[dict[str, Any]]) -> collections.Counter[str]:
    """Total duration (ms) per trace event name on the renderer's main thread."""
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"]["name"] == "CrRendererMain"
    }
    totals: collections.Counter[str] = collections.Counter()
    for e in events:
        if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X" and "dur" in e:
            totals[e["name"]] += e["dur"] / 1000
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--query", default="/?preset=i-love-llms")
    parser.add_argument("--out", default="/tmp/attention-lab-edit-trace.json")
    args = parser.parse_args()
    proc, url = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=ARGS)
            context = browser.new_context(
                viewport={"width": 1440, "height": 900}, reduced_motion="reduce"
            )
            page = context.new_page()
            page.goto(url + args.query)
            page.wait_for_selector("main[aria-busy=false]", state="attached", timeout=60_000)
            page.wait_for_timeout(1000)
            cdp = context.new_cdp_session(page)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 100})
            browser.start_tracing(page=page, path=args.out, categories=[
                "devtools.timeline", "blink", "v8.execute", "disabled-by-default-devtools.timeline"
            ])  # fmt: skip
            cdp.send("Profiler.start")
            times = []
            for i in range(args.edits):
                sel = 'input[data-matrix="x"][data-row="0"][data-col="0"]'
                times.append(page.evaluate(EDIT_JS, [sel, str(2 + i % 3)])[0])
            profile = cdp.send("Profiler.stop")["profile"]
            browser.stop_tracing()
            print("edits (ms):", " ".join(f"{t:.0f}" for t in times))
            print(f"\nJS self time over {args.edits} edits (ms), top 30:")
            for name, ms in self_times(profile).most_common(30):
                print(f"  {ms:8.1f}  {name}")
            print("\nour functions, inclusive (ms), top 25:")
            for name, ms in inclusive_ours(profile).most_common(25):
                print(f"  {ms:8.1f}  {name}")
            events = json.loads(Path(args.out).read_text())["traceEvents"]
            print(f"\nmain-thread trace events over {args.edits} edits (ms, inclusive), top 25:")
            for name, ms in phases(events).most_common(25):
                print(f"  {ms:8.1f}  {name}")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
