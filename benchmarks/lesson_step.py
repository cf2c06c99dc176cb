"""Benchmark of the lesson player: the time from the Next key event to the painted frame
of the next step, measured in the page, on the site and in the offline file. Prints

* for each source (the site: /lessons/{id}?mode=present, figures from the API fetched
  ahead, → and ← keys; the offline file: figures inlined, Enter on the focused Next and
  Previous buttons), the median and p90 over every step change of `--rounds` walks
  through the lesson and back (the site's first walk apart: it loads plotly.js);

the time runs from the keydown's timeStamp to the first task after the frame in which
the player marks the step drawn (<div id="lesson-player" data-rendered>, set in a
requestAnimationFrame callback after the render): that frame has been painted then.
Under each, the player's own part (its performance measure "lesson:step": from show()
to that requestAnimationFrame callback), which excludes the browser's style, layout and
paint of the frame.

    python benchmarks/lesson_step.py [--lesson attention-by-hand] [--rounds 3] [--dwell 1000]

Each step is shown `--dwell` ms before the next key (a reader reads it; the player draws
the steps beside it meanwhile); with `--dwell 0` the keys come as fast as the steps draw.

Target (issue 19): moving to the next step repaints in ≤ 100 ms (median and p90).
Starts its own server on a free port.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.export.lesson_document import lesson_html  # noqa: E402
from app.http.lesson_labs import lab_figure  # noqa: E402
from app.lessons.builtin import get_builtin  # noqa: E402
from app.settings import Settings  # noqa: E402
from benchmarks.browser import ARGS, chromium, start_server  # noqa: E402

# In the page from the start: each arrow key's time, and each drawn step's delay after it.
PROBE = """
window.__stepTimes = [];
let keyAt = null;
addEventListener("keydown", (e) => {
  if (["ArrowRight", "ArrowLeft", "Enter"].includes(e.key)) keyAt = e.timeStamp;
}, true);
new MutationObserver(() => {
  const player = document.getElementById("lesson-player");
  if (keyAt === null || !player?.dataset.rendered) return;
  const started = keyAt;
  keyAt = null;
  setTimeout(() => window.__stepTimes.push(performance.now() - started), 0);
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-rendered"] });
"""


def walk(
    page: Page, steps: int, rounds: int, dwell: int, buttons: bool = False
) -> tuple[list[float], list[float]]:
    """Every step change of `rounds` walks to the end and back, in ms: with → and ←
    (presenter mode), or with Enter on the focused Next and Previous buttons; `dwell` ms
    on each step (a reader reads it; the player draws the steps beside it meanwhile).
    Also the player's own part: from its show() to the frame's requestAnimationFrame."""
    page.evaluate("window.__stepTimes = []; performance.clearMeasures('lesson:step')")
    page.locator("body").focus()
    for _ in range(rounds):
        for forward in (True, False):
            for k in range(steps - 1):
                target = k + 1 if forward else steps - 2 - k
                if buttons:
                    page.locator("[data-next]" if forward else "[data-prev]").focus()
                    page.keyboard.press("Enter")
                else:
                    page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
                page.locator(f"#lesson-player[data-rendered='{target}']").wait_for(state="attached")
                page.wait_for_timeout(dwell)
    page.wait_for_timeout(100)
    times: list[float] = page.evaluate("window.__stepTimes")
    own: list[float] = page.evaluate(
        "performance.getEntriesByName('lesson:step').map((e) => e.duration)"
    )
    return times, own


def report(name: str, walked: tuple[list[float], list[float]]) -> None:
    times, own = walked
    line(name, times)
    line("  of which the player's own work", own)


def line(name: str, times: list[float]) -> None:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    median = statistics.median(ordered)
    ok = "ok" if median <= 100 and p90 <= 100 else "OVER TARGET"
    print(f"{name:<34} n={len(times):3d}  median {median:6.1f} ms  p90 {p90:6.1f} ms  "
          f"max {ordered[-1]:6.1f} ms  (target ≤ 100 ms: {ok})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lesson", default="attention-by-hand")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dwell", type=int, default=1000, help="ms on each step")
    args = parser.parse_args()
    lesson = get_builtin(args.lesson)
    if lesson is None:
        sys.exit(f"no built-in lesson {args.lesson!r}")
    steps = len(lesson.steps)
    settings = Settings()
    with tempfile.TemporaryDirectory() as folder:
        offline = Path(folder) / "lesson.html"
        offline.write_text(lesson_html(lesson, settings=settings, lab_figure=lab_figure(settings)))
        proc, url = start_server()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium(), args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.add_init_script(PROBE)
                page.on("pageerror", lambda e: print("page error:", e))
                page.on(
                    "console", lambda m: print("console:", m.text) if m.type == "error" else None
                )
                page.goto(f"{url}/lessons/{args.lesson}?mode=present")
                page.locator("#lesson-player[data-rendered='0']").wait_for(state="attached")
                page.wait_for_timeout(3000)  # the other steps are fetched ahead meanwhile
                report("site, first walk (loads plotly.js)", walk(page, steps, 1, args.dwell))
                report("site, later walks", walk(page, steps, args.rounds, args.dwell))
                page.goto(offline.as_uri())
                page.locator("#lesson-player[data-rendered='0']").wait_for(state="attached")
                report(
                    "offline file (Enter on Next/Prev)",
                    walk(page, steps, args.rounds, args.dwell, True),
                )
                browser.close()
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
