"""Helpers of the browser tests: open the page, wait for idle, read figures and tables,
edit cells. (A module of its own, not conftest, so imports never pick another conftest.)"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from playwright.sync_api import Locator, Page


def open_page(page: Page, url: str) -> None:
    page.goto(url)
    wait_idle(page)


def lesson_from_the_start(page: Page, url: str | None = None) -> None:
    """Open the lesson player at ``url`` (or the page's own) with no saved record, at step 1.

    The player saves the step it shows as soon as its answers are in, so clearing the
    record before it is ready would race that write (on a loaded machine the saved step
    came back after the reload); it is cleared once the player says it is ready. The
    address names the step shown too (``?step=N``), so the page is opened again without
    it rather than reloaded."""
    if url is not None:
        page.goto(url)
    page.locator("#lesson-player[data-ready='true']").wait_for(state="attached")
    page.evaluate("localStorage.clear()")
    start = without_step(page.url)
    if start == page.url:
        page.reload()
    else:
        page.goto(start)
    page.locator("#lesson-player[data-rendered='0']").wait_for(state="attached")


def without_step(url: str) -> str:
    """``url`` without its ``step=`` parameter (the lesson player's), all else kept."""
    parts = urlsplit(url)
    kept = "&".join(p for p in parts.query.split("&") if p and not p.startswith("step="))
    return urlunsplit(parts._replace(query=kept))


def wait_idle(page: Page, timeout: float = 60_000) -> None:
    """Wait until <main aria-busy="false">: every figure shows the latest state.

    A selector, not ``wait_for_function``: that evaluates a string with eval(), which the
    site's Content-Security-Policy (script-src 'self') rightly refuses. 60 s: a condition
    costs nothing to wait for when it comes, and a shared two-core machine (load 28) took
    more than 15 s to draw the first page."""
    selector = "main[aria-busy='false']:not([data-url='pending'])"  # the URL follows too
    page.locator(selector).wait_for(state="attached", timeout=timeout)


GRID_JS = """([n, name]) => {
  const grid = document.querySelector(`#fig-${n} [data-grid="${name}"]`);
  if (!grid) return null;
  const rows = [];
  for (const td of grid.querySelectorAll('td[data-row]')) {
    const i = Number(td.dataset.row);
    (rows[i] ??= [])[Number(td.dataset.col)] = Number(td.dataset.value);
  }
  return rows;
}"""


def grid_values(page: Page, n: int, name: str) -> Any:
    """The full-precision values (data-value) of grid `name` (an API stage name) in #fig-n."""
    return page.evaluate(GRID_JS, [n, name])


def figure_data(page: Page, n: int) -> Any:
    """The `data` of the Plotly graph inside #fig-n."""
    return page.evaluate(f"document.querySelector('#fig-{n} .js-plotly-plot').data")


# An element's text as the server wrote it: each <math> (the notation renderer's MathML)
# read back as its alttext ("√d_k"), so tests compare with the figure description.
SOURCE_TEXT = """const sourceText = (el) => {
  const copy = el.cloneNode(true);
  copy.querySelectorAll('math').forEach(m => m.replaceWith(m.getAttribute('alttext') ?? ''));
  return copy.textContent;
};"""


def source_text(page: Page, selector: str) -> str:
    """The text of the first element matching ``selector``, notation as typed (W^Q, d_k)."""
    return str(
        page.evaluate(
            f"sel => {{ {SOURCE_TEXT} return sourceText(document.querySelector(sel)); }}", selector
        )
    )


def element_source_text(locator: Locator) -> str:
    """``source_text`` of the element a locator points to."""
    return str(locator.evaluate(f"el => {{ {SOURCE_TEXT} return sourceText(el); }}"))


def source_texts(page: Page, selector: str) -> list[str]:
    """``source_text`` of every element matching ``selector``."""
    js = f"sel => {{ {SOURCE_TEXT} return [...document.querySelectorAll(sel)].map(sourceText); }}"
    return list(page.evaluate(js, selector))


# Opens the figure's "as tables" section (tables are built when opened), then reads them.
TABLES_JS = (
    """async n => {
  """
    + SOURCE_TEXT
    + """
  const details = document.querySelector(`#fig-${n} details.tables`);
  if (!details.open) {
    const opened = new Promise(r => details.addEventListener('toggle', r, {once: true}));
    details.open = true;
    await opened;
  }
  return [...details.querySelectorAll('table.data-table')].map(t => ({
    caption: t.caption ? sourceText(t.caption) : '',
    cells: [...t.tBodies[0].rows].map(r => [...r.cells].filter(c => c.tagName === 'TD')
                                                      .map(sourceText))}));
}"""
)


def figure_tables(page: Page, n: int) -> list[dict[str, Any]]:
    """The data tables of Figure n: caption and the cells' text, row by row."""
    return list(page.evaluate(TABLES_JS, n))


def figure_strings(page: Page, n: int) -> str:
    """Everything Figure n shows as text: the panel's text plus the graph's data and layout."""
    return str(
        page.evaluate(
            "n => { "
            + SOURCE_TEXT
            + """ const p = document.querySelector(`#fig-${n}`);
                      const g = p.querySelector('.js-plotly-plot');
                      return sourceText(p) + JSON.stringify(g ? [g.data, g.layout] : []); }""",
            n,
        )
    )


def set_cell(page: Page, selector: str, text: str) -> None:
    """Type into an editor input and commit with Enter, then wait for the figures.
    On a narrow screen the editor is folded: open it first, as a reader would."""
    toggle = page.locator("#editor-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    page.fill(selector, text)
    page.press(selector, "Enter")
    wait_idle(page)


def cell(matrix: str, row: int, col: int) -> str:
    return f'input[data-matrix="{matrix}"][data-row="{row}"][data-col="{col}"]'


def wait_until(page: Page, predicate: str, arg: Any = None, timeout: float = 30_000) -> None:
    """Wait until the JS function ``predicate`` (called with ``arg``) returns true. A
    function, not an expression string: Playwright calls it without eval(), which the
    pages' Content-Security-Policy refuses."""
    page.wait_for_function(predicate, arg=arg, timeout=timeout)


def after_layout(page: Page) -> None:
    """Return once the page has laid out and painted two frames: what a style added or a
    scroll made (resize observers, scroll handlers, a reflow) has run."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# Resolves once the page's scroll position is the same in two consecutive frames (a
# smooth scroll, or one a script starts after a reveal, has ended); false after 4 s.
SCROLL_STILL_JS = """async () => {
  let last = null;
  const end = performance.now() + 4000;
  while (performance.now() < end) {
    await new Promise((r) => requestAnimationFrame(r));
    const now = `${scrollX},${scrollY}`;
    if (now === last) return true;
    last = now;
  }
  return false;
}"""


def scroll_still(page: Page) -> None:
    """Return once the page has stopped scrolling (see ``SCROLL_STILL_JS``)."""
    assert page.evaluate(SCROLL_STILL_JS), "the page kept scrolling for 4 s"


# Opens every <details> matching the selector and resolves once each has answered its
# toggle event (the page builds a figure's tables in its own toggle listener, which runs
# first).
OPEN_DETAILS_JS = """sel => Promise.all([...document.querySelectorAll(sel)]
  .filter(d => !d.open)
  .map(d => {
    const toggled = new Promise(r => d.addEventListener('toggle', r, {once: true}));
    d.open = true;
    return toggled;
  }))"""


def open_all_tables(page: Page, selector: str = "details.tables") -> None:
    """Open every figure's tables (every ``selector``) and wait until the page has built
    them."""
    page.evaluate(OPEN_DETAILS_JS, selector)
