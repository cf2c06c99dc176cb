"""An exported lesson in a SCORM runtime: the package from POST /api/v1/lessons/export
(SCORM 1.2 and 2004), unzipped into a "LMS" site on another port whose page creates
scorm-again's APIs (the npm dev dependency, read from node_modules: nothing vendored) as
window.API and window.API_1484_11 and opens both SCOs in iframes. The learner answers the
lesson's questions through the player's contract DOM (data-question, radios, data-commit,
data-next); the LMS must receive completion and the score the lesson's answers give, and
one interaction per question. One page load holds both packages (each finds its own
version's API first). Learners share one browser profile (one context: one localStorage),
as in a school lab: each launch is a new LMS page with its own learner, and the LMS is the
only store (cmi.suspend_data), so nobody inherits another's answers or grade; a learner
who leaves at step 3 resumes there."""

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
  // What an LMS reads from each manifest before launch (the pass mark) and from its
  // records of this learner's attempt (who, how they enter, what the SCO suspended).
  window.API.loadFromJSON({ student_data: { mastery_score: "MASTERY_12" }, ...LEARNER_12 });
  window.API_1484_11.loadFromJSON({ scaled_passing_score: "PASSING_2004", ...LEARNER_2004 });
  // The data model as the LMS would store it (write-only elements included).
  window.lmsData = (api) => { const d = api.renderCMIToJSONObject(); return d.cmi ?? d; };
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
    if kind in ("attends_most", "direction", "section_question"):
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


def lms_page(
    folder: Path,
    name: str,
    mastery: str,
    passing: str,
    learner12: dict[str, Any] | None = None,
    learner2004: dict[str, Any] | None = None,
) -> str:
    """Write the LMS's page for one launch (one learner's attempt); its file name."""
    page = (
        LMS_PAGE.replace("MASTERY_12", mastery)
        .replace("PASSING_2004", passing)
        .replace("LEARNER_12", json.dumps(learner12 or {}))
        .replace("LEARNER_2004", json.dumps(learner2004 or {}))
    )
    (folder / name).write_text(page)
    return name


def learner(who: str, entry: str, suspended: str | None = None) -> tuple[dict[str, Any], ...]:
    """What the LMS holds of one learner's attempt before launch: 1.2's and 2004's."""
    name = f"{who.upper()}, Learner"
    v12: dict[str, Any] = {"core": {"student_id": who, "student_name": name, "entry": entry}}
    v2004: dict[str, Any] = {"learner_id": who, "learner_name": name, "entry": entry}
    if suspended is not None:
        v12["suspend_data"] = v2004["suspend_data"] = suspended
    return v12, v2004


def launch(page: Page, url: str, name: str) -> dict[str, Frame]:
    """Open the LMS page; its two SCO frames by package, once both initialised."""
    page.goto(f"{url}/{name}")
    wait_for(page, "lmsCalls.includes('LMSInitialize') && lmsCalls.includes('Initialize')")
    frames = {f.url.rsplit("/", 2)[1]: f for f in page.frames if f.url.endswith("/index.html")}
    for frame in frames.values():
        frame.locator('#lesson-player[data-ready="true"]').wait_for(timeout=30_000)
    return frames


def leave(page: Page) -> None:
    """The LMS closes the lesson's frames: both SCOs finish."""
    page.evaluate("document.querySelectorAll('iframe').forEach((f) => f.remove())")
    wait_for(page, "lmsCalls.includes('LMSFinish') && lmsCalls.includes('Terminate')")


def data(page: Page, api: str) -> dict[str, Any]:
    return dict(page.evaluate(f"lmsData(window.{api})"))


@pytest.fixture
def packages(host_site: tuple[str, Path], embed_app_url: str) -> dict[str, Any]:
    """The lesson, its answers and both packages installed on the LMS site."""
    url, folder = host_site
    for name in ("scorm12.min.js", "scorm2004.min.js"):
        shutil.copy(SCORM_AGAIN / name, folder / name)
    lesson = lesson_json(embed_app_url, LESSON)
    computed = answers(embed_app_url, lesson)
    mastery = install(folder, "sco12", export(embed_app_url, lesson, "scorm12"))
    passing = install(folder, "sco2004", export(embed_app_url, lesson, "scorm2004"))
    return {"url": url, "folder": folder, "computed": computed, "mastery": mastery,
            "passing": passing}  # fmt: skip


def test_two_learners_one_browser_each_their_own_record(
    page: Page, packages: dict[str, Any]
) -> None:
    url, folder, computed = packages["url"], packages["folder"], packages["computed"]
    asked = [i for i, a in enumerate(computed) if a is not None]
    marks = (packages["mastery"], packages["passing"])
    a = lms_page(folder, "lms-a.html", *marks, *learner("a", "ab-initio"))
    b = lms_page(folder, "lms-b.html", *marks, *learner("b", "ab-initio"))
    # A record a plain (non-LMS) visit left in this browser must not be picked up either.
    page.goto(f"{url}/sco12/index.html")
    stale = json.dumps({"at": 2, "responses": {str(i): "stale" for i in asked}})
    page.evaluate(f"localStorage.setItem('attention-lesson:{LESSON}', {json.dumps(stale)})")
    errors = console_errors(page)  # from here (the plain visit asked for a favicon)
    frames = launch(page, url, a)
    for frame in frames.values():
        assert frame.locator("#lesson-player").get_attribute("data-rendered") == "0"
    play(frames["sco12"], computed, wrong=set())
    play(frames["sco2004"], computed, wrong={asked[0]})
    wait_for(page, "window.API.cmi.core.lesson_status === 'passed'")
    wait_for(page, "window.API_1484_11.cmi.completion_status === 'completed'")
    a12, a2004 = data(page, "API"), data(page, "API_1484_11")
    assert a12["core"]["score"]["raw"] == "100"
    # One interaction per question, with the learner's response and the result.
    got12 = list(a12["interactions"].values())
    assert [x["id"] for x in got12] == [f"step-{i + 1}" for i in asked]
    assert {x["result"] for x in got12} == {"correct"}
    assert all(x["student_response"] and re.fullmatch(r"\d+:\d\d:\d\d(\.\d+)?", x["latency"])
               for x in got12)  # fmt: skip
    got2004 = list(a2004["interactions"].values())
    assert [x["result"] for x in got2004] == ["incorrect"] + ["correct"] * (len(asked) - 1)
    assert all(x["learner_response"] and x["latency"].startswith("PT") and x["description"]
               for x in got2004)  # fmt: skip
    leave(page)
    assert page.evaluate("localStorage.getItem('attention-lesson:why-scale')") == stale
    # B launches the same packages in the same browser: nothing of A's.
    frames = launch(page, url, b)
    for frame in frames.values():
        assert frame.locator("#lesson-player").get_attribute("data-rendered") == "0"
        assert frame.locator("[data-reveal]").count() == 0
        assert "0 of" in (frame.locator('[data-role="progress"]').text_content() or "")
    b12, b2004 = data(page, "API"), data(page, "API_1484_11")
    assert b12["core"]["student_id"] == "b"
    assert b12["core"]["lesson_status"] == "incomplete"
    assert b12["core"]["score"]["raw"] in ("", "0")
    assert b12["interactions"] == {}
    assert b2004["completion_status"] == "incomplete"
    assert b2004["success_status"] == "unknown"
    assert b2004["interactions"] == {}
    leave(page)
    assert data(page, "API")["core"]["exit"] == "suspend"
    assert data(page, "API_1484_11")["exit"] == "suspend"
    # The browser's storage was never touched by either package inside the LMS.
    assert page.evaluate("localStorage.getItem('attention-lesson:why-scale')") == stale
    assert errors == []


def test_leave_at_step_3_and_resume(page: Page, packages: dict[str, Any]) -> None:
    url, folder, computed = packages["url"], packages["folder"], packages["computed"]
    asked = [i for i, a in enumerate(computed) if a is not None]
    marks = (packages["mastery"], packages["passing"])
    first = lms_page(folder, "lms-first.html", *marks, *learner("c", "ab-initio"))
    errors = console_errors(page)
    frames = launch(page, url, first)
    for frame in frames.values():  # steps 1 and 2, each question answered right; on to step 3
        for i in range(2):
            frame.locator(f'#lesson-player[data-rendered="{i}"]').wait_for(timeout=30_000)
            if computed[i] is not None:
                respond(frame, computed[i], right=True)
            frame.locator("#lesson-player [data-next]").click()
        frame.locator('#lesson-player[data-rendered="2"]').wait_for(timeout=30_000)
    leave(page)
    left12, left2004 = data(page, "API"), data(page, "API_1484_11")
    assert left12["core"]["exit"] == "suspend"
    assert left2004["exit"] == "suspend"
    assert left12["core"]["lesson_status"] == "incomplete"
    saved12, saved2004 = left12["suspend_data"], left2004["suspend_data"]
    assert json.loads(saved12)["at"] == 2
    assert json.loads(saved2004)["at"] == 2
    assert len(saved12) <= 4096
    before = [i for i in asked if i < 2]
    # The LMS relaunches the attempt: entry resume, with what the SCO suspended.
    resumed = learner("c", "resume", saved12)[0], learner("c", "resume", saved2004)[1]
    again = lms_page(folder, "lms-again.html", *marks, *resumed)
    frames = launch(page, url, again)
    for frame in frames.values():
        frame.locator('#lesson-player[data-rendered="2"]').wait_for(timeout=30_000)
        progress = frame.locator('[data-role="progress"]').text_content() or ""
        assert f"{len(before)} of {len(asked)}" in progress
        for i in range(2, len(computed)):  # the rest, every answer right
            frame.locator(f'#lesson-player[data-rendered="{i}"]').wait_for(timeout=30_000)
            if computed[i] is not None:
                respond(frame, computed[i], right=True)
            frame.locator("#lesson-player [data-next]").click()
        frame.locator('[data-role="summary"]:not([hidden])').wait_for()
    wait_for(page, "window.API.cmi.core.lesson_status === 'passed'")
    assert page.evaluate("window.API.cmi.core.score.raw") == "100"
    wait_for(page, "window.API_1484_11.cmi.success_status === 'passed'")
    leave(page)
    assert data(page, "API")["core"]["exit"] == ""
    assert data(page, "API_1484_11")["exit"] == "normal"
    assert errors == []


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
    lms_page(folder, "lms.html", mastery, passing)
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


def test_attention_today_reports_one_choice_per_lab_section(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    # "Attention today" asks only the labs' own questions: each a `choice` interaction
    # whose response is the lab's id (1.2 all right; 2004 the third wrong).
    url, folder = host_site
    for name in ("scorm12.min.js", "scorm2004.min.js"):
        shutil.copy(SCORM_AGAIN / name, folder / name)
    lesson = lesson_json(embed_app_url, "attention-today")
    computed = answers(embed_app_url, lesson)
    assert all(a is not None and a["kind"] == "section_question" for a in computed)
    marks = (install(folder, "sco12", export(embed_app_url, lesson, "scorm12")),
             install(folder, "sco2004", export(embed_app_url, lesson, "scorm2004")))  # fmt: skip
    frames = launch(page, url, lms_page(folder, "lms-today.html", *marks,
                                        *learner("t", "ab-initio")))  # fmt: skip
    play(frames["sco12"], computed, wrong=set())
    play(frames["sco2004"], computed, wrong={2})
    wait_for(page, "window.API.cmi.core.lesson_status === 'passed'")
    wait_for(page, "window.API_1484_11.cmi.completion_status === 'completed'")
    a12, a2004 = data(page, "API"), data(page, "API_1484_11")
    rights = [a["accept"]["choice"] for a in computed if a is not None]
    assert a12["core"]["score"]["raw"] == "100"
    got12 = list(a12["interactions"].values())
    assert [(x["id"], x["type"], x["student_response"], x["result"]) for x in got12] == [
        (f"step-{i + 1}", "choice", right, "correct") for i, right in enumerate(rights)
    ]
    got2004 = list(a2004["interactions"].values())
    assert [x["result"] for x in got2004] == ["correct"] * 2 + ["incorrect"] + ["correct"] * 7
    assert a2004["score"]["raw"] == "90"
    assert a2004["success_status"] == "passed"  # 90 against the default pass mark of 80
    leave(page)
