"""'Masks and order' in Chromium: its step on the tiny decoder's head (the model's own
weights, drawn and asked) and its teacher's own multiple-choice question, each answered by
keyboard and revealed, at 1440 and 375 px, light and dark (screenshots in the artifacts
folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import lesson_from_the_start
from playwright.sync_api import BrowserContext, Page, expect

from app.lessons.answers import answer_lesson
from app.lessons.builtin import get_builtin

pytestmark = pytest.mark.browser
LESSON = "masks-and-order"


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    assert errors == []
    page.close()


def answers() -> list[Any]:
    lesson = get_builtin(LESSON)
    assert lesson is not None
    return list(answer_lesson(lesson))


def index_of(kind: str) -> int:
    """The first step whose question is ``kind`` (a model head's: its state opens one)."""
    lesson = get_builtin(LESSON)
    assert lesson is not None
    for i, s in enumerate(lesson.steps):
        query = getattr(s.state, "query", "")
        if s.question is not None and ((kind == "model" and "model=" in query)
                                       or s.question.kind == kind):  # fmt: skip
            return i
    raise AssertionError(kind)


def open_step(page: Page, url: str, step: int) -> None:
    lesson_from_the_start(page, url)
    for n in range(1, step + 1):
        page.locator("[data-next]").first.focus()
        page.keyboard.press("Enter")
        page.locator(f"#lesson-player[data-rendered='{n}']").wait_for(state="attached")


def choose(page: Page, choices: list[str], right: str) -> None:
    radios = page.locator("[data-question] input[type=radio]")
    expect(radios).to_have_count(len(choices))
    radios.first.focus()
    page.keyboard.press("Space")
    for _ in range(choices.index(right)):
        page.keyboard.press("ArrowRight")
    page.locator("[data-commit]").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("[data-reveal]")).to_have_attribute("data-correct", "true")


@pytest.mark.parametrize("width", [1440, 375])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_head_step_and_the_teachers_question_play(
    page: Page, server_url: str, artifacts: Path, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    expected = answers()
    url = f"{server_url}/lessons/{LESSON}"
    head = index_of("model")
    open_step(page, url, head)
    a = expected[head]
    choose(page, [c["id"] for c in a["choices"]], a["accept"]["choice"])
    expect(page.locator("[data-reveal]")).to_contain_text(f"It is {a['answer']}")
    grid = page.locator("[data-role=figures] [data-grid='weights'] >> visible=true").first
    expect(grid).to_be_visible()
    page.screenshot(path=str(artifacts / f"lesson-head-step-{width}-{scheme}.png"), full_page=True)
    own = index_of("multiple_choice")
    open_step(page, url, own)
    a = expected[own]
    choose(page, [c["id"] for c in a["choices"]], a["accept"]["choice"])
    # A choice is a sentence: quoted, so the verdict reads as two sentences, not one.
    expect(page.locator("[data-reveal]")).to_contain_text(
        f"Right. You chose “{a['answer']}”. The answer is “{a['answer']}”."
    )
    expect(page.locator("[data-reveal]")).to_contain_text(a["why"][-50:])
    page.screenshot(path=str(artifacts / f"lesson-own-step-{width}-{scheme}.png"), full_page=True)
