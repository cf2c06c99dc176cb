"""An embed in a page of another origin: drawn, sized by the height message, CSP-clean."""

from __future__ import annotations

import base64
import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Frame, Page

from tests.browser.embed_support import (
    CSP_RECORDER,
    ROOT,
    console_errors,
    embed_app_url,
    embed_browser,
    host_site,
    wait_for,
)

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "embed_browser", "host_site"]  # fixtures used by name

HOST_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Course page</title></head>
<body>
<h1>Week 3: attention</h1>
<iframe id="lab" src="{src}" title="Attention Lab, Figure 6" width="720" height="150"
        style="border:0;max-width:100%"></iframe>
<script>
  window.heightMessages = [];
  window.addEventListener("message",
    (e) => window.heightMessages.push({{data: e.data, origin: e.origin}}));
</script>
{snippet}
</body></html>
"""


def host_snippet() -> str:
    """The host script from docs/embedding.md, exactly as instructors will paste it."""
    text = (ROOT / "docs" / "embedding.md").read_text()
    found = re.search(r"```html\n(<script>.*?</script>)\n```", text, re.S)
    assert found, "docs/embedding.md lost its host snippet"
    return found.group(1)


@pytest.fixture
def page(embed_browser: Browser) -> Iterator[Page]:
    context = embed_browser.new_context(viewport={"width": 900, "height": 900})
    context.add_init_script(CSP_RECORDER)
    page = context.new_page()
    yield page
    context.close()


# The weights grid's cells as drawn: data-value (full precision) per row.
WEIGHTS_DRAWN = """[...document.querySelectorAll('#plot table[data-grid="weights"] tbody tr')]
  .map((tr) => [...tr.querySelectorAll('td[data-row]')].map((td) => Number(td.dataset.value)))"""


def api_weights(app: str, body: dict[str, object] | None = None) -> list[list[float]]:
    """The weights the API computes (for ``body``, else the default example)."""
    if body is None:
        with urllib.request.urlopen(f"{app}/api/v1/export?format=json") as r:
            return list(json.load(r)["matrices"]["weights"]["values"])
    request = urllib.request.Request(f"{app}/api/v1/attention", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request) as r:
        return list(json.load(r)["weights"])


def open_host(page: Page, host_site: tuple[str, Path], app: str, src: str) -> Frame:
    url, folder = host_site
    (folder / "course.html").write_text(HOST_PAGE.format(src=app + src, snippet=host_snippet()))
    page.goto(f"{url}/course.html")
    frame = page.frame_locator("#lab")
    frame.locator("#embed[data-drawn='true']").first.wait_for(timeout=20_000)
    found = next(f for f in page.frames if "/embed/" in f.url)
    return found


def test_embed_renders_in_a_cross_origin_frame_and_reports_height(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    errors = console_errors(page)
    frame = open_host(page, host_site, embed_app_url, "/embed/6?preset=i-love-llms")
    assert host_site[0].rsplit(":", 1)[1] != embed_app_url.rsplit(":", 1)[1]  # two origins
    # the weights grid is drawn by the page's renderer with the server's full-precision values
    assert frame.evaluate(WEIGHTS_DRAWN) == api_weights(embed_app_url)
    assert frame.locator("#plot .main-svg").count() == 0  # no Plotly for a grid figure
    # the host received the height message and the documented snippet applied it
    wait_for(page, "window.heightMessages.some(m => m.data.type === 'attention-lab:height')")
    messages = page.evaluate("window.heightMessages")
    heights = [m for m in messages if m["data"].get("type") == "attention-lab:height"]
    assert heights[-1]["origin"] == embed_app_url
    assert heights[-1]["data"]["figure"] == 6
    height = heights[-1]["data"]["height"]
    content = frame.evaluate("document.documentElement.scrollHeight")
    assert height == content > 150
    wait_for(page, f"document.getElementById('lab').style.height === '{height}px'")
    assert frame.evaluate("window.__cspViolations") == []
    assert errors == []


def test_theme_auto_follows_the_host_colour_scheme(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    page.emulate_media(color_scheme="dark")
    frame = open_host(page, host_site, embed_app_url, "/embed/7?preset=causal&theme=auto")
    data = json.loads(frame.locator("#embed-data").text_content() or "{}")
    cell = '#plot table[data-grid="weights"] td[data-row="0"][data-col="0"]'
    drawn = f"document.querySelector('{cell}').dataset.bg"

    def fill(theme: str) -> str:
        grid = next(item["grid"] for row in data["specs"][theme]["panels"] for item in row
                    if item.get("grid", {}).get("grid") == "weights")  # fmt: skip
        return str(grid["palette"][grid["color"][0][0]][0])

    assert fill("dark") != fill("light")
    assert frame.evaluate(drawn) == fill("dark")
    page.emulate_media(color_scheme="light")
    wait_for(frame, f"{drawn} === {json.dumps(fill('light'))}")


def test_editable_embed_recomputes_on_the_server(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    errors = console_errors(page)
    frame = open_host(page, host_site, embed_app_url, "/embed/6?preset=i-love-llms&editable=1")
    cell = frame.locator('input[data-matrix="x"][data-row="0"][data-col="0"]')
    cell.fill("2")
    cell.press("Tab")
    body = {**json.loads(frame.locator("#embed-data").text_content() or "{}")["body"]}
    body["x"] = [[2, 0, 1, 1], *body["x"][1:]]
    expected = json.dumps(api_weights(embed_app_url, body))
    wait_for(frame, f"JSON.stringify({WEIGHTS_DRAWN}) === {json.dumps(expected.replace(' ', ''))}")
    assert "s=" in (frame.locator("#open-link").get_attribute("href") or "")
    # a bad number is named by the server and marked on the cell
    cell.fill("abc")
    cell.press("Tab")
    frame.locator("#status", has_text="x[0][0]").wait_for()
    assert cell.get_attribute("aria-invalid") == "true"
    assert [e for e in errors if "422" not in e] == []


def test_editable_embed_reads_numbers_as_the_page_does(page: Page, embed_app_url: str) -> None:
    """The embed's editor uses the page's parser: "−1" (U+2212, as the page prints it) and
    "1e−3" are numbers, sent as numbers; before, the embed sent them as text and the
    server refused them."""
    errors = console_errors(page)
    page.goto(f"{embed_app_url}/embed/6?preset=i-love-llms&editable=1")
    page.locator("#embed[data-drawn='true']").first.wait_for(timeout=20_000)
    href = "document.getElementById('open-link').getAttribute('href')"
    for text, value in (("\u22121", -1), ("1e\u22123", 0.001)):
        cell = page.locator('input[data-matrix="x"][data-row="0"][data-col="0"]')
        cell.fill(text)
        cell.press("Tab")
        wait_for(page, f"{href}.includes('s=')")
        wait_for(page, "document.getElementById('embed').getAttribute('aria-busy') === 'false'")
        s = parse_qs(urlsplit(page.evaluate(href)).query)["s"][0]
        body = json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)))
        assert body["x"][0][0] == value, text
        assert cell.get_attribute("aria-invalid") is None
        assert (page.locator("#status").text_content() or "") == ""
    assert errors == []


@pytest.mark.parametrize(
    ("path", "drawn"),
    [("/embed/8?preset=two-heads&controls=scale,mask,focus,head", "#embed[data-drawn='true']"),
     ("/embed/7?editable=1", "#embed[data-drawn='true']"), ("/embed/12", ".main-svg"),
     ("/", ".main-svg")],
)  # fmt: skip
def test_csp_allows_plotly_and_the_pages(
    page: Page, embed_app_url: str, path: str, drawn: str
) -> None:
    """Plotly (vendored) and the pages' modules run under script-src 'self', no 'unsafe-eval'."""
    errors = console_errors(page)
    response = page.goto(embed_app_url + path)
    assert response is not None
    assert response.status == 200, f"{path} answered {response.status}"
    assert "unsafe-eval" not in (response.headers.get("content-security-policy") or "")
    page.locator(drawn).first.wait_for(timeout=20_000)
    page.wait_for_load_state("networkidle")  # every late style or script has been fetched
    assert page.evaluate("window.__cspViolations") == [], path
    assert errors == []


def test_csp_allows_the_api_docs(page: Page, embed_app_url: str) -> None:
    """/api/v1/docs (Swagger UI, vendored) must work under the same policy."""
    errors = console_errors(page)
    response = page.goto(f"{embed_app_url}/api/v1/docs")
    assert response is not None
    if response.status == 404:
        pytest.fail("/api/v1/docs is not served yet (it comes from the API branch)")
    page.locator(".swagger-ui .opblock").first.wait_for(timeout=20_000)
    assert page.evaluate("window.__cspViolations") == []
    assert errors == []
