"""Figure 3 embedded: the page's player over the page's grids, final frame when idle; it
plays by itself only with autoplay=1 (never inside a host page uninvited)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from page_helpers import after_layout
from playwright.sync_api import Browser, Page, expect

from tests.browser.embed_support import console_errors, embed_app_url, embed_browser
from tests.browser.page_helpers import element_source_text

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "embed_browser"]  # fixtures used by name


@pytest.fixture
def page(embed_browser: Browser) -> Iterator[Page]:
    # Reduced motion: the player must not start by itself.
    context = embed_browser.new_context(viewport={"width": 800, "height": 900},
                                        reduced_motion="reduce")  # fmt: skip
    page = context.new_page()
    yield page
    context.close()


def test_embedded_figure_3_steps_through_its_frames(page: Page, embed_app_url: str) -> None:
    errors = console_errors(page)
    page.goto(f"{embed_app_url}/embed/3?preset=i-love-llms")
    page.locator("#embed[data-drawn='true'] table.grid").first.wait_for(timeout=20_000)
    count = page.locator("[data-role=step-count]")
    narration = page.locator("[data-role=narration]")
    total = count.inner_text().split(" of ")[1]
    expect(count).to_have_text(f"Frame {total} of {total}")  # idle: the final frame
    assert "z_2 = (1.63, 0.14, 0.23, 0.63)" in element_source_text(narration)
    final = element_source_text(narration)

    page.get_by_role("button", name="◀ Step back").click()
    expect(count).to_have_text(f"Frame {int(total) - 1} of {total}")
    assert element_source_text(narration) != final
    page.keyboard.press("Tab")  # the controls are buttons: reachable by keyboard
    page.get_by_role("button", name="Step forward ▶").press("Enter")
    expect(count).to_have_text(f"Frame {total} of {total}")
    expect(narration).to_have_attribute("data-notation", final)  # the text as written
    assert errors == []


def test_figure_3_embed_waits_for_a_click_unless_autoplay(
    embed_browser: Browser, embed_app_url: str
) -> None:
    """Motion welcome (no reduced-motion preference): still no autoplay without the flag;
    with autoplay=1 it starts at frame 1 once in view. The grids are the page's tables."""
    context = embed_browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    count = page.locator("[data-role=step-count]")
    try:
        page.goto(f"{embed_app_url}/embed/3?preset=i-love-llms")
        page.locator("#embed[data-drawn='true'] table.grid").first.wait_for(timeout=20_000)
        total = count.inner_text().split(" of ")[1]
        after_layout(page)  # in view for a frame: an autoplay would have started by now
        expect(count).to_have_text(f"Frame {total} of {total}")
        expect(page.locator("[data-step=play]")).to_have_attribute("aria-pressed", "false")
        assert page.locator("#plot .main-svg").count() == 0  # no Plotly in a grid embed
        page.goto(f"{embed_app_url}/embed/3?preset=i-love-llms&autoplay=1")
        expect(page.locator("[data-step=play]")).to_have_attribute("aria-pressed", "true")
        assert count.inner_text() != f"Frame {total} of {total}"
    finally:
        context.close()
