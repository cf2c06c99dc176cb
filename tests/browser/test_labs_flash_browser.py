"""The flash lab in Chromium: the tiles drawn with their edges, each section's question
answered by keyboard before its numbers show, the online softmax stepped by keyboard
(the rescaling at step 2, the one-shot equality at the end), at 1440 and 375 px in light
and dark: no console error, no sideways scroll, axe finds nothing serious; screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_support import axe_violations
from page_helpers import open_all_tables, source_text, wait_idle
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

SECTIONS = ("tiles", "online", "traffic")


def answer_by_keyboard(page: Page, figure: str) -> None:
    """Pick the first choice of the section's question with Space, Tab to Check, Enter."""
    first = page.locator(f"#{figure} [data-role=choices] input").first
    first.focus()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.role") == "check"
    page.keyboard.press("Enter")
    expect(page.locator(f"#{figure} [data-role=result]")).to_contain_text("You predicted")
    expect(page.locator(f"#{figure} [data-role=caption]")).to_be_visible()


def step_count(page: Page) -> str:
    return page.inner_text("#online [data-role=step-count]")


def press_step(page: Page, which: str, key: str = "Enter") -> None:
    page.focus(f"#online [data-step={which}]")
    page.keyboard.press(key)


def check_stepper(page: Page) -> None:
    """Idle on the final frame; back to step 2 by keyboard (the rescaling), forward again."""
    expect(page.locator("#online [data-role=step-count]")).to_have_text("Step 4 of 4")
    caption = page.locator("#online [data-role=caption]")
    expect(caption).to_contain_text("max |tiled − one-shot|")
    press_step(page, "back")
    expect(page.locator("#online [data-role=step-count]")).to_have_text("Step 3 of 4")
    press_step(page, "back", "Space")
    expect(page.locator("#online [data-role=step-count]")).to_have_text("Step 2 of 4")
    text = source_text(page, "#online [data-role=caption]")
    assert "a larger score arrived (m̃ = 0.5 > m = −1.5)" in text, text
    assert "e^(−1.5 − 0.5) = 0.1353" in text, text
    outlined = page.locator("#online [data-grid=scores] td.col-outlined")
    assert outlined.count() == 2 * 2  # the tile of keys 3–4, two rows
    press_step(page, "forward")
    press_step(page, "forward")
    expect(page.locator("#online [data-role=step-count]")).to_have_text("Step 4 of 4")
    expect(page.locator("#online [data-grid=output-one-shot]")).to_be_visible()


def check_tiles(page: Page) -> None:
    grid = page.locator("#tiles [data-grid=scores]")
    expect(grid).to_be_visible()
    assert grid.locator("td.tile-top").count() == 3 * 8  # rows 3, 5 and 7 start a tile
    assert grid.locator("td.tile-left").count() == 3 * 8
    # the edge is drawn: a 2 px line in the text colour above a tile's first row
    width = page.evaluate(
        "getComputedStyle(document.querySelector('#tiles td.tile-top'), '::before').borderTopWidth"
    )
    assert width == "2px", width


@pytest.mark.parametrize(
    ("scheme", "width"), [("light", 1440), ("dark", 1440), ("light", 375), ("dark", 375)]
)
def test_flash_lab_layouts_questions_and_stepper(
    browser: Browser, server_url: str, artifacts: Path, scheme: str, width: int
) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                              reduced_motion="reduce")  # fmt: skip
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server_url}/labs/flash")
        wait_idle(page)
        for figure in SECTIONS:  # each hides its numbers until a guess is checked
            assert not page.is_visible(f"#{figure} [data-role=caption]"), figure
            answer_by_keyboard(page, figure)
        check_tiles(page)
        check_stepper(page)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"scrolls sideways at {width} px: {scroll}"
        if scheme == "dark":
            paper = page.evaluate(
                "[...document.querySelectorAll('.js-plotly-plot')].map(p => p.layout.paper_bgcolor)"
            )
            assert paper, "no chart"
            assert all(p.lower() not in ("#fff", "#ffffff", "white") for p in paper), paper
        page.screenshot(path=str(artifacts / f"lab-flash-{scheme}-{width}.png"), full_page=True)
        for figure in SECTIONS:
            page.locator(f"#{figure}").screenshot(
                path=str(artifacts / f"lab-flash-{figure}-{scheme}-{width}.png")
            )
        assert errors == [], errors
        if width == 1440:
            open_all_tables(page, "details")
            bad = axe_violations(page)
            summary = [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
            assert bad == [], summary
    finally:
        ctx.close()


def test_a_changed_state_redraws_the_stepper(browser: Browser, server_url: str) -> None:
    """N and M from the keyboard: the tiles and the stepper's frames follow the server."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/labs/flash?tiles.sram=48")
        wait_idle(page)
        answer_by_keyboard(page, "online")
        expect(page.locator("#online [data-role=step-count]")).to_have_text("Step 3 of 3")
        field = page.locator("#tiles--n")
        field.fill("12")
        field.press("Enter")
        wait_idle(page)
        expect(page.locator("#online [data-role=step-count]")).to_have_text("Step 4 of 4")
        assert "n=12" in page.url
    finally:
        ctx.close()
