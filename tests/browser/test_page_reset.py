"""Reset while a cell is still being typed in: the page returns to the preset, whatever
order the cell's events and Reset's come in. A click on Reset commits the cell first (its
blur, at mousedown); a script's click or a keyboard shortcut leaves focus in the cell, and
Reset discards what it holds (main.js, discardTypedCell). Either way no value typed before
Reset is written back into the reset state, and no answer for the edited state makes the
page look idle (aria-busy="false") before the preset's figures are drawn."""

from __future__ import annotations

from typing import Any

import pytest
from page_helpers import cell, wait_idle
from playwright.sync_api import Page

pytestmark = pytest.mark.browser

CELL = cell("x", 0, 0)
# Every number the figures show: data-value of every grid cell, in document order.
FIGURE_VALUES = "() => [...document.querySelectorAll('#figures td[data-value]')]" \
    ".map(td => td.dataset.value)"  # fmt: skip


def drawn(page: Page) -> Any:
    return page.evaluate(FIGURE_VALUES)


def assert_reset(page: Page, original: str, before: Any) -> None:
    wait_idle(page)
    assert page.input_value(CELL) == original
    assert "s=" not in page.url  # the preset's link, not an edited state's
    assert drawn(page) == before


def typed(page: Page, text: str) -> None:
    """Type into the cell without committing it (no Enter, focus stays in the cell)."""
    page.locator(CELL).fill(text)
    assert page.evaluate("document.activeElement.matches('input.cell')")


@pytest.fixture
def start(page: Page) -> tuple[Page, str, Any]:
    return page, page.input_value(CELL), drawn(page)


def test_reset_by_script_discards_the_cell_being_typed(start: tuple[Page, str, Any]) -> None:
    page, original, before = start
    for _ in range(3):  # the race was about one run in three: every order, every time
        typed(page, "7")
        page.evaluate("document.getElementById('reset').click()")  # focus stays in the cell
        assert_reset(page, original, before)


def test_reset_after_the_typed_value_was_drawn(start: tuple[Page, str, Any]) -> None:
    page, original, before = start
    typed(page, "7")
    wait_idle(page)  # the typing pause has passed: the figures show 7, uncommitted
    assert drawn(page) != before
    page.evaluate("document.getElementById('reset').click()")
    assert_reset(page, original, before)
    page.locator(CELL).blur()  # a late blur of the old cell changes nothing
    assert_reset(page, original, before)


def test_reset_by_mouse_and_by_keyboard(start: tuple[Page, str, Any]) -> None:
    page, original, before = start
    typed(page, "7")
    page.locator("#reset").click()  # mousedown blurs the cell: it commits, then Reset
    assert_reset(page, original, before)
    typed(page, "-3")
    page.locator("#reset").focus()  # a keyboard user moves to Reset (the cell commits)
    page.keyboard.press("Enter")
    assert_reset(page, original, before)
    typed(page, "5")
    page.locator("#reset").focus()
    page.keyboard.press("Space")
    assert_reset(page, original, before)
