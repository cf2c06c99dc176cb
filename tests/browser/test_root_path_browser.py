"""Attention Lab behind a proxy at /attention/ that strips the prefix, in Chromium.

The app runs as ``attention-lab --root-path /attention`` and is reached only through
``StrippingProxy`` (tests/browser/proxy_support.py), which answers nothing outside the
prefix: a URL the app wrote without it fails here as it would on a university server.
One page load each for the page, a lab, the embeds and the API docs; every response the
browser gets is recorded, and none may fail or leave the prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from page_helpers import cell, grid_values, open_page, set_cell, wait_idle
from playwright.sync_api import Browser, BrowserContext, Page, Response, expect
from proxy_support import StrippingProxy, app_with_root_path

pytestmark = pytest.mark.browser

PREFIX = "/attention"


@pytest.fixture(scope="module")
def proxy() -> Iterator[StrippingProxy]:
    with app_with_root_path(PREFIX) as app, StrippingProxy(PREFIX, app) as running:
        yield running


@pytest.fixture(scope="module")
def site(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light",
                              reduced_motion="reduce")  # fmt: skip
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    yield ctx
    ctx.close()


class Recorder:
    """Every response and failed request of a page, and its console errors."""

    def __init__(self, page: Page) -> None:
        self.urls: list[str] = []
        self.bad: list[str] = []
        self.errors: list[str] = []
        page.on("response", self._response)
        page.on("requestfailed", lambda r: self.bad.append(f"failed {r.url}: {r.failure}"))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _response(self, response: Response) -> None:
        self.urls.append(response.url)
        if response.status >= 400:
            self.bad.append(f"{response.status} {response.url}")

    def check(self, proxy: StrippingProxy) -> None:
        assert self.bad == []
        assert proxy.outside == [], "requests that left the prefix"
        assert self.errors == []
        for url in self.urls:  # the browser asked for nothing outside the prefix
            assert url.startswith((proxy.url + "/", "data:", "blob:")), url


@pytest.fixture
def page(site: BrowserContext, proxy: StrippingProxy) -> Iterator[tuple[Page, Recorder]]:
    page = site.new_page()
    recorder = Recorder(page)
    yield page, recorder
    page.close()
    recorder.check(proxy)


def test_the_page_works_through_the_proxy(
    page: tuple[Page, Recorder], proxy: StrippingProxy
) -> None:
    tab, seen = page
    open_page(tab, proxy.url + "/")
    assert tab.get_attribute("html", "data-root") == PREFIX
    # the stylesheets arrived and apply: the page's background is the palette's, not none
    sheets = tab.evaluate(
        "[...document.styleSheets].filter(s => s.href).map(s => [s.href, s.cssRules.length])"
    )
    assert {urlsplit(href).path for href, _ in sheets} >= {
        f"{PREFIX}/static/css/app.css", f"{PREFIX}/static/css/palette.css"}  # fmt: skip
    assert all(rules > 0 for _, rules in sheets)
    background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")
    # an edit asks /attention/api/v1/figures and repaints the weights
    before = grid_values(tab, 6, "weights")
    assert before
    set_cell(tab, cell("x", 0, 0), "2")
    assert grid_values(tab, 6, "weights") != before
    assert urlsplit(tab.url).path == f"{PREFIX}/"
    assert "s=" in urlsplit(tab.url).query  # the URL follows the edited state
    # the embed snippet (oEmbed, asked by the page's script) names the embed under the prefix
    tab.get_by_role("button", name="Copy embed code for Figure 6", exact=True).click()
    expect(tab.locator("#announce")).to_have_text(re.compile("copied"), timeout=15_000)
    snippet = str(tab.evaluate("navigator.clipboard.readText()"))
    (src,) = re.findall(r'src="([^"]+)"', snippet)
    src = unescape(src)
    # a long state's src is its short link under the prefix (/e/<id>), redirected to it
    assert re.fullmatch(re.escape(proxy.url) + r"/e/[A-Za-z0-9_-]{16}", src), snippet
    src = tab.request.get(src, max_redirects=0).headers["location"]
    assert src.startswith(f"{proxy.url}/embed/6?s="), src
    # the oEmbed discovery link names the prefix, and so does its answer
    discovery = tab.get_attribute('link[type="application/json+oembed"]', "href")
    assert discovery is not None
    assert discovery.startswith(f"{proxy.url}/oembed?")
    assert parse_qs(urlsplit(discovery).query)["url"] == [f"{proxy.url}/"]  # the page as served
    answer = tab.request.get(discovery).json()
    assert f'src="{proxy.url}/embed/6' in answer["html"]
    seen.urls.append(discovery)
    # the Labs link leads to the labs under the prefix
    tab.get_by_role("navigation", name="Site").get_by_role("link", name="Labs").click()
    tab.wait_for_url(f"{proxy.url}/labs")
    expect(tab.locator(f'a[href="{PREFIX}/labs/one-query"]')).to_have_count(1)


def softmax_weights(tab: Page) -> list[str]:
    """The weight column of lab A1's first table (its third cell in each row)."""
    table = tab.locator("#softmax-table [data-role=primary-tables] table").first
    return [row.locator("td").all_inner_texts()[2] for row in table.locator("tbody tr").all()]


def test_a_lab_works_through_the_proxy(page: tuple[Page, Recorder], proxy: StrippingProxy) -> None:
    tab, _ = page
    open_page(tab, proxy.url + "/labs")
    tab.locator(f'a[href="{PREFIX}/labs/one-query"]').click()
    tab.wait_for_url(f"{proxy.url}/labs/one-query")
    wait_idle(tab)  # every figure drawn from /attention/api/v1/labs/one-query/figures
    weights = softmax_weights(tab)
    assert weights == ["0.665", "0.245", "0.090"]
    tab.fill("#softmax-table--scores-0", "4")
    tab.press("#softmax-table--scores-0", "Enter")
    wait_idle(tab)
    assert softmax_weights(tab) != weights
    assert urlsplit(tab.url).path == f"{PREFIX}/labs/one-query"
    tab.get_by_role("button", name=re.compile("^Copy link to ")).first.click()
    link = str(tab.evaluate("navigator.clipboard.readText()"))
    assert link.startswith(f"{proxy.url}/labs/one-query?"), link
    # breadcrumbs lead back to the index under the prefix
    expect(tab.locator(".breadcrumbs a")).to_have_attribute("href", f"{PREFIX}/labs")


def test_embeds_work_through_the_proxy(page: tuple[Page, Recorder], proxy: StrippingProxy) -> None:
    tab, _ = page
    tab.goto(f"{proxy.url}/embed/6?preset=i-love-llms&editable=1")
    tab.locator("#embed[data-drawn='true']").wait_for(timeout=20_000)
    open_link = tab.locator("#open-link")
    assert (open_link.get_attribute("href") or "").startswith(f"{PREFIX}/?preset=i-love-llms")
    # an edit asks /attention/api/v1/figures; the open link follows the edited state
    tab.fill(cell("x", 0, 0), "2")
    tab.press(cell("x", 0, 0), "Enter")
    expect(open_link).to_have_attribute("href", re.compile(rf"^{PREFIX}/\?s="), timeout=15_000)
    # a lab figure's embed draws; a control asks the lab API under the prefix
    tab.goto(f"{proxy.url}/embed/labs/one-query/alignment?controls=1")
    wait_idle(tab)
    expect(tab.locator("#open-link")).to_have_attribute(
        "href", f"{PREFIX}/labs/one-query?figure=alignment#alignment"
    )
    tab.locator("[data-control] input[type=checkbox]").first.click()  # Divide by √d_k: off
    wait_idle(tab)
    expect(tab.locator("#open-link")).to_have_attribute(
        "href", re.compile(rf"^{re.escape(proxy.url)}/labs/one-query\?.+#alignment$")
    )


def test_redirects_and_the_api_docs_stay_under_the_prefix(
    page: tuple[Page, Recorder], proxy: StrippingProxy
) -> None:
    tab, _ = page
    old = f"{proxy.url}/labs/one-query/figures.json?figures=alignment"
    moved = tab.request.get(old, max_redirects=0)
    assert moved.status == 308
    assert moved.headers["location"] == f"{PREFIX}/api/v1/labs/one-query/figures?figures=alignment"
    landed = tab.request.get(old)
    assert landed.url == f"{proxy.url}/api/v1/labs/one-query/figures?figures=alignment"
    assert "alignment" in json.loads(landed.text())["figures"]
    # Swagger UI loads its assets and the OpenAPI document, whose server is the prefix
    tab.goto(f"{proxy.url}/api/v1/docs")
    expect(tab.locator(".swagger-ui .servers select, .swagger-ui .servers")).not_to_have_count(0)
    expect(tab.locator(".swagger-ui .info .title")).to_contain_text("Attention Lab")
    assert f"{proxy.url}/api/v1/openapi.json" in tab.evaluate(
        "performance.getEntries().map(e => e.name)"
    )
