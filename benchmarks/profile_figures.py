"""Where edit-to-repaint time goes: per-figure Plotly.react time (performance.now() around
each call, awaited) and the figures request, averaged over N edits of the running example.

    /work/venv/bin/python benchmarks/profile_figures.py [--edits 20] [--state big]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from browser import ARGS, EDIT_JS, big_state, chromium, start_server

from app.inputs.link import encode_body

# Wrap Plotly.react (once plotly defines window.Plotly) and fetch to time each call.
WRAP_JS = """
window.__reacts = [];
let real;
Object.defineProperty(window, 'Plotly', {
  configurable: true,
  get() { return real; },
  set(p) {
    const react = p.react;
    p.react = function (el, ...rest) {
      const t0 = performance.now();
      const fig = el.closest('[data-figure]')?.id ?? '?';
      return Promise.resolve(react.call(this, el, ...rest)).then((r) => {
        window.__reacts.push([fig, t0, performance.now() - t0]);
        return r;
      });
    };
    real = p;
  },
});
const realReplace = history.replaceState.bind(history);
history.replaceState = (...a) => {
  const t0 = performance.now();
  realReplace(...a);
  window.__reacts.push(['replaceState', t0, performance.now() - t0]);
};
const realFetch = window.fetch;
window.fetch = async (...a) => {
  const t0 = performance.now();
  const r = await realFetch(...a);
  await r.clone().arrayBuffer();
  window.__reacts.push(['fetch', t0, performance.now() - t0]);
  return r;
};
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--state", choices=["example", "big"], default="example")
    parser.add_argument("--css", default="", help="extra CSS to try (CSP bypassed)")
    args = parser.parse_args()
    proc, url = start_server()
    query = "/?preset=i-love-llms" if args.state == "example" else f"/?s={encode_body(big_state())}"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=ARGS)
            context = browser.new_context(
                viewport={"width": 1440, "height": 900},
                reduced_motion="reduce",
                bypass_csp=bool(args.css),
            )
            context.add_init_script(WRAP_JS)
            page = context.new_page()
            page.goto(url + query)
            page.wait_for_selector("main[aria-busy=false]", state="attached", timeout=60_000)
            if args.css:
                page.add_style_tag(content=args.css)
            first = page.evaluate("window.__reacts")
            print("first load (start ms, duration ms):")
            for name, t0, dt in first:
                print(f"  {name:8s} {t0:7.0f} {dt:6.1f}")
            per = defaultdict(list)
            totals = []
            for i in range(args.edits):
                page.evaluate("window.__reacts = []")
                sel = ('input[data-matrix="x"][data-row="0"][data-col="0"]' if i % 2 == 0
                       else 'input[data-matrix="w_q"][data-row="1"][data-col="1"]')  # fmt: skip
                page.evaluate("window.__t0 = performance.now()")
                total, _ = page.evaluate(EDIT_JS, [sel, str(2 + i % 3)])
                totals.append(total)
                if i == args.edits - 1:
                    t0 = page.evaluate("window.__t0")
                    print(
                        f"last edit ({total:.0f} ms), ms after the edit started: "
                        + ", ".join(
                            f"{n} {s - t0:.0f}+{d:.0f}"
                            for n, s, d in page.evaluate("window.__reacts")
                        )
                    )
                for name, _, dt in page.evaluate("window.__reacts"):
                    per[name].append(dt)
            print(f"edits: median total {statistics.median(totals):.1f} ms")
            for name, dts in sorted(per.items(), key=lambda kv: -statistics.median(kv[1])):
                print(f"  {name:8s} median {statistics.median(dts):6.1f} ms  n={len(dts)}")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
