"""An exported lesson in a SCORM runtime: the package from POST /api/v1/lessons/export
(SCORM 1.2 and 2004), unzipped into a "LMS" site on another port whose page creates
scorm-again's APIs (the npm dev dependency, read from node_modules: nothing vendored) as
window.API and window.API_1484_11 and opens both SCOs in iframes. The learner answers the
lesson's questions through the player's contract DOM (data-question, radios, data-commit,
data-next); the LMS must receive completion and the score the lesson's answers give.
One page load holds both packages (each finds its own version's API first)."""

from __future__ import annotations

import io
import json
import re
import shutil
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Frame, Page

from tests.browser.embed_support import ROOT, console_errors, embed_app_url, host_site, wait_for

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "host_site"]  # fixtures used by name

LESSON = "why-scale"
SCORM_AGAIN = ROOT / "node_modules" / "scorm-again" / "dist"
LMS_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>LMS</title>
<script src="scorm12.min.js"></script><script src="scorm2004.min.js"></script>
<script>
  window.API = new Scorm12API({ logLevel: 5 });
  window.API_1484_11 = new Scorm2004API({ logLevel: 5 });
  // What an LMS reads from each manifest before launch: the pass mark.
  window.API.loadFromJSON({ student_data: { mastery_score: "MASTERY_12" } });
  window.API_1484_11.loadFromJSON({ scaled_passing_score: "PASSING_2004" });
  window.lmsCalls = [];
  for (const name of ["LMSInitialize", "LMSCommit", "LMSFinish", "Initialize", "Commit",
                      "Terminate"])
    (name.startsWith("LMS") ? window.API : window.API_1484_11).on(name, () =>
      window.lmsCalls.push(name));
</script></head>
<body><h1>Course</h1>
<iframe id="sco12" src="sco12/index.html" title="Lesson (SCORM 1.2)"
        width="1000" height="800"></iframe>
<iframe id="sco2004" src="sco2004/index.html" title="Lesson (SCORM 2004)"
        width="1000" height="800"></iframe>
</body></html>
"""


def export(app: str, lesson: dict[str, Any], fmt: str) -> bytes:
    request = urllib.request.Request(
        f"{app}/api/v1/lessons/export?format={fmt}",
        data=json.dumps(lesson).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.headers["Content-Type"] == "application/zip"
        return bytes(answer.read())


def lesson_json(app: str, lesson_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{app}/api/v1/lessons/{lesson_id}") as answer:
        return dict(json.load(answer))


def answers(app: str, lesson: dict[str, Any]) -> list[dict[str, Any] | None]:
    request = urllib.request.Request(
        f"{app}/api/v1/lessons/answers",
        data=json.dumps(lesson).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        return list(json.load(answer)["steps"])


def install(folder: Path, name: str, package: bytes) -> str:
    """Unzip the package into folder/name, as an LMS does; its manifest's pass mark."""
    target = folder / name
    shutil.rmtree(target, ignore_errors=True)
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        archive.extractall(target)
    manifest = (target / "imsmanifest.xml").read_text()
    found = re.search(r"<(?:adlcp:masteryscore|imsss:minNormalizedMeasure)>([^<]+)<", manifest)
    assert found, "the manifest has no pass mark"
    return found.group(1)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    yield context.new_page()
    context.close()


def respond(frame: Frame, answer: dict[str, Any], right: bool) -> None:
    """Give the computed answer (``right``) or a wrong one through the player's DOM."""
    question = frame.locator("[data-question]")
    accept = answer["accept"]
    kind = answer["kind"]
    if kind in ("attends_most", "direction"):
        ids = [c["id"] for c in answer["choices"]]
        pick = accept["choice"] if right else next(c for c in ids if c != accept["choice"])
        question.locator(f'input[type="radio"][value="{pick}"]').check()
    elif kind == "order":
        sequence = accept["sequence"] if right else list(reversed(accept["sequence"]))
        places = question.locator("fieldset.order-place")
        for place, choice in enumerate(sequence):
            places.nth(place).locator(f'input[value="{choice}"]').check()
    elif kind == "cell_value":
        low, high = accept["min"], accept["max"]
        value = (low + high) / 2 if right else high + 1 + abs(high)
        question.locator('input[type="number"]').fill(repr(value))
    elif kind == "click_cell":
        cells = [tuple(c) for c in accept["cells"]]
        grid = frame.locator("table.lesson-pickable").first
        if right:
            row, col = cells[0]
        else:
            row, col = next((r, c) for r in range(1, 9) for c in range(1, 9)
                            if (r, c) not in cells)  # fmt: skip
        grid.locator(f'td[data-row="{row - 1}"][data-col="{col - 1}"]').click()
    else:
        raise AssertionError(f"unknown question kind {kind}")
    question.locator("[data-commit]").click()
    frame.locator("[data-reveal]").first.wait_for()


def play(frame: Frame, computed: list[dict[str, Any] | None], wrong: set[int]) -> None:
    """Every step in order; the questions at the indexes in ``wrong`` answered wrong."""
    player = frame.locator("#lesson-player")
    for i, answer in enumerate(computed):
        frame.locator(f'#lesson-player[data-rendered="{i}"]').wait_for(timeout=30_000)
        if answer is not None:
            respond(frame, answer, right=i not in wrong)
        player.locator("[data-next]").click()
    frame.locator('[data-role="summary"]:not([hidden])').wait_for()


def test_scorm_runtime_receives_completion_and_score(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    url, folder = host_site
    for name in ("scorm12.min.js", "scorm2004.min.js"):
        shutil.copy(SCORM_AGAIN / name, folder / name)
    lesson = lesson_json(embed_app_url, LESSON)
    computed = answers(embed_app_url, lesson)
    asked = [i for i, a in enumerate(computed) if a is not None]
    assert len(asked) >= 3
    mastery = install(folder, "sco12", export(embed_app_url, lesson, "scorm12"))
    passing = install(folder, "sco2004", export(embed_app_url, lesson, "scorm2004"))
    assert (mastery, passing) == ("80", "0.8")
    lms = LMS_PAGE.replace("MASTERY_12", mastery).replace("PASSING_2004", passing)
    (folder / "lms.html").write_text(lms)
    errors = console_errors(page)
    page.goto(f"{url}/lms.html")
    wait_for(page, "lmsCalls.includes('LMSInitialize') && lmsCalls.includes('Initialize')")
    assert page.evaluate("window.API.cmi.core.lesson_status") == "incomplete"
    assert page.evaluate("window.API_1484_11.cmi.completion_status") == "incomplete"
    frames = {f.url.rsplit("/", 2)[1]: f for f in page.frames if f.url.endswith("/index.html")}
    # SCORM 1.2: every answer right; SCORM 2004: the first question wrong, the rest right.
    play(frames["sco12"], computed, wrong=set())
    play(frames["sco2004"], computed, wrong={asked[0]})
    wait_for(page, "window.API.cmi.core.lesson_status === 'passed'")
    assert page.evaluate("window.API.cmi.core.score.raw") == "100"
    part = round(100 * (len(asked) - 1) / len(asked))
    wait_for(page, "window.API_1484_11.cmi.completion_status === 'completed'")
    assert page.evaluate("window.API_1484_11.cmi.score.raw") == str(part)
    assert page.evaluate("window.API_1484_11.cmi.score.scaled") == str(part / 100)
    # The manifest's pass mark (80 %) reaches the SCO as the LMS's scaled passing score.
    expected = "passed" if part >= 80 else "failed"
    assert page.evaluate("window.API_1484_11.cmi.success_status") == expected
    # Leaving the lesson (the LMS closes its frame) finishes both sessions.
    page.evaluate("document.querySelectorAll('iframe').forEach((f) => f.remove())")
    wait_for(page, "lmsCalls.includes('LMSFinish') && lmsCalls.includes('Terminate')")
    assert errors == []
