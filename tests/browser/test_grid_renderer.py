"""static/js/grid.js on its own: a grid description from app/figures/grid.py drawn as a
table (headers, data attributes, colours, keyboard) or a canvas, updated in place."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Page

from app.figures import grid as g
from app.wire import encode

pytestmark = pytest.mark.browser

TOKENS = ["I", "love", "LLMs"]
Q = [[2, 1, 0, 0], [1, 2, 0, 1], [1, 0, 1, 2]]

# Draw descriptions into hosts inside a fake figure; record what onCell reports.
DRAW_JS = """async ([descs]) => {
  const m = await import('/static/js/grid.js');
  let root = document.getElementById('grid-test');
  if (!root) {
    root = document.createElement('div');
    root.id = 'grid-test';
    root.dataset.figure = 'test';
    document.body.prepend(root);
    window.gridCalls = [];
  }
  window.gridModule = m;
  descs.forEach((d, i) => {
    let host = root.querySelector(`[data-host="${i}"]`);
    if (!host) {
      host = document.createElement('div');
      host.dataset.host = String(i);
      root.append(host);
    }
    m.renderGrid(host, d, {onCell: (info) => window.gridCalls.push(info && {
      row: info.row, col: info.col, hover: info.hover, text: info.text, grid: info.desc.grid})});
  });
  return root.querySelectorAll('[data-grid]').length;
}"""


def q_grid(values: Any = Q, **extra: Any) -> dict[str, Any]:
    m = np.asarray(values, dtype=float)
    text = [[f"{v:g}" for v in row] for row in m.tolist()]
    hover = [[f"q{i}{j} = {text[i][j]}" for j in range(4)] for i in range(3)]
    return g.grid("q", "Q", m, rows=TOKENS, cols=["1", "2", "3", "4"], text=text, hover=hover,
                  row_title="tokens", col_title="d_k", **extra)  # fmt: skip


def x_grid() -> dict[str, Any]:
    x = [[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]
    return g.grid("x", "X", x, rows=TOKENS, cols=["1", "2", "3", "4"],
                  text=[[str(v) for v in r] for r in x])  # fmt: skip


def test_table_has_headers_values_colours_and_updates_in_place(page: Page) -> None:
    assert page.evaluate(DRAW_JS, [[q_grid(uses=g.product_uses("x", "w_q")), x_grid()]]) == 2
    table = page.locator('#grid-test table[data-grid="q"]')
    assert table.locator("th[scope=col]").all_text_contents() == ["1", "2", "3", "4"]
    assert table.locator("th[scope=row]").all_text_contents() == TOKENS
    cell = table.locator('td[data-row="1"][data-col="3"]')
    assert cell.get_attribute("data-value") == "1"
    assert cell.text_content() == "1"
    style = cell.evaluate(
        "td => [getComputedStyle(td).backgroundColor, getComputedStyle(td).color]"
    )
    assert style[0] != "rgba(0, 0, 0, 0)"
    assert style[1] in ("rgb(0, 0, 0)", "rgb(255, 255, 255)")
    page.evaluate("document.querySelector('#grid-test [data-grid=q] td').dataset.marker = 'same'")
    edited = [row[:] for row in Q]
    edited[1][3] = 1.2345678901234
    page.evaluate(DRAW_JS, [[q_grid(edited), x_grid()]])
    assert cell.get_attribute("data-value") == "1.2345678901234"
    assert cell.text_content() == "1.23457"
    # the same element, updated in place
    assert (
        page.evaluate("document.querySelector('#grid-test [data-grid=q] td').dataset.marker")
        == "same"
    )


def test_keyboard_walks_cells_reports_hover_and_outlines_used_cells(page: Page) -> None:
    page.evaluate(DRAW_JS, [[q_grid(uses=g.product_uses("x", "w_q")), x_grid()]])
    first = page.locator('#grid-test [data-grid=q] td[tabindex="0"]')
    assert first.count() == 1
    first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    focused = page.evaluate(
        "[document.activeElement.dataset.row, document.activeElement.dataset.col]"
    )
    assert focused == ["1", "1"]
    last = page.evaluate("window.gridCalls[window.gridCalls.length - 1]")
    assert last == {"row": 1, "col": 1, "hover": "q11 = 2", "text": "2", "grid": "q"}
    used = page.locator("#grid-test [data-grid=x] td.used")
    assert [(c.get_attribute("data-row")) for c in used.all()] == ["1"] * 4
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.dataset.col") == "3"
    assert page.locator('#grid-test [data-grid=q] td[tabindex="0"]').count() == 1


def test_large_grid_is_a_canvas_with_values_on_hover(page: Page) -> None:
    n = 30
    m = np.linspace(-3, 3, n * n).reshape(n, n)
    labels = [f"t{i}" for i in range(n)]
    big = g.grid("scores", "QKᵀ", m, rows=labels, cols=labels, text=None, outline={"rows": [2]})
    page.evaluate(DRAW_JS, [[json.loads(encode(big))]])  # as on the wire (arrays -> lists)
    canvas = page.locator("#grid-test [data-grid=scores]")
    assert canvas.evaluate("el => el.querySelector('canvas') !== null")
    assert "30 × 30" in (canvas.get_attribute("aria-label") or "")
    value = page.evaluate(
        "window.gridModule.gridValue(document.querySelector('#grid-test [data-grid=scores]'), 2, 5)"
    )
    assert value == pytest.approx(float(m[2, 5]))
    canvas.focus()
    page.keyboard.press("ArrowDown")
    last = page.evaluate("window.gridCalls[window.gridCalls.length - 1]")
    assert (last["row"], last["col"]) == (1, 0)
    # The shown text uses the one minus sign (U+2212), as every number on the page does.
    assert last["text"].startswith("−")
    assert float(last["text"].replace("−", "-")) == pytest.approx(m[1, 0])
