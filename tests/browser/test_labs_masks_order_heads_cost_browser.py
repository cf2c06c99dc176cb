"""The masks, order, heads and cost labs in Chromium (masks D1–D3, order E1–E3, heads F1–F3,
cost G1–G3): every entry's controls change its numbers, by mouse and keyboard; no console
errors; no sideways scroll at 375 px; dark mode; axe-core finds nothing serious;
screenshots."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from axe_support import axe_violations
from page_helpers import (
    SOURCE_TEXT,
    open_all_tables,
    source_text,
    source_texts,
    wait_idle,
    wait_until,
)
from playwright.sync_api import Browser, BrowserContext, Page, expect

pytestmark = pytest.mark.browser

LABS = ("masks", "order", "heads", "cost")


@pytest.fixture(scope="module")
def lab_page(context: BrowserContext) -> Iterator[tuple[Page, list[str]]]:
    """One page for this module, with every console error and page error collected."""
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page, errors
    page.close()


def open_lab(page: Page, server_url: str, lab: str, query: str = "") -> None:
    page.goto(f"{server_url}/labs/{lab}{query}")
    wait_idle(page)


def panel(page: Page, figure: str) -> Any:
    return page.locator(f'[data-figure="{figure}"]')


def caption(page: Page, figure: str) -> Any:
    return panel(page, figure).locator('[data-role="caption"]')


def readout(page: Page, figure: str) -> Any:
    return panel(page, figure).locator('[data-role="readout"]')


def grid_text(page: Page, figure: str, grid: str) -> str:
    return str(panel(page, figure).locator(f'[data-grid="{grid}"]').first.inner_text())


def control(page: Page, figure: str, name: str, tag: str = "select") -> Any:
    return panel(page, figure).locator(f'[data-control="{name}"] {tag}').first


@dataclass(frozen=True)
class Entry:
    lab: str
    figure: str
    mouse: Callable[[Page], None]  # change a control with the mouse (or a pick)
    check: Callable[[Page], None]  # the numbers now shown
    keyboard: Callable[[Page], None]  # the same kind of change from the keyboard
    keyboard_check: Callable[[Page], None]


def _select(figure: str, name: str, value: str) -> Callable[[Page], None]:
    return lambda page: control(page, figure, name).select_option(value)


def _key_select(figure: str, name: str, key: str = "ArrowDown") -> Callable[[Page], None]:
    def act(page: Page) -> None:
        control(page, figure, name).focus()
        page.keyboard.press(key)

    return act


def _click(figure: str, name: str) -> Callable[[Page], None]:
    return lambda page: control(page, figure, name, "input[type=checkbox]").click()


def _space(figure: str, name: str) -> Callable[[Page], None]:
    def act(page: Page) -> None:
        control(page, figure, name, "input[type=checkbox]").focus()
        page.keyboard.press("Space")

    return act


def _slide(figure: str, name: str, key: str = "ArrowRight") -> Callable[[Page], None]:
    def act(page: Page) -> None:
        control(page, figure, name, "input[type=range]").focus()
        page.keyboard.press(key)

    return act


def _type(figure: str, name: str, text: str) -> Callable[[Page], None]:
    def act(page: Page) -> None:
        box = control(page, figure, name, "input[data-part=value]")
        box.fill(text)
        box.press("Enter")

    return act


HAS_TEXT_JS = (
    "([sel, text]) => { "
    + SOURCE_TEXT
    + " const el = document.querySelector(sel); return !!el && sourceText(el).includes(text); }"
)


def _has(figure: str, role: str, text: str) -> Callable[[Page], None]:
    """Wait until the part's text, its notation read as typed (d_k, W^O), contains ``text``."""

    def check(page: Page) -> None:
        selector = f'[data-figure="{figure}"] [data-role="{role}"]'
        wait_until(page, HAS_TEXT_JS, [selector, text], timeout=10_000)
        assert text in source_text(page, selector)

    return check


def wait_grid_has(page: Page, figure: str, grid: str, text: str) -> None:
    """Wait until the grid's text, notation read as typed (its MathML's alttext, "q_5"),
    holds ``text``; a timeout fails the test."""
    selector = f'[data-figure="{figure}"] [data-grid="{grid}"]'
    page.wait_for_function(
        f"([sel, t]) => {{ {SOURCE_TEXT} const el = document.querySelector(sel);"
        " return !!el && sourceText(el).includes(t); }",
        arg=[selector, text],
        timeout=5000,
    )


def _grid_has(figure: str, grid: str, text: str) -> Callable[[Page], None]:
    return lambda page: wait_grid_has(page, figure, grid, text)


def _grids(figure: str, n: int) -> Callable[[Page], None]:
    return lambda page: expect(panel(page, figure).locator(".lab-grid-item")).to_have_count(n)


ENTRIES = [
    # D1: padding key 0 with causal empties row 0; keyboard: causal off
    Entry("masks", "mask-kinds",
          lambda page: control(page, "mask-kinds", "pad", "input[value='0']").click(),
          _has("mask-kinds", "readout", "row q_1: 0 allowed keys"),
          _space("mask-kinds", "causal"), _has("mask-kinds", "readout", "row q_1: 3 allowed keys")),
    # D2: only "after"; keyboard: D1's shared L up to 5, and D2 redraws on the 5 × 5 S
    Entry("masks", "mask-order", _select("mask-order", "order", "after"),
          _grids("mask-order", 1),
          _slide("mask-kinds", "L"), _grid_has("mask-order", "weights-after", "q_5")),
    # D3: the −1e9 grid off; keyboard: the S example
    Entry("masks", "empty-row", _click("empty-row", "large"), _grids("empty-row", 1),
          _key_select("empty-row", "case"), _has("empty-row", "caption", "Row q_1")),
    # E1: swap dog and man; keyboard: positions on
    Entry("order", "shuffle",
          lambda page: panel(page, "shuffle").get_by_role("button", name="Shuffle").click(),
          _has("shuffle", "primary-tables", "row 2 → row 4"),
          _space("shuffle", "positional"), _has("shuffle", "readout", "dog: different values")),
    # E2: eight positions; keyboard: a wider d
    Entry("order", "positional-encoding", _type("positional-encoding", "T", "8"),
          _has("positional-encoding", "caption", "over these 8 positions"),
          _slide("positional-encoding", "d"),
          _has("positional-encoding", "readout", "2i/65")),
    # E3 opens reversed: positions on; keyboard: the reversal off
    Entry("order", "reversed", _click("reversed", "positional"),
          _has("reversed", "caption", "a different computation"),
          _space("reversed", "reverse"), _has("reversed", "caption", "Switch on the reversal")),
    # F1: the query token "was"; keyboard: one head only
    Entry("heads", "four-heads", _select("four-heads", "row", "8"),
          _has("four-heads", "readout", "“was” looks at “it”"),
          _key_select("four-heads", "head"), _grids("four-heads", 1)),
    # F2: four heads; keyboard: W^O = identity
    Entry("heads", "split-concat", _select("split-concat", "heads", "4"),
          _has("split-concat", "caption", "4 heads of width 1"),
          _space("split-concat", "wo_identity"),
          _has("split-concat", "caption", "the concatenation itself")),
    # F3: 16 heads from the keyboard; then d_model down
    Entry("heads", "head-width", _slide("head-width", "heads"),
          _has("head-width", "readout", "d_k = 32"),
          _slide("head-width", "d_model", "ArrowLeft"), _has("head-width", "readout", "d_k = 16")),
    # G1: ×2; keyboard: N up past the crossover
    Entry("cost", "flops", _click("flops", "x2"),
          _has("flops", "caption", "multiply and add counted apart"),
          _slide("flops", "n", "End"), _has("flops", "caption", "quadratic terms dominate")),
    # G2: biases; keyboard: h changes nothing
    Entry("cost", "params", _click("params", "biases"),
          _has("params", "primary-tables", "2,048"),
          _slide("params", "heads"), _has("params", "caption", "h = 16 changes neither")),
    # G3: ×4; keyboard: N up
    Entry("cost", "growth", _click("growth", "x4"), _has("growth", "caption", "262,144 cells."),
          _slide("growth", "n"), _has("growth", "caption", "1,024²")),
]  # fmt: skip


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.lab}-{e.figure}" for e in ENTRIES])
def test_controls_change_the_numbers(
    lab_page: tuple[Page, list[str]], server_url: str, entry: Entry
) -> None:
    page, errors = lab_page
    open_lab(page, server_url, entry.lab)
    entry.mouse(page)
    wait_idle(page)
    entry.check(page)
    assert page.url != f"{server_url}/labs/{entry.lab}", "the state is not in the URL"
    # the link reopens the same state
    state_url = page.url
    page.goto(state_url)
    wait_idle(page)
    entry.check(page)
    # and the keyboard alone changes it further
    entry.keyboard(page)
    wait_idle(page)
    entry.keyboard_check(page)
    assert errors == [], errors


@pytest.mark.parametrize("lab", LABS)
def test_embeds_draw_one_figure_each(
    lab_page: tuple[Page, list[str]], server_url: str, lab: str
) -> None:
    page, errors = lab_page
    figures = {e.figure for e in ENTRIES if e.lab == lab}
    for figure in sorted(figures):
        page.goto(f"{server_url}/embed/labs/{lab}/{figure}")
        page.locator("[data-role='caption']").first.wait_for()
        expect(page.locator("[data-role='caption']").first).not_to_be_empty()
    assert errors == [], errors


def _axe(page: Page) -> list[dict[str, Any]]:
    open_all_tables(page, "details")  # every <details>, once each has toggled
    return axe_violations(page)


RAW_CHART_TEXT_JS = """() => [...document.querySelectorAll('.js-plotly-plot text')]
  .map(t => t.textContent).filter(t => /[A-Za-z]_[A-Za-z0-9]|[A-Za-z0-9]\\^|√d_/.test(t))"""


def _background(page: Page) -> list[int]:
    colour = page.evaluate("getComputedStyle(document.body).backgroundColor")
    return [int(x) for x in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3]]


@pytest.mark.parametrize("lab", LABS)
def test_dark_phone_and_desktop_layouts(
    browser: Browser, server_url: str, artifacts: Path, lab: str
) -> None:
    """Light and dark at 1440 and 375 px: the theme's background and charts, no sideways
    scroll, no console error, a screenshot; and at 1440 px axe-core finds nothing serious
    in either theme (the same page load: one context per theme and width)."""
    for scheme, width in (("light", 1440), ("dark", 1440), ("light", 375), ("dark", 375)):
        ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                                  reduced_motion="reduce")  # fmt: skip
        try:
            page = ctx.new_page()
            errors: list[str] = []
            page.on("console", lambda m, e=errors: e.append(m.text) if m.type == "error" else None)
            open_lab(page, server_url, lab)
            background = _background(page)
            assert (sum(background) < 3 * 80) == (scheme == "dark"), background
            if scheme == "dark":  # the charts follow the theme too
                paper = page.evaluate(
                    "[...document.querySelectorAll('.js-plotly-plot')]"
                    ".map(p => p.layout.paper_bgcolor)"
                )
                assert all(p and p.lower() not in ("#fff", "#ffffff", "white") for p in paper)
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"{lab} scrolls sideways at {width} px: {scroll}"
            # Chart texts (legends, ticks, titles, annotations) show the notation set, as
            # Plotly's sub/superscripts: no d_model, q_1 or W^O left as typed.
            raw = page.evaluate(RAW_CHART_TEXT_JS)
            assert raw == [], raw
            page.screenshot(path=str(artifacts / f"lab-{lab}-{scheme}-{width}.png"),
                            full_page=True)  # fmt: skip
            assert errors == [], errors
            if width == 1440:  # axe in both themes, on this load (it opens every <details>)
                bad = _axe(page)
                summary = [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
                assert bad == [], (scheme, summary)
        finally:
            ctx.close()


def test_masks_share_one_s_whose_size_follows_l(
    lab_page: tuple[Page, list[str]], server_url: str
) -> None:
    """L rebuilds the S editor (new cells 0) and the padding keys; an S entry typed in D1
    changes D1, D2 and D3 (D3 on D1's S); D2's "D1's combination" is D1's live mask."""
    page, errors = lab_page
    open_lab(page, server_url, "masks", "?case=pad-key0")
    cells = panel(page, "mask-kinds").locator('[data-control="S"] input[data-part="value"]')
    expect(cells).to_have_count(16)
    slider = control(page, "mask-kinds", "L", "input[type=range]")
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    expect(cells).to_have_count(36)
    expect(panel(page, "mask-kinds").locator('[data-control="S"] th')).to_have_count(6)
    assert source_texts(page, '[data-figure="mask-kinds"] [data-control="S"] th') == [
        f"q_{i}" for i in range(1, 7)
    ]
    boxes = panel(page, "mask-kinds").locator('[data-control="pad"] label')
    assert [boxes.nth(j).is_visible() for j in range(8)] == [True] * 6 + [False] * 2
    wait_grid_has(page, "mask-order", "weights-before", "q_6")
    wait_grid_has(page, "empty-row", "weights", "q_6")
    assert "L=6" in page.url
    assert "S=" in page.url
    # a new cell of S, typed: q_6 reads k_6 with score 3 (its row, causal, before: e^3/(5+e^3))
    cell = panel(page, "mask-kinds").locator('[data-control="S"] input[data-row="5"][data-col="5"]')
    cell.fill("3")
    cell.press("Enter")
    wait_idle(page)
    d2_before = panel(page, "mask-order").locator('[data-grid="weights-before"]')
    expect(d2_before).to_contain_text("0.80")
    # D2 follows D1's mask once asked to: pad k1 in D1, then "D1's combination" in D2
    control(page, "mask-kinds", "pad", "input[value='1']").click()
    control(page, "mask-order", "mask").select_option("d1")
    wait_idle(page)
    expect(panel(page, "mask-order").locator('[data-role="readout"]')).to_contain_text(
        "before: row sums 1.0000, 1.0000"
    )
    before = panel(page, "mask-order").locator('[data-grid="weights-before"]').inner_text()
    control(page, "mask-kinds", "pad", "input[value='1']").click()  # D1 changes: D2 redraws
    wait_idle(page)
    after = panel(page, "mask-order").locator('[data-grid="weights-before"]').inner_text()
    assert before != after
    # the link reopens the 6 × 6 state
    page.goto(page.url)
    wait_idle(page)
    expect(cells).to_have_count(36)
    assert errors == [], errors


def test_e1_custom_order_typed_swapped_by_keyboard_and_by_button(
    lab_page: tuple[Page, list[str]], server_url: str
) -> None:
    """E1: a permutation typed entry by entry, a swap of two positions chosen from the
    keyboard, and the reorder buttons; the table follows each, and the link keeps it."""
    page, errors = lab_page
    open_lab(page, server_url, "order")
    table_rows = panel(page, "shuffle").locator('[data-role="primary-tables"] tbody th')
    # E1 opens shuffled beside the original: dog and man swapped
    expect(table_rows).to_have_text(["The", "man", "bit", "the", "dog"])
    entries = panel(page, "shuffle").locator('[data-control="perm"] input[data-part="value"]')
    expect(entries).to_have_count(1)  # one field holds the permutation
    expect(entries).to_have_value("0,4,2,3,1")
    entries.fill("2,0,1,4,3")
    entries.press("Enter")
    wait_idle(page)
    expect(table_rows).to_have_text(["bit", "The", "dog", "man", "the"])
    assert "perm=2%2C0%2C1%2C4%2C3" in page.url
    tokens = panel(page, "shuffle").locator("[data-position]")
    expect(tokens).to_have_text(
        ["bit (row 1)", "The (row 2)", "dog (row 3)", "man (row 4)", "the (row 5)"]
    )
    tokens.nth(0).focus()  # keyboard: pick position 0, then position 1
    page.keyboard.press("Enter")
    expect(tokens.nth(0)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    wait_idle(page)
    expect(table_rows).to_have_text(["The", "bit", "dog", "man", "the"])
    expect(tokens).to_have_text(
        ["The (row 1)", "bit (row 2)", "dog (row 3)", "man (row 4)", "the (row 5)"]
    )
    expect(control(page, "shuffle", "swap")).to_have_value("")  # a swap is an action
    tokens.nth(4).click()  # pointer: the last token, then the third
    tokens.nth(2).click()
    wait_idle(page)
    expect(table_rows).to_have_text(["The", "bit", "the", "man", "dog"])
    expect(panel(page, "shuffle").locator('[data-role="readout"]')).to_contain_text(
        "The: same values"
    )
    button = panel(page, "shuffle").get_by_role("button", name="Reverse")
    button.focus()
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(table_rows).to_have_text(["man", "the", "bit", "dog", "The"])
    page.goto(page.url)  # the link keeps the order
    wait_idle(page)
    expect(table_rows).to_have_text(["man", "the", "bit", "dog", "The"])
    assert errors == [], errors
    expect(entries).to_have_value("4,3,2,1,0")
    entries.fill("0,1,2,3,9")  # not a permutation: the API's 422, named on the page
    entries.press("Enter")
    wait_idle(page)
    expect(panel(page, "shuffle").locator('[data-role="error"]')).to_contain_text("perm")
    assert all("422" in e for e in errors), errors
    errors.clear()


@pytest.mark.parametrize(("lab", "figure", "query", "literal"), [
    ("masks", "mask-order", "?L=3", "L = 3"),
    ("order", "shuffle", "?perm=2%2C0%2C1%2C4%2C3", "perm = [2, 0, 1, 4, 3]"),
    ("heads", "split-concat", "?split-concat.heads=4", "heads = 4"),
    ("cost", "params", "?layers=12", '"layers": 12'),
])  # fmt: skip
def test_copy_as_numpy_from_the_toolbar(
    lab_page: tuple[Page, list[str]],
    server_url: str,
    lab: str,
    figure: str,
    query: str,
    literal: str,
) -> None:
    """The toolbar's "Copy as NumPy" copies the figure's script for the page's state."""
    page, errors = lab_page
    open_lab(page, server_url, lab, query)
    panel(page, figure).locator("[data-share=numpy]").click()
    expect(panel(page, figure).locator("[data-role=share-status]")).to_contain_text("NumPy")
    script = page.evaluate("navigator.clipboard.readText()")
    assert "import numpy as np" in script
    assert literal in script
    assert errors == [], errors


def test_an_8_by_8_s_scrolls_in_its_own_box_at_375_px(browser: Browser, server_url: str) -> None:
    ctx = browser.new_context(viewport={"width": 375, "height": 900}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        open_lab(page, server_url, "masks", "?L=8")
        expect(panel(page, "mask-kinds").locator('[data-control="S"] input')).to_have_count(64)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        box = panel(page, "mask-kinds").locator(".lab-matrix")
        assert box.evaluate("el => el.scrollWidth > el.clientWidth")  # it scrolls, inside
    finally:
        ctx.close()


def test_d1_links_an_empty_row_to_d3(lab_page: tuple[Page, list[str]], server_url: str) -> None:
    page, errors = lab_page
    open_lab(page, server_url, "masks", "?pad=0")
    _has("mask-kinds", "readout", "row q_1: 0 allowed keys")(page)
    panel(page, "mask-kinds").get_by_role("button", name="Open it in D3").click()
    wait_idle(page)
    expect(control(page, "empty-row", "case")).to_have_value("d1")
    _has("empty-row", "caption", "Row q_1 has no allowed key")(page)
    assert "case=d1" in page.url
    assert errors == [], errors
