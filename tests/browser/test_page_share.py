"""The main page's share and export buttons (static/js/sharebar.js through share.js).

Each test edits the running example first, so a button that shared the page's *initial*
state (or a preset) instead of the state on screen would fail. Copied text is read back
from the clipboard (the context grants clipboard permissions); downloads are caught with
``expect_download`` and opened.
"""

from __future__ import annotations

import base64
import io
import json
import re
import struct
import subprocess
import sys
import zipfile
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx2 as httpx
import numpy as np
import pytest
from page_helpers import cell, grid_values, open_page, set_cell, wait_idle
from playwright.sync_api import BrowserContext, Page, expect

from app.attention import Stages, run
from app.inputs.body import AttentionRequest
from app.inputs.link import parse_query

pytestmark = pytest.mark.browser

FIGURES = range(3, 13)


def edit(page: Page) -> dict[str, Any]:
    """Two edits (a whole and a fractional number); returns the body the page now holds."""
    set_cell(page, cell("x", 0, 0), "2")
    set_cell(page, cell("w_q", 1, 2), "0.5")
    body = parse_query(dict(parse_qsl(urlsplit(page.url).query))).body
    assert (body["x"][0][0], body["w_q"][1][2]) == (2, 0.5), "the edits did not reach the URL"
    return body


def engine(body: dict[str, Any]) -> Stages:
    return run(AttentionRequest.model_validate(body).to_input())


def click_share(page: Page, name: str, done: str) -> None:
    """Click the button called ``name`` and wait for the aria-live line to say ``done``."""
    page.get_by_role("button", name=name, exact=True).click()
    expect(page.locator("#announce")).to_have_text(re.compile(done), timeout=15_000)


def clipboard(page: Page) -> str:
    return str(page.evaluate("navigator.clipboard.readText()"))


def long_link(link: str) -> str:
    """The self-contained link a short one (/s/<id>, /e/<id>) redirects to; any other as it is."""
    if "/s/" not in link and "/e/" not in link:
        return link
    answer = httpx.get(link, follow_redirects=False)
    assert answer.status_code == 302, answer.text
    return str(answer.headers["location"])


def z_of_figure_6(page: Page) -> list[list[float]]:
    return list(grid_values(page, 6, "weights"))


def test_every_figure_has_a_labelled_keyboard_toolbar(page: Page) -> None:
    names = ["Copy embed code for Figure {n}", "Copy link to Figure {n}",
             "Download Figure {n} as PNG", "Download Figure {n} as SVG",
             "Download Figure {n} as an offline HTML file"]  # fmt: skip
    for n in FIGURES:
        for name in names:
            button = page.locator(f"#fig-{n}").get_by_role("button", name=name.format(n=n))
            expect(button).to_have_count(1)
            expect(button).to_have_attribute("type", "button")
    for text in ["Copy as NumPy", "Download CSV (zip)", "Download JSON"]:
        expect(page.get_by_role("button", name=text, exact=True)).to_have_attribute(
            "type", "button"
        )
    # Tab from "Link" reaches "PNG", and Enter on it downloads: in the tab order, keyboard-usable.
    page.get_by_role("button", name="Copy link to Figure 8").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Download Figure 8 as PNG")).to_be_focused()
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    assert info.value.suggested_filename == "attention-lab-figure-8.png"


def test_embed_snippet_is_a_titled_iframe_showing_the_edited_state(
    page: Page, context: BrowserContext, server_url: str
) -> None:
    edit(page)
    z = z_of_figure_6(page)
    click_share(page, "Copy embed code for Figure 6", "Embed code for Figure 6 copied")
    snippet = clipboard(page)
    frame = re.fullmatch(r"<iframe ([^>]*)></iframe>", snippet)
    assert frame, snippet
    attrs = dict(re.findall(r'(\w+)="([^"]*)"', frame.group(1)))
    assert attrs["title"].startswith("Attention Lab, Figure 6:")
    assert 300 <= int(attrs["width"]) <= 1000
    assert 250 <= int(attrs["height"]) <= 1000
    src = long_link(unescape(attrs["src"]))  # a short src (/e/<id>) stands for the long one
    assert src.startswith(f"{server_url}/embed/6?s="), src
    embed = context.new_page()
    try:
        embed.goto(src)
        embed.locator("#embed[data-drawn=true]").wait_for(timeout=20_000)
        embedded = grid_values(embed, 6, "weights")  # drawn by the page's grid renderer
        assert embedded == z, "the embed shows another state than the page"
    finally:
        embed.close()


def test_link_reopens_the_same_state_at_the_figure(
    page: Page, context: BrowserContext, server_url: str
) -> None:
    body = edit(page)
    page.select_option("#focus", "2")
    wait_idle(page)
    z = z_of_figure_6(page)
    click_share(page, "Copy link to Figure 9", "Link to Figure 9 copied")
    # The short link (tests/browser/test_short_links_browser.py) stands for this long one.
    link = long_link(clipboard(page))
    parts = urlsplit(link)
    assert (f"{parts.scheme}://{parts.netloc}", parts.path, parts.fragment) == (
        server_url, "/", "fig-9")  # fmt: skip
    query = dict(parse_qsl(parts.query))
    assert query["fig"] == "9"  # the figure in the query too: the server (oEmbed) sees it
    state = parse_query(query)
    assert state.body == body
    assert state.view.focus == 2
    other = context.new_page()
    try:
        open_page(other, link)
        assert z_of_figure_6(other) == z
        expect(other.locator(cell("w_q", 1, 2))).to_have_value("0.5")
        expect(other.locator("#focus")).to_have_value("2")
        assert_scrolled_to(other, 9)
        # The page's own address keeps naming the figure once it mirrors the state.
        assert dict(parse_qsl(urlsplit(other.url).query))["fig"] == "9"
        assert urlsplit(other.url).fragment == "fig-9"
    finally:
        other.close()


def assert_scrolled_to(page: Page, n: int) -> None:
    """Figure ``n``'s panel starts just under the sticky toolbar, the page scrolled down."""
    top = page.evaluate(f"document.getElementById('fig-{n}').getBoundingClientRect().top")
    bar = page.evaluate("document.querySelector('.toolbar').getBoundingClientRect().bottom")
    assert page.evaluate("window.scrollY") > 500, "the page did not scroll"
    assert bar - 2 <= top <= bar + 40, (top, bar)


def test_a_link_naming_its_figure_only_in_the_query_opens_scrolled_to_it(
    shared_page: Page, server_url: str
) -> None:
    """A link whose fragment was lost (``?fig=8`` alone, as a host or an oEmbed client
    may pass it on) still opens at the figure; a figure that does not exist opens the
    state at the top with a note."""
    page = shared_page
    open_page(page, f"{server_url}/?preset=causal&fig=8")
    assert_scrolled_to(page, 8)
    expect(page.locator("#page-error")).to_be_hidden()
    open_page(page, f"{server_url}/?preset=causal&fig=99")
    assert page.evaluate("window.scrollY") < 50
    expect(page.locator("#page-error")).to_contain_text("fig: there is no Figure '99'")
    assert "fig=" not in page.url


def test_png_of_a_grid_figure_is_its_svg_at_twice_the_size_with_the_caption(page: Page) -> None:
    edit(page)
    with page.expect_download() as info:
        click_share(page, "Download Figure 6 as PNG", "Figure 6 saved as PNG")
    assert info.value.suggested_filename == "attention-lab-figure-6.png"
    png = info.value.path().read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    said = page.locator("#fig-6 [data-role='share-status']").text_content() or ""
    assert f"{width} × {height} pixels" in said  # laid out for its size, no fixed 1600 × 900
    assert (width, height) != (1600, 900)
    # The caption is printed under the grids: the bottom band has dark pixels (text) on
    # the light paper. Decoded by the browser's own canvas.
    inked = page.evaluate(
        """async ([b64, w, h]) => {
             const img = new Image(); img.src = 'data:image/png;base64,' + b64; await img.decode();
             const c = document.createElement('canvas'); c.width = w; c.height = h;
             const g = c.getContext('2d'); g.drawImage(img, 0, 0);
             const d = g.getImageData(0, h - 120, w, 100).data; let n = 0;
             for (let i = 0; i < d.length; i += 4) if (d[i] + d[i+1] + d[i+2] < 300) n++;
             return n; }""",
        [base64.b64encode(png).decode(), width, height],
    )
    assert inked > 1000, f"no caption text under the grids ({inked} dark pixels)"


def test_svg_and_html_of_a_grid_figure_come_from_the_server(page: Page) -> None:
    edit(page)
    with page.expect_download() as info:
        click_share(page, "Download Figure 7 as SVG", "Figure 7 saved as SVG")
    svg = info.value.path().read_text()
    assert svg.startswith("<svg")
    assert "Figure 7. One grid, three stages" in svg
    assert ">÷ 2<" in svg
    assert ">softmax per row<" in svg
    with page.expect_download() as info:
        click_share(page, "Download Figure 7 as an offline HTML file", "works offline")
    html = info.value.path().read_text()
    assert info.value.suggested_filename == "attention-lab-state-fig7.html"
    assert re.findall(r'<section id="([^"]+)"', html) == ["fig-7"]
    assert "plotly" not in html.lower()  # grids only: no plotly.js in the file
    assert "<td>2</td>" in html  # the edited X[0][0], in the state on screen


def test_svg_download_keeps_the_caption_and_its_numbers(page: Page) -> None:
    edit(page)
    caption = page.locator("#fig-12 [data-role='caption']").text_content() or ""
    numbers = re.findall(r"\d+\.\d+", caption)
    assert numbers, caption  # Figure 12's caption quotes computed weights
    with page.expect_download() as info:
        click_share(page, "Download Figure 12 as SVG", "Figure 12 saved as SVG")
    svg = unescape(info.value.path().read_text())
    assert svg.lstrip().startswith("<svg")
    size = re.search(r'<svg[^>]*width="(\d+)"[^>]*height="(\d+)"', svg)
    assert size
    assert int(size[1]) >= 800
    assert "Figure 12. Softmax saturation" in svg
    for number in numbers:
        assert number in svg, number
    # The whole caption, line after line (Plotly writes one <tspan> a line, and one for
    # each sub- or superscript: √d_k is √d then a lowered k), not just its numbers.
    written = page.locator("#fig-12 [data-role='caption']").get_attribute("data-notation")
    assert written  # the caption as the server wrote it
    assert "√d_k" in written
    # (Plotly puts a zero-width space around each script)
    shown = "".join("".join(re.findall(r">([^<>]+)<", svg)).replace("\u200b", "").split())
    assert "".join(written.replace("_", "").replace("^", "").split()) in shown
    assert re.search(r"√d\u200b?<tspan[^>]*>k</tspan>", svg), "d_k's k is a subscript"


def _printed(text: str) -> dict[str, np.ndarray]:
    """The matrices a NumPy script printed: ``name =`` then numpy's layout, a row a line."""
    blocks = re.findall(r"^(\w+) =\n(\[\[.*?\]\])$", text, re.M | re.S)
    return {
        name: np.array(
            [[float(t) for t in line.strip(" []").split()] for line in body.splitlines()]
        )
        for name, body in blocks
    }


def test_copy_as_numpy_prints_the_engine_numbers(page: Page, tmp_path: Path) -> None:
    body = edit(page)
    click_share(page, "Copy as NumPy", "NumPy script .* copied")
    script = tmp_path / "attention.py"
    script.write_text(clipboard(page))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    printed = _printed(done.stdout)
    stages = engine(body)
    head = stages.heads[0]
    expected = {"q": stages.q, "k": stages.k, "v": stages.v, "scores": head.scores,
                "scaled": head.scaled, "weights": head.weights,
                "output": stages.output}  # fmt: skip
    for name, matrix in expected.items():
        np.testing.assert_allclose(printed[name], matrix, rtol=0, atol=1e-9, err_msg=name)


def test_csv_zip_and_json_hold_the_current_weights(page: Page) -> None:
    body = edit(page)
    weights = engine(body).heads[0].weights
    with page.expect_download() as info:
        click_share(page, "Download CSV (zip)", r"Saved attention-lab-state\.zip")
    archive = zipfile.ZipFile(io.BytesIO(info.value.path().read_bytes()))
    assert json.loads(archive.read("state.json"))["x"] == body["x"]
    rows = archive.read("11_weights.csv").decode().splitlines()[1:]
    got = np.array([[float(v) for v in row.split(",")[1:]] for row in rows])
    np.testing.assert_allclose(got, weights, rtol=0, atol=1e-12)
    with page.expect_download() as info:
        click_share(page, "Download JSON", r"Saved attention-lab-state\.json")
    data = json.loads(info.value.path().read_text())
    np.testing.assert_allclose(data["matrices"]["weights"]["values"], weights, atol=1e-12)


def test_oembed_discovery_link_resolves(shared_page: Page, server_url: str) -> None:
    page = shared_page  # it opens its own link (``page`` would load the running example first)
    url = f"{server_url}/?preset=causal&focus=2"
    open_page(page, url)
    link = page.locator('link[rel="alternate"][type="application/json+oembed"]')
    href = link.get_attribute("href") or ""
    parts = urlsplit(href)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{server_url}/oembed"
    assert dict(parse_qsl(parts.query)) == {"url": url, "format": "json"}
    answer = page.request.get(href)
    assert answer.status == 200
    assert f'src="{server_url}/embed/6?preset=causal&amp;focus=2"' in answer.json()["html"]


def test_phone_toolbar_sits_between_title_and_plot(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    try:
        for n in FIGURES:
            panel = page.locator(f"#fig-{n}").bounding_box()
            bar = page.locator(f"#fig-{n} .share-bar").bounding_box()
            plot = page.locator(f"#fig-{n} .plot-scroll").bounding_box()
            assert panel
            assert bar
            assert plot
            assert bar["x"] >= panel["x"]
            assert bar["x"] + bar["width"] <= panel["x"] + panel["width"]
            assert bar["y"] + bar["height"] <= plot["y"], f"Figure {n}'s toolbar overlaps its plot"
            assert bar["height"] < 48, f"Figure {n}'s toolbar wraps onto several rows"
        page.locator("#fig-6").screenshot(path=str(artifacts / "share-fig6-375.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
