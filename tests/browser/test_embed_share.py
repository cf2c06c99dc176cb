"""static/js/share.js: copied snippets and links reopen the same state; downloads are real.

The share bar (sharebar.js) copies what share.js builds with toolbar.js copyText; the
tests take the same path."""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
from collections.abc import Iterator
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Browser, Page

from app.inputs.link import parse_query
from tests.browser.embed_support import console_errors, embed_app_url, embed_browser

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "embed_browser"]

STATE = {
    "body": {"tokens": ["a", "b", "c"], "x": [[1, 0, 2], [0, 1, 0], [1, 1, 1]],
             "w_q": [[1, 0], [0, 1], [1, 1]], "w_k": [[0.5, 0], [0, 1], [1, -1]],
             "w_v": [[1, 2], [3, 4], [5, 6]], "mask": "causal", "scale": False},
    "view": {"focus": 2, "head": 0, "stretch": 4, "row": "focus", "theme": "dark"},
}  # fmt: skip


@pytest.fixture
def page(embed_browser: Browser, embed_app_url: str) -> Iterator[Page]:
    context = embed_browser.new_context(accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=embed_app_url)
    page = context.new_page()
    # A chart's embed (Figure 12): it loads plotly.js, which the image downloads draw with
    # (grid figures' embeds draw without it).
    page.goto(f"{embed_app_url}/embed/12?preset=causal")
    page.locator("#plot .main-svg").first.wait_for(timeout=20_000)
    yield page
    context.close()


def call(page: Page, expression: str) -> object:
    """Evaluate ``expression`` with share.js imported as ``share``, and ``copyText``."""
    script = (f"(async () => {{ const share = await import('/static/js/share.js');"
              f" const {{ copyText }} = await import('/static/js/toolbar.js');"
              f" const state = {json.dumps(STATE)}; return await {expression}; }})()")  # fmt: skip
    return page.evaluate(script)


def test_copied_embed_snippet_reopens_the_same_state(page: Page, embed_app_url: str) -> None:
    errors = console_errors(page)
    html = str(call(page, "copyText(await share.embedSnippet(6, state))"))
    assert html == page.evaluate("navigator.clipboard.readText()")
    assert re.search(r'title="Attention Lab, Figure 6: [^"]+"', html)
    src = unescape(re.search(r'src="([^"]+)"', html).group(1))  # type: ignore[union-attr]
    assert src.startswith(f"{embed_app_url}/embed/6?")
    link = parse_query(dict(parse_qsl(urlsplit(src).query)))
    assert link.body == STATE["body"]
    assert link.view.as_dict() == STATE["view"]
    page.goto(src)  # the snippet's frame shows exactly this state
    page.locator("#embed[data-drawn='true'] table.grid").first.wait_for(timeout=20_000)
    shown = json.loads(page.locator("#embed-data").text_content() or "{}")
    assert shown["body"] == STATE["body"]
    assert shown["view"] == STATE["view"]
    assert errors == []


def test_copied_link_reopens_the_same_state(page: Page, embed_app_url: str) -> None:
    url = str(call(page, "copyText(share.linkFor(state, null, 7))"))
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == embed_app_url
    assert parts.fragment == "fig-7"
    link = parse_query(dict(parse_qsl(parts.query)))
    assert (link.body, link.view.as_dict()) == (STATE["body"], STATE["view"])
    preset = str(call(page, "copyText(share.linkFor(state, 'causal'))"))
    assert preset.endswith("/?preset=causal&focus=2&stretch=4&row=focus&theme=dark")


def test_copy_numpy_gives_the_script_of_this_state(page: Page) -> None:
    script = str(call(page, "copyText(await share.numpySnippet(state))"))
    compile(script, "<numpy>", "exec")
    assert "tokens = ['a', 'b', 'c']" in script
    assert "scale = False" in script
    assert "head_scaled[2]" in script  # focus row 2 for Figure 12


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_download_stages(page: Page, fmt: str) -> None:
    with page.expect_download() as info:
        name = call(page, f"share.downloadStages(state, '{fmt}')")
    path = info.value.path()
    assert info.value.suggested_filename == name
    if fmt == "csv":
        zf = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
        assert "11_weights.csv" in zf.namelist()
        assert json.loads(zf.read("state.json")) == STATE["body"]
    else:
        data = json.loads(path.read_text())
        assert data["matrices"]["masked"]["values"][0][1] is None


def test_download_png_laid_out_for_its_size_with_caption(page: Page) -> None:
    with page.expect_download() as info:
        call(page, "share.downloadImage(document.getElementById('fig-12'), 'png')")
    png = info.value.path().read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert 1600 <= width <= 2400  # as wide as the embed draws it, twice for the PNG
    assert height > 300  # as tall as the chart needs, with its heading and caption
    assert info.value.suggested_filename == "attention-lab-figure-12.png"


def test_download_svg_keeps_the_caption_numbers(page: Page) -> None:
    caption = page.locator('[data-field="caption"]').text_content() or ""
    numbers = re.findall(r"\d+(?:\.\d+)?", caption)
    with page.expect_download() as info:
        call(page, "share.downloadImage(document.getElementById('fig-12'), 'svg')")
    svg = unescape(info.value.path().read_text())
    assert svg.lstrip().startswith("<svg")
    assert "Figure 12." in svg
    bars = page.evaluate("document.getElementById('plot').data[0].text")
    for number in [*numbers, bars[-1]]:
        assert number in svg
