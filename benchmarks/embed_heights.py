"""Measure the height every embed needs at 375, 720 and 1600 px, for hosts that cannot run
the height-message script (many LMS editors strip scripts) and so give the iframe a fixed
height. Prints the Markdown table of docs/embedding.md.

For each figure embed (/embed/3 … /embed/13, the running example) and each lab section
(/embed/labs/{id}/{figure}, its default state) the embed is opened in Chromium at each
width, left to draw (grids, charts, fonts), and its document's scrollHeight is read: the
height at which the iframe shows everything without a scrollbar, with the tables folded
as a reader first sees them. The table gives it rounded up to the next multiple of
``--step`` px (default 10), a little slack for other fonts.

    python benchmarks/embed_heights.py [--step 10] [--json heights.json] [--widths 375,720,1200]
    python benchmarks/embed_heights.py --computed   # the heights oEmbed and Embed give

``--computed`` prints, without a browser, the heights ``app.http.embed_height`` computes
from each embed's own description: what oEmbed and the Embed buttons give (the table of
docs/embedding.md); the measured ones are the oracle it is tested against.

Starts its own server on a free port. Figures 1 and 2 are static diagrams of the page and
have no embed, so they are not in the table.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.figures.labs import LABS  # noqa: E402
from app.figures.registry import BUILT_FIGURES, BY_NUMBER  # noqa: E402
from benchmarks.browser import ARGS, chromium, start_server  # noqa: E402

WIDTHS = (375, 720, 1600)
# Drawn: a figure embed marks <main data-drawn>, a lab embed sets aria-busy="false".
DRAWN = "#embed[data-drawn='true'], #main[aria-busy='false']"


def embeds() -> list[tuple[str, str]]:
    """(row label, path) of every figure embed and every ready lab section."""
    rows = [(f"Figure {n}: {BY_NUMBER[n].title}", f"/embed/{n}?preset=i-love-llms")
            for n in BUILT_FIGURES]  # fmt: skip
    for lab in LABS:
        if lab.status == "ready":
            rows += [(f"{lab.title} · {f.entry} {f.title}", f"/embed/labs/{lab.id}/{f.name}")
                     for f in lab.figures]  # fmt: skip
    return rows


def height(page: Page, url: str) -> int:
    """The embed's content height in CSS px once drawn and settled."""
    page.goto(url)
    page.locator(DRAWN).first.wait_for(timeout=60_000)
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(300)  # Plotly's responsive relayout, the last reflows
    return int(page.evaluate("Math.ceil(document.documentElement.scrollHeight)"))


def computed(widths: tuple[int, ...]) -> dict[str, dict[int, int]]:
    """The height ``app.http.embed_height`` gives each embed at each width."""
    import html
    import logging
    import re

    from fastapi.testclient import TestClient

    from app.figures.labs import get_lab
    from app.http.embed_height import figure_height, lab_height
    from app.main import create_app
    from app.settings import Settings

    logging.disable(logging.INFO)
    client = TestClient(create_app(Settings()))
    out: dict[str, dict[int, int]] = {}
    for _label, path in embeds():
        page = client.get(path + ("&" if "?" in path else "?") + "theme=light").text
        data = json.loads(re.findall(r'id="embed-data">(.*?)</script>', page, re.S)[0])
        spec = next(iter(data["specs"].values()))
        title = html.unescape(re.findall(r'class="state-title">(.*?)</span>', page, re.S)[0])
        text = f"Open in Attention Lab {title}"
        lab = get_lab(data["lab"]) if "lab" in data else None
        fig = lab.figure(data["figure"]) if lab is not None else None
        out[path] = {
            w: lab_height(spec, w, entry=fig.entry, badges=fig.badges, open_text=text)
            if fig is not None
            else figure_height(spec, w, open_text=text)
            for w in widths
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", type=int, default=10, help="round up to a multiple of this")
    parser.add_argument("--json", type=Path, help="also write the measured heights here")
    parser.add_argument("--computed", action="store_true",
                        help="print the heights oEmbed and Embed give, no browser")  # fmt: skip
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)),
                        help="iframe widths in px, comma-separated")  # fmt: skip
    args = parser.parse_args()
    widths = tuple(int(w) for w in args.widths.split(","))
    if args.computed:
        table(computed(widths), widths, 1)
        return
    proc, url = start_server()
    measured: dict[str, dict[int, int]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=ARGS)
            for width in widths:
                # A short viewport: scrollHeight is then the content's, not the window's.
                context = browser.new_context(
                    viewport={"width": width, "height": 200}, reduced_motion="reduce"
                )
                page = context.new_page()
                for _label, path in embeds():
                    light = url + path + ("&" if "?" in path else "?") + "theme=light"
                    measured.setdefault(path, {})[width] = height(page, light)
                    print(f"{width:>5} px  {measured[path][width]:>5}  {path}", file=sys.stderr)
                context.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    table(measured, widths, args.step)
    if args.json:
        args.json.write_text(json.dumps(measured, indent=1) + "\n")


def table(heights: dict[str, dict[int, int]], widths: tuple[int, ...], up: int) -> None:
    """The Markdown table of ``heights``, each rounded up to a multiple of ``up``."""
    print("| embed | path | " + " | ".join(f"{w} px" for w in widths) + " |")
    print("|---|---|" + "---:|" * len(widths))
    for label, path in embeds():
        cells = " | ".join(str(math.ceil(heights[path][w] / up) * up) for w in widths)
        print(f"| {label} | `{path}` | {cells} |")


if __name__ == "__main__":
    main()
