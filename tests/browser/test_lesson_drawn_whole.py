"""Every step of every built-in lesson drawn whole (issue 28): in the player at 375, 720 and
1440 px, each step's drawn elements (Plotly charts, SVGs, grid tables) lie inside the
step's box. Presenter mode, so that R shows each figure without answering; one page per
lesson and width, walked with → (the figures of later steps are drawn ahead, off screen,
at the width they will have: the case that clipped "Why divide by √d_k" step 6 by 40 px)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from app.lessons.builtin import builtin_ids, get_builtin

pytestmark = pytest.mark.browser

WIDTHS = (375, 720, 1440)
# Each drawn element against what would clip it: the step's content box and every
# ancestor between that hides its overflow (their padding boxes). Charts, SVGs and number
# grids must fit whole, even inside a scroller (a chart's right end scrolled out of view is
# the clipping the issue saw); a lab's text table (table.data-table) may scroll sideways in
# its own scroller on a phone, as everywhere in the product, so the scroller must fit.
OVERFLOW = """(step) => {
  const article = document.querySelector("[data-role=step]");
  const shown = document.querySelector(".lesson-step-figures:not(.lesson-away)");
  if (!shown) return [];
  const inner = (el) => {
    const r = el.getBoundingClientRect();
    const left = r.left + el.clientLeft + parseFloat(getComputedStyle(el).paddingLeft);
    const style = getComputedStyle(el);
    const right = r.left + el.clientLeft + el.clientWidth - parseFloat(style.paddingRight);
    return { left, right };
  };
  const padding = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left + el.clientLeft, right: r.left + el.clientLeft + el.clientWidth };
  };
  const out = [];
  for (const drawn of shown.querySelectorAll(".js-plotly-plot, svg.main-svg, figure svg, table")) {
    const scrolls = drawn.matches("table.data-table");
    let el = drawn;
    let bounds = inner(article);
    for (let up = drawn.parentElement; up && up !== article; up = up.parentElement) {
      const flow = getComputedStyle(up).overflowX;
      if (scrolls) el = up;
      else if (flow !== "visible") {
        const p = padding(up);
        bounds = { left: Math.max(bounds.left, p.left), right: Math.min(bounds.right, p.right) };
      }
    }
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    const over = Math.max(r.right - bounds.right, bounds.left - r.left);
    const name = `${drawn.tagName.toLowerCase()}.${drawn.getAttribute("class") ?? ""}`;
    if (over > 1) out.push(`step ${step + 1}: ${name} by ${Math.round(over)} px`);
  }
  return out;
}"""


def settled(page: Page, step: int) -> list[str]:
    """What overflows once the layout is still (a chart may be laid out again on show)."""
    before = page.evaluate(OVERFLOW, step)
    for _ in range(10):
        page.wait_for_timeout(150)
        now = page.evaluate(OVERFLOW, step)
        if now == before:
            return list(now)
        before = now
    return list(before)


@pytest.fixture
def narrow(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": request.param, "height": 900})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("narrow", WIDTHS, indirect=True, ids=lambda w: f"{w}px")
@pytest.mark.parametrize("lesson_id", builtin_ids())
def test_every_step_inside_its_box(narrow: Page, server_url: str, lesson_id: str) -> None:
    page = narrow
    lesson = get_builtin(lesson_id)
    assert lesson is not None
    page.goto(f"{server_url}/lessons/{lesson_id}?mode=present")
    clipped: list[str] = []
    for i in range(len(lesson.steps)):
        page.locator(f"#lesson-player[data-rendered='{i}']").wait_for(timeout=30_000)
        if page.locator("[data-reveal-now]").count():
            page.locator("[data-reveal-now]").click()
            page.locator("[data-reveal]").first.wait_for()
        clipped += page.evaluate(OVERFLOW, i)
        if i < len(lesson.steps) - 1:
            page.locator("[data-next]").click()
    assert clipped == []
    # Steps are drawn ahead on the shelf at the width the slot gives them (the step's
    # content width, not its padded clientWidth: the 40 px a chart stuck out by; on a wide
    # presenter screen, the figures' column beside the words).
    widths = page.evaluate("""() => {
      const slot = document.querySelector("[data-role=figures]");
      return [document.querySelector("[data-role=shelf]").getBoundingClientRect().width,
              slot.getBoundingClientRect().width];
    }""")
    assert abs(widths[0] - widths[1]) <= 1
