"""Lessons in Chromium (issue 19): a built-in lesson played with the keyboard alone, wrong
then right, with the names a screen reader reads, the progress events and the record kept
in the browser; presenter mode driven by → / ← / R; the editor from "Add to lesson" on a
figure and a lab section to a shared link that plays; the offline file from file://,
with no request at all. One page load per mode; each test walks many steps in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lesson_files import open_offline
from page_helpers import lesson_from_the_start, open_page, scroll_still
from playwright.sync_api import BrowserContext, Page, expect

from app.lessons.answers import answer_lesson
from app.lessons.builtin import get_builtin

pytestmark = pytest.mark.browser

EVENTS = """window.__lessonEvents = [];
addEventListener("attention-lesson:progress", (e) => window.__lessonEvents.push(e.detail));"""


@pytest.fixture(scope="module")
def page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    page.add_init_script(EVENTS)
    yield page
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def answers(lesson_id: str) -> list[Any]:
    """The computed answers, as POST /api/v1/lessons/answers sends them to the player."""
    lesson = get_builtin(lesson_id)
    assert lesson is not None
    return list(answer_lesson(lesson))


# The focused reveal's outline colour and the accent's, both resolved in the page's theme.
RING = """() => {
  const box = document.activeElement;
  if (!box || !box.matches("[data-reveal]")) return ["(the reveal is not focused)", ""];
  const probe = document.createElement("span");
  probe.style.color = "var(--accent)";
  document.body.append(probe);
  const accent = getComputedStyle(probe).color;
  probe.remove();
  return [getComputedStyle(box).outlineColor, accent];
}"""


def rendered(page: Page, step: int) -> None:
    page.locator(f"#lesson-player[data-rendered='{step}']").wait_for(state="attached")


def press_on(page: Page, selector: str, key: str = "Enter") -> None:
    """Focus ``selector`` and press ``key``: the keyboard, not a click."""
    page.locator(selector).first.focus()
    page.keyboard.press(key)


def next_step(page: Page, step: int) -> None:
    press_on(page, "[data-next]")
    rendered(page, step)


def last_event(page: Page) -> dict[str, Any]:
    event: dict[str, Any] = page.evaluate("window.__lessonEvents.at(-1)")
    return event


def test_student_plays_a_builtin_by_keyboard(page: Page, server_url: str) -> None:
    expected = answers("attention-by-hand")
    lesson_from_the_start(page, f"{server_url}/lessons/attention-by-hand")
    # What a screen reader finds: the lesson's landmarks, controls and live parts.
    expect(page.get_by_role("navigation", name="Lesson steps")).to_have_count(1)
    expect(page.get_by_role("progressbar", name="Lesson progress")).to_have_count(1)
    expect(page.get_by_role("button", name="Previous")).to_be_disabled()
    expect(page.locator("#lesson-fig-1, [data-figure='1']").first).to_be_visible()
    start = {"lesson": "attention-by-hand", "step": 0, "steps": 13, "questions": 7,
             "answered": 0, "correct": 0, "done": False}  # fmt: skip
    assert last_event(page) == start

    # Step 2: a number, first wrong. The figure waits for the prediction.
    next_step(page, 1)
    expect(page.locator("[data-question='cell_value']")).to_have_count(1)
    expect(page.locator("[data-role=figures]")).to_be_hidden()
    box = page.get_by_role("spinbutton", name="Your prediction")
    box.focus()
    page.keyboard.type(str(expected[1]["accept"]["max"] + 1))
    page.keyboard.press("Enter")
    reveal = page.locator("[data-reveal]")
    expect(reveal).to_have_attribute("data-correct", "false")
    expect(reveal).to_have_attribute("role", "status")
    expect(reveal).to_contain_text(f"You predicted {expected[1]['accept']['max'] + 1:g}")
    expect(reveal).to_contain_text(f"It is {expected[1]['answer']}.")
    expect(page.locator("[data-role=figures]")).to_be_visible()
    expect(page.get_by_role("button", name="Check")).to_be_disabled()
    assert last_event(page)["answered"] == 1
    assert last_event(page)["correct"] == 0

    # Step 4: a number, right.
    next_step(page, 2)
    next_step(page, 3)
    page.get_by_role("spinbutton", name="Your prediction").focus()
    page.keyboard.type(str(expected[3]["accept"]["min"]))
    page.keyboard.press("Enter")
    expect(page.locator("[data-reveal]")).to_have_attribute("data-correct", "true")

    # Step 6: radio inputs, moved with the arrow keys.
    next_step(page, 4)
    next_step(page, 5)
    choices = [c["id"] for c in expected[5]["choices"]]
    radios = page.locator("[data-question='attends_most'] input[type=radio]")
    expect(radios).to_have_count(len(choices))
    expect(page.get_by_role("group", name="Your prediction")).to_have_count(1)
    radios.first.focus()
    page.keyboard.press("Space")
    for _ in range(choices.index(expected[5]["accept"]["choice"])):
        page.keyboard.press("ArrowRight")
    press_on(page, "[data-commit]")
    expect(page.locator("[data-reveal]")).to_have_attribute("data-correct", "true")
    # the why as sent (its end: the start holds MathML)
    expect(page.locator("[data-reveal]")).to_contain_text(expected[5]["why"][-60:])

    # Step 8: the grid's own cells; Tab into the grid, arrows, Enter picks.
    next_step(page, 6)
    next_step(page, 7)
    row, col = expected[7]["accept"]["cells"][0]
    page.locator("table.lesson-pickable td[tabindex='0']").first.focus()
    for _ in range(row - 1):
        page.keyboard.press("ArrowDown")
    for _ in range(col - 1):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.locator(".cell-pick")).to_contain_text(f"row {row} (")
    press_on(page, "[data-commit]")
    expect(page.locator("[data-reveal]")).to_have_attribute("data-correct", "true")
    verdict = page.locator("[data-reveal] .lesson-verdict").text_content() or ""
    assert f"You predicted row {row} (" in verdict  # one order, the answer's: row, then column
    assert f"It is row {row} (" in verdict
    # A right answer's focus ring is the palette's accent, in both themes (the focus orange
    # round "Right." read as wrong).
    for theme in ("light", "dark"):
        page.evaluate("t => { document.documentElement.dataset.theme = t; }", theme)
        ring, accent = page.evaluate(RING)
        assert ring == accent, f"{theme}: the ring of a right reveal is {ring}, not the accent"
    page.evaluate("() => { delete document.documentElement.dataset.theme; }")
    expect(page.locator("td.lesson-answer")).to_have_count(len(expected[7]["accept"]["cells"]))

    # To the end: the summary names the questions missed or left.
    for step in range(8, 13):
        next_step(page, step)
    press_on(page, "[data-next]")
    summary = page.locator("[data-role=summary]")
    expect(summary).to_be_visible()
    expect(summary).to_contain_text("You answered 3 of 7 questions right.")
    expect(summary.get_by_role("button")).to_have_count(4 + 1)  # 4 to look at, Start again
    assert last_event(page)["answered"] == 4
    assert last_event(page)["correct"] == 3

    # The record stays in this browser: a reload shows the same progress and reveal.
    page.reload()
    rendered(page, 12)
    expect(page.locator("[data-role=progress]")).to_contain_text(
        "4 of 7 questions answered, 3 right"
    )


def test_presenter_mode_is_keyboard_driven(page: Page, server_url: str) -> None:
    open_present = f"{server_url}/lessons/why-scale?mode=present"
    page.goto(open_present)
    rendered(page, 0)
    expect(page.locator("#present-keys")).to_contain_text("R")
    page.locator("body").focus()
    page.keyboard.press("r")
    reveal = page.locator("[data-reveal]")
    expect(reveal).to_contain_text("It is ")
    expect(reveal).not_to_have_attribute("data-correct", "true")
    expect(page.locator("[data-role=figures]")).to_be_visible()
    page.locator("body").focus()
    page.keyboard.press("ArrowRight")
    rendered(page, 1)
    expect(page.locator("[data-reveal]")).to_have_count(0)  # hidden until revealed again
    page.keyboard.press("ArrowLeft")
    rendered(page, 0)
    size = page.eval_on_selector(".lesson-step h2", "h => parseFloat(getComputedStyle(h).fontSize)")
    assert size >= 28  # large type for a projector


@pytest.mark.parametrize("lesson_id", ["why-scale", "masks-and-order"])  # short, long answer
def test_presenter_shows_the_answer_beside_its_figure_at_1440_by_900(
    context: BrowserContext, server_url: str, artifacts: Path, lesson_id: str
) -> None:
    # At 1440 × 900 the answer sat on the screen's bottom edge and the figure below the fold.
    page = context.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{server_url}/lessons/{lesson_id}?mode=present")
    rendered(page, 0)
    page.locator("body").focus()
    page.keyboard.press("r")
    expect(page.locator("[data-reveal]")).to_contain_text("It is ")
    scroll_still(page)  # the scroll to the step has ended
    box = page.evaluate("""() => {
      const rect = (el) => el.getBoundingClientRect().toJSON();
      const fig = document.querySelector(".lesson-step-figures:not(.lesson-away) .lesson-figure");
      return { reveal: rect(document.querySelector("[data-reveal]")), figure: rect(fig),
               nav: rect(document.querySelector(".lesson-nav")), height: innerHeight };
    }""")
    reveal, figure, nav = box["reveal"], box["figure"], box["nav"]
    assert reveal["top"] >= 0, box  # the answer whole, above the nav
    assert reveal["bottom"] <= nav["top"], box
    assert figure["left"] >= reveal["right"], box  # beside the answer, not below it
    assert 0 <= figure["top"] < box["height"] / 2, box  # its top half of the screen
    page.screenshot(path=str(artifacts / f"lesson-present-{lesson_id}-1440x900.png"))
    page.close()


def test_editor_builds_shares_and_plays(page: Page, server_url: str) -> None:
    open_page(page, f"{server_url}/?preset=i-love-llms")
    page.evaluate("localStorage.removeItem('attention-lesson:draft')")
    press_on(page, "#fig-6 [data-lesson-add]")
    expect(page.locator("#fig-6 .lesson-add-status")).to_contain_text("Added as step 1")
    open_page(page, f"{server_url}/labs/masks")
    press_on(page, "#mask-kinds [data-lesson-add]")
    expect(page.locator("#mask-kinds .lesson-add-status")).to_contain_text("Added as step 2")

    page.goto(f"{server_url}/lessons/edit")
    page.locator("#lesson-editor[data-ready]").wait_for(state="attached")
    steps = page.locator("#editor-steps > li")
    expect(steps).to_have_count(2)
    page.get_by_label("Lesson title").fill("Weights, then masks")
    first = steps.nth(0)
    first.locator("[data-field=kind]").select_option("attends_most")
    first = page.locator("#editor-steps > li").nth(0)
    expect(first.locator("[data-field=prompt]")).to_have_value(
        "Which key does I (row 1) weigh most?"
    )
    first.locator("[data-field=row]").select_option("2")
    expect(first.locator("[data-field=prompt]")).to_have_value(
        "Which key does love (row 2) weigh most?"
    )
    # Alt+↓ inside the step moves it below the lab step; focus follows the step.
    first.locator("[data-field=title]").focus()
    page.keyboard.press("Alt+ArrowDown")
    moved = page.locator("#editor-steps > li").nth(1).locator(".editor-state")
    expect(moved).to_contain_text("Main page, Figure 6")
    press_on(page, "#editor-check")
    expect(page.locator("#editor-status")).to_contain_text(
        "The lesson is valid: 2 steps, 1 questions"
    )
    link = page.locator("#editor-link").input_value()
    assert "/lessons/play?l=" in link

    page.goto(link)
    rendered(page, 0)
    expect(page.locator(".lesson-title")).to_have_text("Weights, then masks")
    expect(page.locator("[data-figure='mask-kinds']")).to_have_count(1)
    next_step(page, 1)
    page.locator("input[type=radio]").nth(1).check()
    press_on(page, "[data-commit]")
    expect(page.locator("[data-reveal]")).to_have_attribute("data-correct", "true")


def test_offline_file_plays_from_disk(page: Page, tmp_path: Path) -> None:
    lesson, requests = open_offline(page, tmp_path, "masks-and-order")
    rendered(page, 0)
    n = len(lesson.steps)
    for step in range(n):
        question = page.locator("[data-question]")
        if question.count():
            kind = question.get_attribute("data-question")
            if kind == "cell_value":
                page.get_by_role("spinbutton", name="Your prediction").fill("0")
            elif kind == "click_cell":
                page.locator("table.lesson-pickable td[data-row]").first.click()
            else:
                for group in question.locator("fieldset").all():
                    group.locator("input").first.check()
            press_on(page, "[data-commit]")
            page.locator("[data-reveal][data-correct]").wait_for()
        if step + 1 < n:
            next_step(page, step + 1)
    press_on(page, "[data-next]")
    expect(page.locator("[data-role=summary]")).to_be_visible()
    event = last_event(page)
    assert event["done"] is True
    assert event["answered"] == event["questions"] == lesson.questions
    assert [u for u in requests if not u.startswith("file:")] == []
