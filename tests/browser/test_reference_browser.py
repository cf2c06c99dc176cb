"""In Chromium: the notation drawn as MathML on the main page (figure titles, captions,
readouts, grid titles, table headers), glossary tooltips on hover and on focus (Escape
hides them), the header's Notation link opening the key, and axe on /sources and
/glossary in both themes. One page load per check group (the suite's budget)."""

from __future__ import annotations

import pytest
from axe_support import axe_violations, summary
from page_helpers import open_all_tables, open_page, wait_idle
from playwright.sync_api import Page

pytestmark = pytest.mark.browser


# Text outside <math> that still holds notation: the renderer missed a sink.
RAW_NOTATION_JS = """() => {
  const raw = /(^|[^A-Za-z0-9_])(W\\^[QKVO]|d_(k|v|model)|L_[QK]|[qkvz]_[0-9])(?![A-Za-z0-9_])/;
  const root = document.querySelector("main");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('math, script, style, input, textarea, option, pre')) continue;
    if (raw.test(node.textContent)) found.push(node.textContent.trim().slice(0, 80));
  }
  return found;
}"""


def test_the_page_draws_its_notation_as_mathml(page: Page) -> None:
    open_all_tables(page)
    assert page.evaluate(RAW_NOTATION_JS) == []
    # Grid titles (Figure 4's W^Q, W^K, W^V) and the readouts carry MathML with a name.
    titles = page.locator("#fig-4 caption .grid-label math")
    assert titles.count() >= 3
    assert titles.first.get_attribute("aria-label") == "W Q"
    assert titles.first.get_attribute("alttext") == "W^Q"
    assert page.locator("[data-role=readout] math").count() >= 1
    assert page.locator(".intro math").count() >= 2  # √d_k, typed in the template
    assert page.locator("[data-figure] .try-lab a").count() >= 10


def test_terms_show_their_definition_on_hover_and_focus(page: Page) -> None:
    term = page.locator(".intro a.term[href='/glossary#d_k']")
    tip = page.locator("#" + (term.get_attribute("aria-describedby") or "missing"))
    assert tip.get_attribute("role") == "tooltip"
    assert not tip.is_visible()
    term.hover()
    assert tip.is_visible()
    assert "The width of a query" in tip.inner_text()
    page.mouse.move(0, 0)
    assert not tip.is_visible()
    term.focus()
    assert tip.is_visible()
    box = tip.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= page.viewport_size["width"] if page.viewport_size else True
    page.keyboard.press("Escape")
    assert not tip.is_visible()
    page.keyboard.press("Tab")  # the focus moves on: tooltips may show again
    assert page.evaluate("document.documentElement.classList.contains('tips-hidden')") is False
    # The header's Notation link opens the key.
    page.click(".site-nav a[data-opens=notation]")
    assert page.locator("details#notation").evaluate("d => d.open") is True


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_reference_pages_pass_axe(shared_page: Page, server_url: str, scheme: str) -> None:
    page = shared_page
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    try:
        for path in ("/sources", "/glossary"):
            open_page(page, server_url + path)
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            bad = summary(axe_violations(page))
            assert bad == [], (path, scheme, bad)
            assert page.locator(".site-nav a[aria-current=page]").count() == 1
            assert page.locator("main math").count() >= 3
        page.set_viewport_size({"width": 375, "height": 800})
        page.reload()
        wait_idle(page)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
    finally:
        page.emulate_media(color_scheme="light")
        page.set_viewport_size({"width": 1280, "height": 900})
