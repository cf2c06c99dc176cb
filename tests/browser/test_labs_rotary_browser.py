"""The rotary lab in Chromium: each section's question answered by keyboard before its
numbers show; J1's two grids printing the same scores after the shift; J2's two lines of
wavelengths; J3's head count changed by keyboard to one that is not a power of two, its
heads named with their slopes; at 1440 and 375 px in light and dark: no console error,
no sideways scroll, axe finds nothing serious; screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_support import axe_violations
from page_helpers import open_all_tables, source_text, wait_idle
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

SECTIONS = ("rotation", "wavelengths", "alibi")


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


def grid_texts(page: Page, name: str) -> list[str]:
    return page.eval_on_selector_all(
        f"#rotation [data-grid={name}] td[data-col]",
        "cells => cells.map(c => c.textContent.trim())",
    )


def check_rotation(page: Page) -> None:
    """Both placements' grids drawn, with the same printed scores; the caption says so."""
    here, moved = grid_texts(page, "scores"), grid_texts(page, "scores-moved")
    assert len(here) == 25, here
    assert here == moved
    caption = source_text(page, "#rotation [data-role=caption]")
    assert "every score stays the same" in caption, caption
    assert "100 … 104" in caption, caption
    offsets = grid_texts(page, "offsets")
    assert offsets[:5] == ["0", "−1", "−2", "−3", "−4"], offsets


def check_wavelengths(page: Page) -> None:
    lines = page.evaluate(
        "document.querySelector('#wavelengths .js-plotly-plot').data.map(t => t.y.length)"
    )
    assert lines == [64, 64], lines  # d = 128: 64 pairs, two bases
    caption = source_text(page, "#wavelengths [data-role=caption]")
    assert "54,410.14 with base 10,000" in caption, caption


def check_alibi_by_keyboard(page: Page) -> None:
    """Heads 8 -> 12 typed and entered: the rule for a count that is not a power of two."""
    expect(page.locator("#alibi [data-role=caption]")).to_contain_text("a power of two")
    field = page.locator("#alibi--heads")
    field.focus()
    field.fill("12")
    field.press("Enter")
    wait_idle(page)
    expect(page.locator("#alibi [data-role=caption]")).to_contain_text(
        "12 heads, not a power of two"
    )
    options = page.eval_on_selector_all(
        "#alibi--head option:not([hidden])", "os => os.map(o => o.textContent.trim())"
    )
    assert len(options) == 12, options
    assert options[8] == "head 9 (m = 2^−0.5 ≈ 0.7071)", options
    assert "heads=12" in page.url
    field.fill("8")
    field.press("Enter")
    wait_idle(page)


@pytest.mark.parametrize(
    ("scheme", "width"), [("light", 1440), ("dark", 1440), ("light", 375), ("dark", 375)]
)
def test_rotary_lab_layouts_and_questions(
    browser: Browser, server_url: str, artifacts: Path, scheme: str, width: int
) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                              reduced_motion="reduce")  # fmt: skip
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server_url}/labs/rotary")
        wait_idle(page)
        for figure in SECTIONS:  # each hides its numbers until a guess is checked
            assert not page.is_visible(f"#{figure} [data-role=caption]"), figure
            answer_by_keyboard(page, figure)
        check_rotation(page)
        check_wavelengths(page)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"scrolls sideways at {width} px: {scroll}"
        if scheme == "dark":
            paper = page.evaluate(
                "[...document.querySelectorAll('.js-plotly-plot')].map(p => p.layout.paper_bgcolor)"
            )
            assert len(paper) == 2, paper  # J2's wavelengths and J3's locality
            assert all(p.lower() not in ("#fff", "#ffffff", "white") for p in paper), paper
        page.screenshot(path=str(artifacts / f"lab-rotary-{scheme}-{width}.png"), full_page=True)
        for figure in SECTIONS:
            page.locator(f"#{figure}").screenshot(
                path=str(artifacts / f"lab-rotary-{figure}-{scheme}-{width}.png")
            )
        assert errors == [], errors
        if width == 1440:
            open_all_tables(page, "details")
            bad = axe_violations(page)
            summary = [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
            assert bad == [], summary
    finally:
        ctx.close()


def test_alibi_heads_change_by_keyboard(browser: Browser, server_url: str) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/labs/rotary")
        wait_idle(page)
        answer_by_keyboard(page, "alibi")
        check_alibi_by_keyboard(page)
    finally:
        ctx.close()


def test_a_shift_typed_by_keyboard_keeps_the_scores(browser: Browser, server_url: str) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/labs/rotary?n=4")
        wait_idle(page)
        answer_by_keyboard(page, "rotation")
        before = grid_texts(page, "scores")
        field = page.locator("#rotation--shift")
        field.focus()
        field.fill("4000")
        field.press("Enter")
        wait_idle(page)
        expect(page.locator("#rotation [data-role=caption]")).to_contain_text("4,000 … 4,003")
        assert grid_texts(page, "scores-moved") == before
        assert "shift=4000" in page.url
    finally:
        ctx.close()
