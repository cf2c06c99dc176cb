"""The matrix editor of a large state: a matrix larger than 16 × 16 is edited through a
16 × 16 window of inputs (not one input per entry), which the window buttons and the
arrow keys move; an edit made through the window reaches the state and the figures."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from page_helpers import cell, open_page, set_cell, wait_idle
from playwright.sync_api import Page

from app.inputs.link import encode_body, parse_query

pytestmark = pytest.mark.browser


def state(tokens: int, width: int) -> dict[str, Any]:
    """Distinct entries, so a window showing the wrong cells cannot pass."""
    x = (np.arange(tokens * width).reshape(tokens, width) % 7 - 3).tolist()
    w = (np.arange(width * width).reshape(width, width) % 5 - 2).tolist()
    return {"tokens": [f"t{i}" for i in range(tokens)], "x": x, "w_q": w, "w_k": w,
            "w_v": w, "scale": True, "mask": "none", "heads": 1}  # fmt: skip


def shown(page: Page, matrix: str) -> list[tuple[int, int, float]]:
    return [
        (int(r), int(c), float(v))
        for r, c, v in page.locator(f'input[data-matrix="{matrix}"]').evaluate_all(
            "els => els.map(e => [e.dataset.row, e.dataset.col, e.value])"
        )
    ]


def window_of(body: dict[str, Any], matrix: str, r0: int, c0: int) -> list[tuple[int, int, float]]:
    rows = body[matrix]
    return [
        (i, j, float(rows[i][j]))
        for i in range(r0, min(len(rows), r0 + 16))
        for j in range(c0, min(len(rows[0]), c0 + 16))
    ]


def url_body(page: Page) -> dict[str, Any]:
    return parse_query(dict(parse_qsl(urlsplit(page.url).query))).body  # type: ignore[no-any-return]


def test_a_large_matrix_is_edited_through_a_moving_window(
    shared_page: Page, server_url: str
) -> None:
    page = shared_page  # it opens its own link (``page`` would load the running example first)
    body = state(40, 20)
    open_page(page, f"{server_url}/?s={encode_body(body)}")
    assert shown(page, "x") == window_of(body, "x", 0, 0)
    assert shown(page, "w_q") == window_of(body, "w_q", 0, 0)
    bar = page.locator('[data-block="x"] [data-role=window]')
    assert bar.locator(".window-where").text_content() == "rows 1–16 of 40, columns 1–16 of 20"
    assert bar.locator('[data-window-step="up"]').is_disabled()
    page.click('[data-block="x"] [data-window-step="down"]')
    page.click('[data-block="x"] [data-window-step="right"]')
    assert shown(page, "x") == window_of(body, "x", 16, 4)  # the last columns: 5–20
    assert bar.locator(".window-where").text_content() == "rows 17–32 of 40, columns 5–20 of 20"
    assert bar.locator('[data-window-step="right"]').is_disabled()
    # An edit through the window reaches the state (the URL) and the figures' answer.
    set_cell(page, cell("x", 20, 17), "9")
    body["x"][20][17] = 9
    assert url_body(page)["x"] == body["x"]
    assert shown(page, "x") == window_of(body, "x", 16, 4)
    # ArrowDown on the window's last row moves the window one row and focuses the next cell.
    page.focus(cell("x", 31, 10))
    page.press(cell("x", 31, 10), "ArrowDown")
    wait_idle(page)
    focused = page.evaluate("(({row, col}) => [row, col])(document.activeElement.dataset)")
    assert focused == ["32", "10"]
    assert shown(page, "x") == window_of(body, "x", 17, 4)
    # A small matrix has no window.
    open_page(page, server_url + "/")
    assert page.locator("[data-role=window]").count() == 0
    assert page.locator('input[data-matrix="x"]').count() == 12
