"""The generation lab in Chromium: each section's question answered by keyboard before its
numbers show, the decoding stepped by keyboard (each step's output equal to the one-pass
row), the cache's bars, the grouped weights and the sink's eviction drawn, at 1440 and
375 px in light and dark: no console error, no sideways scroll, axe finds nothing
serious; screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_support import axe_violations
from page_helpers import open_all_tables, source_text, wait_idle
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

SECTIONS = ("decode", "cache", "shared", "windows")


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


def press_step(page: Page, which: str, key: str = "Enter") -> None:
    page.focus(f"#decode [data-step={which}]")
    page.keyboard.press(key)


def check_stepper(page: Page) -> None:
    """Idle on the last step; back to step 3 by keyboard, its cache of 3 rows; forward."""
    count = page.locator("#decode [data-role=step-count]")
    expect(count).to_have_text("Step 5 of 5")
    caption = page.locator("#decode [data-role=caption]")
    expect(caption).to_contain_text("max |cached − one pass| = 0")
    press_step(page, "back")
    expect(count).to_have_text("Step 4 of 5")
    press_step(page, "back", "Space")
    expect(count).to_have_text("Step 3 of 5")
    text = source_text(page, "#decode [data-role=caption]")
    assert "the cache, which now holds 3 rows" in text, text
    assert "max |difference| = 0" in text, text
    assert page.locator("#decode [data-grid=k] tbody tr").count() == 3
    press_step(page, "forward")
    press_step(page, "forward")
    expect(count).to_have_text("Step 5 of 5")


def check_sections(page: Page) -> None:
    expect(page.locator("#cache .js-plotly-plot")).to_be_visible()
    bars = page.evaluate("document.querySelector('#cache .js-plotly-plot').data[0].x.length")
    assert bars == 7  # six presets and the learner's model
    expect(page.locator("#shared [data-grid=weights-grouped]")).to_be_visible()
    expect(page.locator("#windows [data-grid=weights-last]")).to_be_visible()
    text = source_text(page, "#windows [data-role=caption]")
    assert "Token 1 holds 0.7768 of token 12's weight" in text, text


@pytest.mark.parametrize(
    ("scheme", "width"), [("light", 1440), ("dark", 1440), ("light", 375), ("dark", 375)]
)
def test_generation_lab_layouts_questions_and_stepper(
    browser: Browser, server_url: str, artifacts: Path, scheme: str, width: int
) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                              reduced_motion="reduce")  # fmt: skip
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server_url}/labs/generation")
        wait_idle(page)
        for figure in SECTIONS:  # each hides its numbers until a guess is checked
            assert not page.is_visible(f"#{figure} [data-role=caption]"), figure
            answer_by_keyboard(page, figure)
        check_stepper(page)
        check_sections(page)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"scrolls sideways at {width} px: {scroll}"
        if scheme == "dark":
            paper = page.evaluate(
                "[...document.querySelectorAll('.js-plotly-plot')].map(p => p.layout.paper_bgcolor)"
            )
            assert paper, "no chart"
            assert all(p.lower() not in ("#fff", "#ffffff", "white") for p in paper), paper
        page.screenshot(path=str(artifacts / f"lab-generation-{scheme}-{width}.png"),
                        full_page=True)  # fmt: skip
        for figure in SECTIONS:
            page.locator(f"#{figure}").screenshot(
                path=str(artifacts / f"lab-generation-{figure}-{scheme}-{width}.png")
            )
        assert errors == [], errors
        if width == 1440:
            open_all_tables(page, "details")
            bad = axe_violations(page)
            summary = [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
            assert bad == [], summary
    finally:
        ctx.close()


def test_a_changed_state_redraws_the_stepper_and_the_groups(
    browser: Browser, server_url: str
) -> None:
    """Tokens and kv_heads from the keyboard: the frames and the grouped heads follow."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/labs/generation")
        wait_idle(page)
        answer_by_keyboard(page, "decode")
        field = page.locator("#decode--tokens")
        field.fill("7")
        field.press("Enter")
        wait_idle(page)
        expect(page.locator("#decode [data-role=step-count]")).to_have_text("Step 7 of 7")
        assert "decode.tokens=7" in page.url
        answer_by_keyboard(page, "shared")
        kv = page.locator("#shared--kv_heads")
        kv.fill("1")
        kv.press("Enter")
        wait_idle(page)
        expect(page.locator("#shared [data-role=caption]")).to_contain_text("1 group of 4")
    finally:
        ctx.close()
