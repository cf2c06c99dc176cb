"""The page draws a direct-mode state (issue 16): a link whose state gives tokens, q, k
and v instead of x and the projections. The API and the labs accepted it; the page threw
in the editor and drew nothing. Now the editor shows q, k and v, every figure is drawn
from the server's answer, and an edit of q reaches the figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from embed_support import console_errors
from page_helpers import cell, grid_values, open_page, set_cell, wait_idle
from playwright.sync_api import Page

from app.attention import run
from app.inputs.body import AttentionRequest
from app.inputs.link import encode_body

pytestmark = pytest.mark.browser

SPEC = json.loads(
    (Path(__file__).resolve().parents[1] / "unit" / "data" / "running-example.json").read_text(
        encoding="utf-8"
    )
)["expected"]
DIRECT = {"tokens": ["I", "love", "LLMs"], "q": SPEC["q"], "k": SPEC["k"], "v": SPEC["v"]}


def weights(body: dict[str, Any]) -> Any:
    return run(AttentionRequest.model_validate(body).to_input()).heads[0].weights


def test_a_direct_mode_link_draws_every_figure(shared_page: Page, server_url: str) -> None:
    page = shared_page
    errors = console_errors(page)
    open_page(page, f"{server_url}/?s={encode_body(DIRECT)}")
    # the same weights as the running example: q, k, v are its projections
    on_page = np.array(grid_values(page, 6, "weights"), dtype=float)
    assert np.allclose(on_page, SPEC["weights_exact"], atol=1e-6)
    assert np.allclose(on_page, weights(DIRECT), atol=1e-9)
    for n in (5, 6, 7, 8):
        assert page.locator(f"#fig-{n} [data-grid], #fig-{n} .js-plotly-plot").count(), n
    # the editor shows the matrices the state has, and hides X and the W's
    assert page.locator("#direct-block").is_visible()
    assert not page.locator("#x-block").is_visible()
    for name, rows in (("q", SPEC["q"]), ("k", SPEC["k"]), ("v", SPEC["v"])):
        shown = [[float(page.input_value(cell(name, i, j))) for j in range(len(rows[0]))]
                 for i in range(len(rows))]  # fmt: skip
        assert shown == rows, name
    assert page.input_value('#direct-block input[data-token="1"]') == "love"
    assert page.locator("#page-error").is_hidden()
    # an edit of q is a new state for the figures
    set_cell(page, cell("q", 1, 0), "5")
    edited = json.loads(json.dumps(DIRECT))
    edited["q"][1][0] = 5
    assert np.allclose(grid_values(page, 6, "weights"), weights(edited), atol=1e-6)
    # a preset brings projection mode back: X and the W's again
    page.select_option("#preset", "i-love-llms")
    wait_idle(page)
    assert page.locator("#x-block").is_visible()
    assert page.locator("#direct-block").is_hidden()
    assert np.allclose(grid_values(page, 6, "weights"), SPEC["weights_exact"], atol=1e-6)
    assert errors == []
