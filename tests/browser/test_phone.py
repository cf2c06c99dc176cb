"""A phone (375 × 812): the figures come first (the editor folds, one labelled tap away),
the sticky bar is compact and never covers an anchored figure's title, no figure's text
is clipped, every heatmap has a colour legend, masked cells are hatched, wide tables and
grids scroll inside a labelled box with a cue, and axe passes in both themes. One page
load per scenario; each checks many things."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from axe_support import axe_violations, summary
from page_helpers import after_layout, wait_idle, wait_until
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 812}
# Off-screen panels skip rendering; geometry, legends and axe need them all drawn.
SHOW_ALL = "[data-figure] { content-visibility: visible !important; }"


@pytest.fixture
def phone(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    scheme = getattr(request, "param", "light")
    context = browser.new_context(viewport=PHONE, color_scheme=scheme, reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert errors == []


TITLE_BELOW_BAR_JS = """() => {
  const bar = document.querySelector('.toolbar').getBoundingClientRect();
  const title = document.getElementById('fig-6-title').getBoundingClientRect();
  return bar.bottom <= title.top && title.top <= bar.bottom + 40;
}"""


def open_at(page: Page, url: str) -> None:
    page.goto(url)
    wait_idle(page)


# Text clipped in a figure: HTML text outside its panel unless inside a box that scrolls;
# an ellipsis cut; Plotly text outside its SVG, over another label, or spilling out of the
# diagram box it sits in.
CLIPPED_JS = """() => {
  const out = [];
  const inside = (a, b, tol) => a.left >= b.left - tol && a.right <= b.right + tol
    && a.top >= b.top - tol && a.bottom <= b.bottom + tol;
  const scrolls = (el) => {
    for (let p = el.parentElement; p && !p.matches('[data-figure]'); p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if ((o === 'auto' || o === 'scroll') && p.scrollWidth > p.clientWidth + 1) return true;
    }
    return false;
  };
  for (const panel of document.querySelectorAll('[data-figure]')) {
    const fig = panel.dataset.figure;
    const box = panel.getBoundingClientRect();
    const texts = 'th, td, p, li, h2, h3, span, label, caption, button';
    for (const el of panel.querySelectorAll(texts)) {
      if (el.closest('.main-svg, .visually-hidden, [hidden], details:not([open])')) continue;
      const r = el.getBoundingClientRect();
      const text = el.textContent.trim().slice(0, 30);
      if (!r.width || !text) continue;
      if (getComputedStyle(el).overflowX === 'hidden' && el.scrollWidth > el.clientWidth + 1)
        out.push([fig, 'cut', text]);
      if (!inside(r, box, 1.5) && !scrolls(el)) out.push([fig, 'outside', text]);
    }
    for (const plot of panel.querySelectorAll('.js-plotly-plot')) {
      const svg = plot.querySelector('.main-svg').getBoundingClientRect();
      const texts = [...plot.querySelectorAll('.main-svg text')].filter(t =>
        t.textContent.trim() && !t.closest('.hoverlayer')
        && getComputedStyle(t).visibility !== 'hidden' && getComputedStyle(t).display !== 'none');
      const rects = texts.map(t => t.getBoundingClientRect());
      const boxes = [...plot.querySelectorAll('.shapelayer path')]
        .map(p => p.getBoundingClientRect()).filter(r => r.width > 8 && r.height > 8);
      texts.forEach((t, i) => {
        const r = rects[i];
        const text = t.textContent.trim().slice(0, 30);
        if (!r.width) return;
        if (!inside(r, svg, 1.5)) out.push([fig, 'outside the chart', text]);
        const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
        for (const s of boxes)
          if (cx > s.left && cx < s.right && cy > s.top && cy < s.bottom && !inside(r, s, 2))
            out.push([fig, 'spills out of its box', text]);
        for (let j = i + 1; j < texts.length; j++) {
          const o = rects[j];
          const w = Math.min(r.right, o.right) - Math.max(r.left, o.left);
          const h = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
          if (w > 2 && h > 2)
            out.push([fig, 'over another label', text + ' | ' + texts[j].textContent]);
        }
      });
    }
  }
  return out;
}"""

# Every drawn grid and its legend: [figure, grid, low, high, ramp image, masked text].
LEGENDS_JS = """() => [...document.querySelectorAll('.grid-host')]
  .filter(host => host.querySelector(':scope > table.grid, :scope > .grid-canvas'))
  .map(host => {
    const legend = host.querySelector(':scope > .grid-legend');
    const masked = legend?.querySelector('.legend-masked');
    return [host.closest('[data-figure]')?.dataset.figure, host.firstElementChild.dataset.grid,
            legend?.querySelector('.legend-low')?.textContent ?? null,
            legend?.querySelector('.legend-high')?.textContent ?? null,
            legend ? getComputedStyle(legend.querySelector('.legend-ramp')).backgroundImage : '',
            masked && !masked.hidden ? masked.textContent : null];
  })"""


def _axe(page: Page) -> list[Any]:
    return summary(axe_violations(page, serious_only=False))


@pytest.mark.parametrize("phone", ["light", "dark"], indirect=True)
def test_the_page_on_a_phone(phone: Page, server_url: str) -> None:
    page = phone
    open_at(page, server_url + "/")
    # Figure 1 starts on the first screen; the bar is two short rows.
    fig1 = page.locator("#fig-1").bounding_box()
    bar = page.locator(".toolbar").bounding_box()
    assert fig1
    assert bar
    assert fig1["y"] < PHONE["height"] - 40, f"Figure 1 starts at {fig1['y']} px"
    assert bar["height"] <= 90, f"the sticky bar is {bar['height']} px tall"
    # The editor is folded behind a labelled button that opens and closes it in place.
    toggle = page.locator("#editor-toggle")
    assert toggle.get_attribute("aria-controls") == "editor-body"
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not page.locator('input[data-matrix="x"]').first.is_visible()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert page.locator('input[data-matrix="x"]').first.is_visible()
    assert page.locator("#editor-body").bounding_box()["y"] < fig1["y"] + 100  # type: ignore[index]
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not page.locator('input[data-matrix="x"]').first.is_visible()

    page.add_style_tag(content=SHOW_ALL)
    after_layout(page)
    assert page.evaluate(CLIPPED_JS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    legends = page.evaluate(LEGENDS_JS)
    assert len(legends) >= 15
    for fig, grid, low, high, ramp, masked in legends:
        assert low, (fig, grid)
        assert high, (fig, grid)
        assert "linear-gradient" in ramp, (fig, grid, ramp)
        assert masked is None, (fig, grid, "nothing is masked without a mask")
    weights = [(low, high) for _, grid, low, high, _, _ in legends if grid == "weights"]
    assert set(weights) == {("0", "1")}
    assert _axe(page) == []


def test_a_link_to_figure_6_shows_its_title_below_the_bar_and_the_mask_hatched(
    phone: Page, server_url: str
) -> None:
    page = phone
    open_at(page, server_url + "/?preset=causal#fig-6")
    # The figures above are drawn (Figure 5 changes height) and the page holds the anchor:
    # wait until the title sits just below the bar (asserted with numbers below).
    wait_until(page, TITLE_BELOW_BAR_JS)
    title = page.locator("#fig-6-title").bounding_box()
    bar = page.locator(".toolbar").bounding_box()
    assert title
    assert bar
    # just below the bar: not under it, and not pushed down by the figures drawn above
    assert bar["y"] + bar["height"] <= title["y"] <= bar["y"] + bar["height"] + 40, (title, bar)
    assert title["y"] + title["height"] <= PHONE["height"]
    # The causal mask zeroes the weights above the diagonal: hatched, numbers printed,
    # named by the legend's swatch.
    cells = page.evaluate(
        """() => [...document.querySelectorAll('#fig-6 [data-grid="weights"] td[data-row]')]
          .map(td => [Number(td.dataset.row), Number(td.dataset.col), td.textContent,
                      td.classList.contains('masked'), getComputedStyle(td).backgroundImage])"""
    )
    assert len(cells) == 9
    for row, col, text, masked, image in cells:
        assert masked == (col > row), (row, col)
        assert ("repeating-linear-gradient" in image) == (col > row), (row, col, image)
        assert text.strip(), (row, col)
    legend = page.locator("#fig-6 .grid-legend .legend-masked")
    assert legend.is_visible()
    assert legend.inner_text().strip() == "masked (weight 0)"
    swatch = page.locator("#fig-6 .grid-legend .swatch.masked")
    image = swatch.evaluate("s => getComputedStyle(s).backgroundImage")
    assert "repeating-linear-gradient" in image


# Boxes that scroll sideways: [label, more, tabindex, role] of each.
SCROLLERS_JS = """sel => [...document.querySelectorAll(sel)]
  .filter(b => b.scrollWidth > b.clientWidth + 1)
  .map(b => [b.getAttribute('aria-label'), b.dataset.more ?? null, b.getAttribute('tabindex'),
             b.getAttribute('role')])"""


@pytest.mark.parametrize("phone", ["dark"], indirect=True)
def test_wide_lab_grids_and_tables_scroll_inside_labelled_boxes_with_a_cue(
    phone: Page, server_url: str
) -> None:
    page = phone
    open_at(page, server_url + "/labs/heads")
    page.add_style_tag(content=SHOW_ALL)
    after_layout(page)
    boxes = page.evaluate(SCROLLERS_JS, "#four-heads .lab-grid-item")
    assert len(boxes) == 4, boxes
    for n, (label, more, tabindex, role) in enumerate(boxes, start=1):
        assert f"head {n}" in label, label
        assert "scrolls sideways" in label, label
        assert (more, tabindex, role) == ("right", "0", "region")
    # Scrolled to its end, "tired" shows and the cue moves to the left edge.
    first = page.locator("#four-heads .lab-grid-item").first
    first.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    expect(first).to_have_attribute("data-more", "left")
    header = first.locator("thead th").last
    assert header.inner_text() == "tired"
    inner, outer = header.bounding_box(), first.bounding_box()
    assert inner
    assert outer
    assert inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
    assert page.evaluate(CLIPPED_JS) == []
    assert _axe(page) == []

    open_at(page, server_url + "/labs/order")
    page.add_style_tag(content=SHOW_ALL)
    after_layout(page)
    tables = page.evaluate(SCROLLERS_JS, '#shuffle [data-role="primary-tables"]')
    assert len(tables) == 1, tables
    label, more, tabindex, role = tables[0]
    assert "E1" in label or "Shuffle" in label, label
    assert (more, tabindex, role) == ("right", "0", "region")
    assert page.evaluate(CLIPPED_JS) == []
