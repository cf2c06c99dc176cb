"""The model page in Chromium, one page load per page: the encoder's tokens and 72 heads,
the keyboard through the head grid, the larger head, special tokens greyed, the sorted
table, and a head opened in the figures (Figure 6 equals the model API's weights); the
decoder's causal mask hatched in its larger head."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
from page_helpers import cell, set_cell, wait_idle
from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

TEXT = "I love LLMs"


def painted(page: Page, count: int) -> None:
    # 90 s: a loaded CI machine (two cores, the whole suite) has taken more than 30.
    page.locator(f"main[data-painted='{count}'][aria-busy='false']").wait_for(
        state="attached", timeout=90_000
    )


@pytest.fixture(scope="module")
def encoder(context: BrowserContext, server_url: str) -> Iterator[Page]:
    page = context.new_page()
    # This page and the main page it opens (X 385 columns wide) are the suite's heaviest:
    # every wait on them gets 90 s, which a loaded two-core CI machine has needed.
    page.set_default_timeout(90_000)
    page.set_default_navigation_timeout(90_000)
    page.goto(f"{server_url}/models/minilm?text={quote(TEXT)}")
    painted(page, 1)
    yield page
    page.close()


def api_attention(page: Page, server_url: str, model: str, text: str) -> Any:
    r = page.request.post(f"{server_url}/api/v1/models/{model}/attention", data={"text": text})
    assert r.ok, r.text()
    return r.json()


def test_encoder_page_tokens_heads_keyboard_and_open_in_figures(
    encoder: Page, server_url: str
) -> None:
    page = encoder
    api = api_attention(page, server_url, "minilm", TEXT)
    shown = page.locator("#token-list li").all_text_contents()
    assert shown == api["tokens"]
    assert shown[0] == "[CLS]"
    assert shown[-1] == "[SEP]"
    assert page.locator("#token-list li.special").count() == 2

    # 72 small heatmaps, each a button named by its layer, head, pattern and entropy
    buttons = page.locator("#head-grid .head-mini")
    assert buttons.count() == 72
    assert page.locator("#head-grid .head-mini canvas").count() == 72
    names = buttons.evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")
    for i, name in enumerate(names):
        head = rf"Layer {i // 12 + 1}, head {i % 12 + 1}"
        spoken = rf"{head}: .+, entropy .+ nats, .+ of its weight on the first token"
        assert re.fullmatch(spoken, name)
    pattern = api["summaries"][1][2]["pattern"]
    assert pattern in page.locator(".head-mini").nth(14).locator(".mini-pattern").inner_text()

    # keyboard: one tab stop; arrows move; Enter shows the head larger
    buttons.first.focus()
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "ArrowLeft", "ArrowRight"):
        page.keyboard.press(key)
    focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert focused.startswith("Layer 2, head 3:")
    assert page.locator("#head-grid .head-mini[tabindex='0']").count() == 1
    page.keyboard.press("Enter")
    assert page.locator("#head-title").inner_text() == "Layer 2, head 3"
    assert buttons.nth(14).get_attribute("aria-pressed") == "true"
    # its numbers are asked for (head.json: one head), the small maps carry colours only
    page.locator("#head-large [data-grid='weights-l2h3']").wait_for(timeout=90_000)
    big = page.locator("#head-large table.grid td[data-row]").evaluate_all(
        "tds => tds.map(t => [Number(t.dataset.row), Number(t.dataset.col),"
        " Number(t.dataset.value), t.textContent])"
    )
    expected = np.array(api["attentions"][1][2])
    for i, j, value, text in big:
        assert value == pytest.approx(expected[i, j], abs=1e-6)
        assert re.fullmatch(r"0|1|\d\.\d\d", text)
    assert page.locator("#head-large .grid-legend .legend-high").inner_text() == "1"

    # the summary table sorts by entropy
    page.locator("#summary-table [data-sort=entropy]").click()
    rows = page.locator("#summary-table tbody tr").evaluate_all(
        "trs => trs.map(tr => tr.cells[2].textContent)"
    )
    assert len(rows) == 72
    entropies = sorted(s["entropy"] for layer in api["summaries"] for s in layer)
    first = page.locator("#summary-table tbody tr").first.locator("th").inner_text()
    lowest = min(
        (s["entropy"], f"L{li + 1} H{hi + 1}")
        for li, layer in enumerate(api["summaries"])
        for hi, s in enumerate(layer)
    )
    assert first == lowest[1]
    assert entropies[0] == lowest[0]
    assert page.locator("#summary-table th[aria-sort]").get_attribute("aria-sort") == "ascending"

    # grey out [CLS] and [SEP]: same numbers, their cells grey, the note says so
    before = page.locator("#head-large td[data-row='1'][data-col='2']").get_attribute("data-value")
    page.locator("#hide-special").check()
    painted(page, 2)
    assert page.locator("#hide-note").is_visible()
    same = page.locator("#head-large td[data-row='1'][data-col='2']")
    assert same.get_attribute("data-value") == before
    cls = page.locator("#head-large td[data-row='0'][data-col='0']").evaluate(
        "td => getComputedStyle(td).backgroundColor"
    )
    assert cls in ("rgb(189, 189, 189)", "rgb(74, 74, 74)")

    # open this head in the figures: Figure 6 equals the model API's weights (float32)
    page.locator("#open-head").click()
    page.wait_for_url(
        re.compile(r"/\?model=minilm&text=I\+love\+LLMs&layer=2&head=3$"),
        wait_until="commit",
        timeout=90_000,
    )
    wait_idle(page, timeout=90_000)
    assert "layer 2, head 3 of all-MiniLM-L6-v2" in page.locator("#model-banner").inner_text()
    assert "folded in as a column of ones on X" in page.locator("#model-banner").inner_text()
    weights = page.evaluate(
        """() => { const rows = [];
        for (const td of document.querySelectorAll('#fig-6 [data-grid="weights"] td[data-row]'))
          (rows[Number(td.dataset.row)] ??= [])[Number(td.dataset.col)] = Number(td.dataset.value);
        return rows; }"""
    )
    np.testing.assert_allclose(np.array(weights), expected, rtol=1e-5, atol=1e-6)
    assert re.search(r"[?&]model=minilm&text=I\+love\+LLMs&layer=2&head=3", page.url)

    # the share bar's link is the short model link while the state is the model's own
    page.click("#fig-6 [data-share=link]")
    page.locator("#fig-6 [data-role=share-status]").filter(has_text="copied").wait_for()
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.endswith("/?model=minilm&text=I+love+LLMs&layer=2&head=3&fig=6#fig-6")

    # an edit makes it an ordinary state: an s= link, and the banner stops claiming the model
    set_cell(page, cell("x", 0, 0), "2")
    page.locator("main[data-url='synced']").wait_for(state="attached", timeout=90_000)
    assert "?s=" in page.url
    assert "model=" not in page.url
    banner = page.locator("#model-banner")
    assert not banner.locator("[data-state=model]").is_visible()
    assert "no longer layer 2, head 3" in banner.locator("[data-state=edited]").inner_text()

    # Reset: the model's numbers again, so its short link and the banner's claim come back
    # As a click on the button does, focus leaves the edited cell first (its blur commits
    # nothing new), and the URL has caught up, before Reset runs.
    page.evaluate("document.activeElement.blur()")
    wait_idle(page, timeout=90_000)
    page.evaluate("document.getElementById('reset').click()")
    # The page rewrites its URL with history.replaceState once the figures are back (no
    # navigation to wait for; 385 columns take a while on a loaded machine): poll for it.
    page.wait_for_function(
        "() => /^[?]model=minilm&text=I[+]love[+]LLMs&layer=2&head=3/.test(location.search)",
        timeout=90_000,
    )
    assert banner.locator("[data-state=model]").is_visible()
    assert not banner.locator("[data-state=edited]").is_visible()


DECODER_TEXT = "kqzfmbwd kqzfmbwd"


@pytest.fixture(scope="module")
def decoder(context: BrowserContext, server_url: str) -> Iterator[Page]:
    page = context.new_page()
    page.goto(f"{server_url}/models/tiny-decoder?text={quote(DECODER_TEXT)}")
    painted(page, 1)
    yield page
    page.close()


def test_decoder_heads_are_named_and_their_causal_mask_is_hatched(
    decoder: Page, server_url: str
) -> None:
    page = decoder
    api = api_attention(page, server_url, "tiny-decoder", DECODER_TEXT)
    assert page.locator("#token-list li").all_text_contents() == api["tokens"]
    n = len(api["tokens"])
    buttons = page.locator("#head-grid .head-mini")
    assert buttons.count() == 8
    names = buttons.evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")
    for head, name in enumerate(names[4:]):
        assert api["summaries"][1][head]["pattern"] == "induction"
        assert name.startswith(f"Layer 2, head {head + 1}: induction head, entropy ")
    assert "masked by the causal mask" in page.locator("#heads-legend").inner_text()

    buttons.nth(4).click()  # layer 2, head 1: an induction head, drawn larger
    assert page.locator("#head-title").inner_text() == "Layer 2, head 1"
    masked = page.locator("#head-large td.masked")
    assert masked.count() == n * (n - 1) // 2
    cells = masked.evaluate_all(
        "tds => tds.map(t => [Number(t.dataset.row), Number(t.dataset.col), t.textContent,"
        " getComputedStyle(t).backgroundImage])"
    )
    for i, j, text, image in cells:
        assert j > i
        assert text == "0"
        assert "repeating-linear-gradient" in image
    legend = page.locator("#head-large .grid-legend .legend-masked")
    assert legend.is_visible()
    assert legend.inner_text().strip() == "masked (weight 0)"
    weights = np.array(api["attentions"][1][0])
    shown = page.locator("#head-large td[data-row]").evaluate_all(
        "tds => tds.map(t =>"
        " [Number(t.dataset.row), Number(t.dataset.col), Number(t.dataset.value)])"
    )
    for i, j, value in shown:
        assert value == pytest.approx(weights[i, j], abs=1e-6)
