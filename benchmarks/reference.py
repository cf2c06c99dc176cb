"""The fixed reference workload that benchmarks measure beside the page, in the same run on
the same machine, so that a shared or unknown machine's figures can be compared as ratios:
in a blank page of the same browser, build, lay out and paint a 24 × 20 table of coloured
numbers, parse a fixed JSON text and wait for the next frame (as an edit does); then fixed
pure-Python work of the kind the figure builders do, in the benchmark's own process (the
server's share of an edit). `benchmarks/guard.py` and `benchmarks/browser.py` use it.
"""

from __future__ import annotations

import json
import time

from playwright.sync_api import Browser, BrowserContext, Page

# The fixed reference workload: DOM building, style, layout and one painted frame.
REFERENCE_JS = """
async () => {
  const t0 = performance.now();
  const box = document.createElement('div');
  box.style.cssText = 'position:absolute;left:-10000px;top:0;width:640px';
  const table = document.createElement('table');
  for (let i = 0; i < 24; i++) {
    const tr = table.insertRow();
    for (let j = 0; j < 20; j++) {
      const td = tr.insertCell();
      td.textContent = (((i * 31 + j * 17) % 97) / 7).toFixed(2);
      td.style.backgroundColor = `rgb(${(i * 6) % 256}, ${(j * 12) % 256}, 128)`;
    }
  }
  box.append(table);
  document.body.append(box);
  void box.offsetHeight;
  const text = JSON.stringify(Array.from({length: 1000}, (_, i) => ({i, v: [i / 3, i * 2]})));
  JSON.parse(text);
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  box.remove();
  return performance.now() - t0;
}
"""


def python_reference() -> float:
    """The server's share of the reference: fixed pure-Python work of the kind a figure
    builder does (numbers formatted into strings, dicts built, JSON encoded), in this
    process, on the same cores as the server (ms)."""
    started = time.perf_counter()
    rows = [
        {"row": i, "text": [f"{(i * 31 + j * 17) % 97 / 7:.2f}" for j in range(24)]}
        for i in range(160)
    ]
    json.dumps({"rows": rows, "hover": [f"q{i}·k{i} = {i / 3:.3g}" for i in range(2000)]})
    return (time.perf_counter() - started) * 1000


def reference_page(browser: Browser | BrowserContext) -> Page:
    """A blank page for REFERENCE_JS: it does not grow with the state under test."""
    page = browser.new_page()
    page.set_content("<!doctype html><title>reference</title><body></body>")
    for _ in range(3):  # warm up (JIT)
        page.evaluate(REFERENCE_JS)
    return page


def reference_ms(page: Page) -> float:
    """One run of the whole reference (ms): the page's part, then the Python part."""
    return float(page.evaluate(REFERENCE_JS)) + python_reference()
