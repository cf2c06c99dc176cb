"""Phones and colour: at 375 px every figure fits its box and every product stacks; text
contrast is at least 4.5 : 1 in both themes, for HTML (axe-core) and for the text Plotly
draws in SVG; grid cells keep their contrast after edits."""

from __future__ import annotations

import re
from typing import Any

import pytest
from axe_support import axe_violations
from page_helpers import cell, open_page, set_cell, wait_idle, wait_until
from playwright.sync_api import Page

from app.figures.grid import contrast

pytestmark = pytest.mark.browser

# Render every panel (off-screen ones skip rendering otherwise) so geometry and axe see all.
SHOW_ALL = "[data-figure] { content-visibility: visible !important; }"

WIDTHS_JS = """() => [...document.querySelectorAll('[data-figure]')].map(p => {
  const box = p.getBoundingClientRect();
  let widest = 0;
  for (const el of p.querySelectorAll('*')) {
    // words for screen readers only sit in a clipped 1 px box (their MathML still
    // reports its own width)
    if (el.closest('.visually-hidden')) continue;
    const r = el.getBoundingClientRect();
    if (r.width) widest = Math.max(widest, r.right - box.left);
  }
  return [Number(p.dataset.figure), Math.round(widest), Math.round(box.width)];
})"""


def phone(page: Page, server_url: str, scheme: str = "light") -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.set_viewport_size({"width": 375, "height": 800})
    open_page(page, server_url + "/")
    page.add_style_tag(content=SHOW_ALL)


@pytest.fixture
def restore(shared_page: Page) -> Any:
    """The session's page, put back to 1280 px and light after the test. Not ``page``: every
    test here opens its own address first, so the running example's load would be wasted."""
    page = shared_page
    yield page
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 1280, "height": 900})


def test_at_375_px_no_figure_is_wider_than_its_box(restore: Page, server_url: str) -> None:
    page = restore
    phone(page, server_url)
    widths = page.evaluate(WIDTHS_JS)
    assert sorted(n for n, _, _ in widths) == list(range(1, 14))
    too_wide = [(n, w, box) for n, w, box in widths if w > box + 1]
    assert too_wide == [], f"figure, widest content, box: {too_wide}"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # Nothing scrolls sideways inside a figure either (Figures 5 and 10 draw top to bottom).
    scrolling = page.evaluate(SCROLLERS_JS)
    assert scrolling == [], f"figure, element, scrollWidth, clientWidth: {scrolling}"


SCROLLERS_JS = """() => [...document.querySelectorAll('[data-figure] *')]
  .filter(el => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0
                && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
  .map(el => [el.closest('[data-figure]').dataset.figure, el.className, el.scrollWidth,
              el.clientWidth])"""


# Figure 5's and 10's boxes, in the order drawn, with their centres in pixels.
BOXES_JS = """n => {
  const plot = document.querySelector(`#fig-${n} .js-plotly-plot`);
  const texts = [...plot.querySelectorAll('.annotation-text')].map(t => t.textContent);
  return [plot.layout.height, texts, plot.getBoundingClientRect().width];
}"""

WIDE_AGAIN_JS = (
    "n => { try { const [h, , w] = ("
    + BOXES_JS
    + ")(n); return h != null && h < w; } catch { return false; } }"
)


@pytest.mark.parametrize("n", [5, 10])
def test_at_375_px_figures_5_and_10_run_top_to_bottom(
    restore: Page, server_url: str, n: int
) -> None:
    page = restore
    phone(page, server_url)
    height, texts, width = page.evaluate(BOXES_JS, n)
    assert width <= 375
    # The portrait variant: taller than wide, the same steps and shapes as the wide one.
    assert height > width, (height, width)
    for step in ["Softmax", "Z", "V"] if n == 5 else ["softmax", "W", "Z", "3 × 3"]:
        assert any(step in t for t in texts), (step, texts)
    # Back at a desktop width the wide diagram returns (the breakpoint redraws it).
    page.set_viewport_size({"width": 1280, "height": 900})
    # Up to 90 s, as every wait of the suite is bounded (a condition, so a long bound costs
    # nothing when it comes): the breakpoint's redraw is a request to the server, and on
    # CI's loaded machine it took more than 5 s, once more than 30 s (both cases failed
    # there, one after the other, and passed alone). While Plotly redraws, the layout has
    # no height yet (or no plot at all).
    wait_until(page, WIDE_AGAIN_JS, n, timeout=90_000)
    # Then idle: the breakpoint's request may still be drawing (Plotly.react clears the
    # layout's height while it redraws), and a read in between raced on a loaded machine.
    wait_idle(page)
    height, _, width = page.evaluate(BOXES_JS, n)
    assert height is not None
    assert height < width, (height, width)


def test_at_375_px_products_stack_as_columns(restore: Page, server_url: str) -> None:
    page = restore
    phone(page, server_url)
    for n, names in ((4, ["x", "w_q", "q"]), (8, ["weights", "v", "output"]),
                     (7, ["scores", "scaled", "weights"])):  # fmt: skip
        boxes = [page.locator(f'#fig-{n} [data-grid="{g}"]').first.bounding_box() for g in names]
        assert all(boxes), (n, boxes)
        tops = [b["y"] for b in boxes if b]
        assert tops == sorted(tops), f"Figure {n}: {names} do not run top to bottom"
        lefts = {round(b["x"]) for b in boxes if b}
        assert max(lefts) - min(lefts) < 80, f"Figure {n} is not one column: {lefts}"
    wide = page.locator("#fig-4 .panel-row").first.bounding_box()
    narrow = page.locator("#fig-4").bounding_box()
    assert wide
    assert narrow
    assert wide["width"] <= narrow["width"]


def _axe_contrast(page: Page) -> list[dict[str, Any]]:
    return axe_violations(page, rules=["color-contrast"], serious_only=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [375, 1440])
def test_axe_colour_contrast_in_both_themes(
    restore: Page, server_url: str, scheme: str, width: int
) -> None:
    page = restore
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.set_viewport_size({"width": width, "height": 900})
    open_page(page, server_url + "/")
    page.add_style_tag(content=SHOW_ALL)
    set_cell(page, cell("x", 0, 0), "-2")  # negative numbers: the other end of the scales
    page.add_style_tag(content=SHOW_ALL)
    assert page.locator("table.grid td[data-value='-2']").count() >= 1
    bad = _axe_contrast(page)
    summary = [(v["id"], [n["target"] for n in v["nodes"][:5]]) for v in bad]
    assert bad == [], summary


RGB = re.compile(r"rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)")


def _hex(css: str) -> str | None:
    m = RGB.match(css)
    if not m or (m.group(4) is not None and float(m.group(4)) == 0):
        return None
    return "#" + "".join(f"{int(m.group(i)):02x}" for i in (1, 2, 3))


CELLS_JS = """() => [...document.querySelectorAll('table.grid td[data-row]')]
  .filter(td => td.textContent.trim())
  .map(td => [getComputedStyle(td).color, getComputedStyle(td).backgroundColor,
              td.closest('[data-grid]').dataset.grid])"""

SVG_TEXT_JS = """() => {
  const out = [];
  for (const panel of document.querySelectorAll('[data-figure]')) {
    const bg = getComputedStyle(panel).backgroundColor;
    for (const t of panel.querySelectorAll('.main-svg text')) {
      if (!t.textContent.trim()) continue;
      const style = getComputedStyle(t);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      out.push([panel.dataset.figure, t.textContent.slice(0, 30), style.fill,
                parseFloat(style.fontSize), bg, t.closest('.hm, .bars, .textpoint') !== null]);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_in_grid_cells_and_svg_reaches_4_5_to_1(
    restore: Page, server_url: str, scheme: str
) -> None:
    page = restore
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    open_page(page, server_url + "/?preset=i-love-llms&focus=1")
    page.add_style_tag(content=SHOW_ALL)
    cells = page.evaluate(CELLS_JS)
    assert len(cells) > 100
    pairs = [(g, _hex(fg) or "#000000", _hex(bg)) for fg, bg, g in cells]
    low = [(g, fg, bg) for g, fg, bg in pairs if bg and contrast(fg, bg) < 4.5]
    assert low == []
    texts = page.evaluate(SVG_TEXT_JS)
    assert texts, "no SVG text found (Figures 5, 10, 12, 13 draw with Plotly)"
    failing = []
    for fig, text, fill, size, bg, on_mark in texts:
        if on_mark:  # text on bars: checked against its bar below, not the page
            continue
        fg_hex, bg_hex = _hex(fill), _hex(bg)
        if not fg_hex or not bg_hex:
            continue
        need = 3.0 if size >= 24 else 4.5
        if contrast(fg_hex, bg_hex) < need:
            failing.append((fig, text, fill, bg))
    assert failing == []
