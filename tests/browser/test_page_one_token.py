"""A one-token link without ``focus`` opens on token 0, with no warning (issue 9), and the
token labels' length limit reaches the editor from the server."""

from __future__ import annotations

import pytest
from page_helpers import open_page
from playwright.sync_api import Page, expect

from app.inputs.body import MAX_LABEL_CHARS
from app.inputs.link import encode_body

pytestmark = pytest.mark.browser

ONE_TOKEN = {"x": [[1.0, 0.0]], "w_q": [[1.0], [0.0]], "w_k": [[1.0], [0.0]],
             "w_v": [[1.0], [1.0]], "tokens": ["solo"]}  # fmt: skip


def test_a_one_token_link_opens_on_token_0_without_a_warning(
    shared_page: Page, server_url: str
) -> None:
    page = shared_page  # it opens its own link (``page`` would load the running example first)
    open_page(page, f"{server_url}/?s={encode_body(ONE_TOKEN)}")
    expect(page.locator("#page-error")).to_be_hidden()
    assert page.input_value("#focus") == "0"
    assert "does not exist" not in page.locator("main").inner_text()
    # main.js's start() rebuilds the editor with editor.js, which reads the limit from
    # #initial-state (setLimits) rather than a copy of the number.
    assert page.locator("input.token").first.get_attribute("maxlength") == str(MAX_LABEL_CHARS)
