"""A "which way does it move?" question on a real model's head, made from the page (issue
28 item 4): added with "Add to lesson" on the tiny decoder's induction head, the editor's
direction question switches the head's scaling in the head's own link (a few bytes, not
its 114 kB state), Check finds it valid, and the played step reveals the server's answer
with the head before and after the change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import pytest
from page_helpers import open_page
from playwright.sync_api import BrowserContext, Page, expect

pytestmark = pytest.mark.browser
HEAD = {"model": "tiny-decoder", "text": "kqzfmbwd kqzfmbwd", "layer": "2", "head": "2"}


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    assert errors == []
    page.close()


def test_a_direction_question_on_a_head_switches_its_scaling_exactly(
    page: Page, server_url: str, artifacts: Path
) -> None:
    open_page(page, f"{server_url}/?{urlencode(HEAD)}")
    page.evaluate("localStorage.clear()")
    page.locator("#fig-6 [data-lesson-add]").click()
    expect(page.locator("#fig-6 .lesson-add-status")).to_contain_text("Added as step 1")

    page.goto(f"{server_url}/lessons/edit")
    page.locator("#lesson-editor[data-ready]").wait_for(state="attached")
    step = page.locator("#editor-steps > li").nth(0)
    step.locator("[data-field=kind]").select_option("direction")
    step = page.locator("#editor-steps > li").nth(0)
    step.locator("[data-field=quantity]").select_option("entropy")
    step = page.locator("#editor-steps > li").nth(0)
    step.locator("[data-field=row]").select_option("14")
    page.locator("#editor-check").click()
    expect(page.locator("#editor-status")).to_contain_text("The lesson is valid")
    draft = page.evaluate("JSON.parse(localStorage.getItem('attention-lesson:draft'))")
    change = draft["steps"][0]["question"]["change"]
    assert len(change) < 200, len(change)  # the head's link and the switch
    assert {k: v[0] for k, v in parse_qs(change).items() if k in HEAD} == HEAD
    assert parse_qs(change)["scale"] == ["0"]

    page.goto(page.locator("#editor-link").input_value())
    page.locator("#lesson-player[data-rendered='0']").wait_for(state="attached")
    after = page.locator(".lesson-step-figures:not(.lesson-away) [data-after]")
    expect(after).to_be_hidden()
    # Without the division by √d_k the scores spread 4 times wider: m's row sharpens.
    page.get_by_role("radio", name="down").check()
    page.get_by_role("button", name="Check").click()
    reveal = page.locator("[data-reveal]")
    expect(reveal).to_have_attribute("data-correct", "true")
    expect(reveal).to_contain_text("It is down: 0.34 bits →")
    expect(after).to_be_visible()
    expect(after).to_contain_text("After the change")
    after.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "lesson-model-direction.png"), full_page=True)
