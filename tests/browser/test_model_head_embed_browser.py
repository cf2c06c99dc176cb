"""A real model's head embedded in a course page (issue 28 item 4): the main page opened on
the decoder's head copies a short snippet from Figure 6's Embed button, the model page's
"Embed its weights" copies the same, and the snippet pasted into a page of another
origin shows the head's own weights (POST /api/v1/models/{id}/attention's), at 1440 and
375 px, light and dark (screenshots in the artifacts folder)."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import pytest
from models_support import needs_minilm
from playwright.sync_api import Browser, Page

from tests.browser.embed_support import (
    console_errors,
    embed_app_url,
    embed_browser,
    host_site,
    wait_for,
)
from tests.browser.page_helpers import wait_idle
from tests.browser.test_embed_cross_origin import host_snippet

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "embed_browser", "host_site"]  # fixtures used by name

TEXT = "kqzfmbwd kqzfmbwd"
LINK = {"model": "tiny-decoder", "text": TEXT, "layer": "2", "head": "2"}
HOST_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<link rel="icon" href="data:,"><title>Course page</title>
<style>body {{ font-family: sans-serif; margin: 1rem; }} @media (prefers-color-scheme: dark)
{{ body {{ background: #111; color: #eee; }} }}</style></head>
<body><h1>Week 5: a real model's heads</h1>
{snippet}
{host}
</body></html>
"""
# The weights grid the embed drew from (its #embed-data, in the scheme shown), and its size.
WEIGHTS_SENT = """(scheme) => JSON.parse(document.getElementById('embed-data').textContent)
  .specs[scheme].panels.flat().map((i) => i.grid).find((g) => g && g.grid === 'weights').values"""
DRAWN_SIZE = """(() => { const r = document.querySelector('#plot [data-grid="weights"]')
  .getBoundingClientRect(); return [r.width, r.height]; })()"""


@pytest.fixture
def page(embed_browser: Browser, embed_app_url: str) -> Iterator[Page]:
    context = embed_browser.new_context(viewport={"width": 1440, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=embed_app_url)
    page = context.new_page()
    yield page
    context.close()


def api_weights(app: str) -> list[list[float]]:
    request = urllib.request.Request(
        f"{app}/api/v1/models/tiny-decoder/attention", data=json.dumps({"text": TEXT}).encode(),
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request) as r:
        return list(json.load(r)["attentions"][1][1])


def copied_snippet(page: Page, button: str) -> str:
    page.locator(button).click()
    status = page.locator(button).locator("xpath=ancestor::*[contains(@class,'share-bar')][1]")
    status.locator("[data-role='share-status']", has_text="copied").wait_for(timeout=30_000)
    return str(page.evaluate("navigator.clipboard.readText()"))


def test_a_heads_snippet_is_short_and_shows_its_weights_in_a_course_page(
    page: Page, host_site: tuple[str, Path], embed_app_url: str, artifacts: Path
) -> None:
    errors = console_errors(page)
    page.goto(f"{embed_app_url}/?{urlencode(LINK)}&fig=6")
    wait_idle(page)
    snippet = copied_snippet(page, "#fig-6 button[data-share='embed']")
    assert len(snippet) < 700, snippet
    src = unescape(re.search(r'src="([^"]+)"', snippet).group(1))  # type: ignore[union-attr]
    assert src == f"{embed_app_url}/embed/6?{urlencode(LINK)}"

    page.goto(f"{embed_app_url}/models/tiny-decoder")
    page.locator("#embed-head:not([disabled])").wait_for(timeout=30_000)
    page.locator("#head-grid .head-mini").nth(5).click()  # layer 2, head 2 (4 heads a layer)
    page.locator("#head-title", has_text="Layer 2, head 2").wait_for()
    from_model_page = copied_snippet(page, "#embed-head")
    assert 'src="' in from_model_page
    assert "/embed/6?model=tiny-decoder&amp;text=" in from_model_page
    assert "layer=2&amp;head=2" in from_model_page
    for width in (1440, 375):  # Open and Embed side by side, or one under the other
        for scheme in ("light", "dark"):
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
            view = page.locator("#head-view")
            box = page.locator("#embed-head").bounding_box()
            assert box is not None
            assert box["x"] + box["width"] <= width
            view.screenshot(path=str(artifacts / f"model-head-embed-button-{width}-{scheme}.png"))

    url, folder = host_site
    (folder / "head.html").write_text(HOST_PAGE.format(snippet=snippet, host=host_snippet()))
    want = api_weights(embed_app_url)
    for width in (1440, 375):
        for scheme in ("light", "dark"):
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
            page.goto(f"{url}/head.html")
            frame_el = page.locator("iframe")
            frame = page.frame_locator("iframe")
            frame.locator("#embed[data-drawn='true']").wait_for(timeout=30_000)
            inner = next(f for f in page.frames if "/embed/" in f.url)
            # 17 × 17 cells at this width: one block per cell on a canvas, the numbers it
            # paints being the figure's (and, on a wide screen, a table's cells).
            size = inner.evaluate(DRAWN_SIZE)
            assert size[0] > 200, size
            assert size[1] > 200, size
            drawn = inner.evaluate(f"({WEIGHTS_SENT})('{scheme}')")
            assert len(drawn) == len(want) == 17  # [BOS] and 16 characters
            for got_row, want_row in zip(drawn, want, strict=True):
                assert got_row == pytest.approx(want_row, abs=1e-5)
            title = frame_el.get_attribute("title") or ""
            assert "Tiny induction decoder, layer 2, head 2" in title
            # The host's script from docs/embedding.md sizes the frame to its content.
            inner_height = inner.evaluate("document.documentElement.scrollHeight")
            wait_for(page, f"document.querySelector('iframe').style.height === '{inner_height}px'")
            page.screenshot(path=str(artifacts / f"model-head-embed-{width}-{scheme}.png"),
                            full_page=True)  # fmt: skip
    assert errors == []


@needs_minilm
def test_minilms_embed_button_gives_a_working_snippet(page: Page, embed_app_url: str) -> None:
    """MiniLM's Embed answered a 400 when the snippet carried its state (800 kB of s=)."""
    errors = console_errors(page)
    link = {"model": "minilm", "text": "The cat sat on the mat.", "layer": "3", "head": "5"}
    page.goto(f"{embed_app_url}/?{urlencode(link)}&fig=6")
    wait_idle(page)
    snippet = copied_snippet(page, "#fig-6 button[data-share='embed']")
    assert len(snippet) < 700, snippet
    src = unescape(re.search(r'src="([^"]+)"', snippet).group(1))  # type: ignore[union-attr]
    assert src == f"{embed_app_url}/embed/6?{urlencode(link)}"
    page.goto(src)
    page.locator("#embed[data-drawn='true']").wait_for(timeout=60_000)
    assert page.locator("#plot [data-grid='weights']").count() == 1
    assert "all-MiniLM-L6-v2, layer 3, head 5" in (
        page.locator(".state-title").text_content() or ""
    )
    assert errors == []
