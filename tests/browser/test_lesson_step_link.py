"""A lesson's address names its step (issue 29): as the learner steps, the player writes
``?step=N`` (from 1, as "Step N of M" counts) into the address with history.replaceState,
the fragment kept; a reload, or the link opened in another browser, reopens that step; a
step the lesson does not have opens the start; the mode switch and the "Use in a course"
panel's link and snippets (when "Open at the step shown" is ticked) carry the step, and so
does the embed, inside its frame and in its "Open in Attention Lab" link. Each test in a
fresh context: no record left by another test decides the step."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from page_helpers import lesson_from_the_start
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.web.lesson_snippets import course_snippets, step_query

pytestmark = pytest.mark.browser


NewPage = Callable[[], Page]


@pytest.fixture
def fresh(browser: Browser) -> Iterator[NewPage]:
    """A way to open pages in new contexts (storage of their own), closed afterwards."""
    opened: list[BrowserContext] = []
    errors: list[str] = []

    def new_page() -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(60_000)
        opened.append(context)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        return page

    yield new_page
    for context in opened:
        context.close()
    assert errors == []


def rendered(page: Page, step: int) -> None:
    page.locator(f"#lesson-player[data-rendered='{step}']").wait_for(state="attached")


def step_to(page: Page, index: int) -> None:
    """Next until step ``index`` (from 0) is drawn."""
    at = int(page.locator("#lesson-player").get_attribute("data-rendered") or "0")
    while at < index:
        page.locator("[data-next]").click()
        at += 1
        rendered(page, at)


def test_the_address_follows_the_steps_and_reopens_them(fresh: NewPage, server_url: str) -> None:
    page = fresh()
    lesson_from_the_start(page, f"{server_url}/lessons/why-scale#player")
    assert page.url == f"{server_url}/lessons/why-scale?step=1#player"
    history = page.evaluate("history.length")
    step_to(page, 5)
    assert page.url == f"{server_url}/lessons/why-scale?step=6#player"
    assert page.evaluate("history.length") == history  # replaced, never pushed
    expect(page.locator("[data-role=progress]")).to_contain_text("Step 6 of 8")
    # The mode switch keeps the step and the lesson's own parameters.
    mode = page.locator("a[data-step-link]").evaluate("a => a.href")
    assert mode == f"{server_url}/lessons/why-scale?mode=present&step=6"

    page.reload()
    rendered(page, 5)
    page.locator("[data-prev]").click()
    rendered(page, 4)
    assert page.url == f"{server_url}/lessons/why-scale?step=5#player"

    # Shared: another browser, with no record, opens the step the link names.
    other = fresh()
    other.goto(f"{server_url}/lessons/why-scale?step=3")
    rendered(other, 2)
    expect(other.locator("[data-role=progress]")).to_contain_text("Step 3 of 8")
    for wrong in ("9", "0", "-1", "2.5", "abc", "99999"):
        other.goto(f"{server_url}/lessons/why-scale?step={wrong}")
        other.locator("#lesson-player[data-ready='true']").wait_for(state="attached")
        # Not a step of this lesson: the record's step (this browser's: step 3), and the
        # address is corrected to it.
        rendered(other, 2)
        assert other.url == f"{server_url}/lessons/why-scale?step=3"


def test_the_course_panel_offers_the_step(fresh: NewPage, server_url: str) -> None:
    page = fresh()
    lesson_from_the_start(page, f"{server_url}/lessons/why-scale")
    page.locator("#use-in-a-course > summary").click()
    panel = page.locator("#use-in-a-course")
    link = panel.locator("[data-role=course-link]")
    src = f"{server_url}/embed/lesson/why-scale"
    title = "Why divide by √d_k"
    plain = {s.key: s.text for s in course_snippets(src, title)}
    box = panel.get_by_label("Open at the step shown")
    expect(box).not_to_be_checked()
    step_to(page, 3)
    expect(panel.locator("[data-role=course-step-name]")).to_have_text("step 4 of 8")
    assert link.get_attribute("href") == f"{server_url}/lessons/why-scale"

    box.check()
    assert link.get_attribute("href") == f"{server_url}/lessons/why-scale?step=4"
    assert link.text_content() == f"{server_url}/lessons/why-scale?step=4"
    # Every snippet is the server's own snippet for that step, character for character.
    stepped = {s.key: s.text for s in course_snippets(step_query(src, 4), title)}
    for key, text in stepped.items():
        assert panel.locator(f'[data-snippet="{key}"]').text_content() == text, key

    step_to(page, 6)  # it follows the player
    stepped = {s.key: s.text for s in course_snippets(step_query(src, 7), title)}
    assert panel.locator('[data-snippet="mystmd"]').text_content() == stepped["mystmd"]
    assert link.get_attribute("href") == f"{server_url}/lessons/why-scale?step=7"

    box.uncheck()  # the lesson from its start again
    assert link.get_attribute("href") == f"{server_url}/lessons/why-scale"
    for key, text in plain.items():
        assert panel.locator(f'[data-snippet="{key}"]').text_content() == text, key


def test_the_embed_opens_and_keeps_its_step(fresh: NewPage, server_url: str) -> None:
    page = fresh()
    page.goto(f"{server_url}/embed/lesson/why-scale?step=2#lesson")
    rendered(page, 1)
    step_to(page, 2)
    assert page.url == f"{server_url}/embed/lesson/why-scale?step=3#lesson"
    open_link = page.locator("#open-link").evaluate("a => a.href")
    assert open_link == f"{server_url}/lessons/why-scale?step=3"
    page.reload()
    rendered(page, 2)
