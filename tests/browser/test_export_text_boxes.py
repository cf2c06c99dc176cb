"""Exports measured in Chromium: the server's SVGs of Figures 3, 4, 7, 8 and 9 and of lab
sections have no text box overlapping another or leaving the picture (getBBox of every
<text>, in the fonts Chromium really uses), light and dark; and no Plotly modebar on the
page, a lab, an embed or an exported file offers anything that leaves the machine.

Each picture is fetched from the live server and put into one page in turn (one page
load for all of them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

FIGURES = (3, 4, 7, 8, 9)
LAB_SECTIONS = (
    "masks/export.svg?figures=mask-kinds",
    "heads/export.svg?figures=split-concat",
    "step-by-step/export.svg?figures=stepper",
    "order/export.svg?figures=reversed",
)
STATES = ("preset=i-love-llms", "preset=causal", "preset=two-heads&head=1")

MEASURE = """svg => {
  const host = document.getElementById('host');
  host.innerHTML = svg;
  const root = host.querySelector('svg');
  const view = root.viewBox.baseVal;
  const boxes = [...root.querySelectorAll('text')].map(t => {
    const b = t.getBBox();
    return {text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height};
  });
  const problems = [];
  const eps = 0.5;  // sub-pixel rounding of glyph boxes
  for (const [i, a] of boxes.entries()) {
    if (a.x < view.x - eps || a.y < view.y - eps || a.x + a.w > view.x + view.width + eps
        || a.y + a.h > view.y + view.height + eps) problems.push(['clipped', a.text]);
    for (const b of boxes.slice(i + 1)) {
      const apart = a.x + a.w <= b.x + eps || b.x + b.w <= a.x + eps
        || a.y + a.h <= b.y + eps || b.y + b.h <= a.y + eps;
      if (!apart) problems.push(['overlap', a.text, b.text]);
    }
  }
  return {count: boxes.length, problems};
}"""


@pytest.fixture
def blank(context: BrowserContext, server_url: str) -> Iterator[Page]:
    page = context.new_page()
    page.goto(f"{server_url}/healthz")
    page.set_content('<!doctype html><html><body style="margin:0"><div id="host"></div></body>')
    yield page
    page.close()


def fetch(page: Page, url: str) -> str:
    response = page.request.get(url)
    assert response.status == 200, (url, response.text()[:200])
    return response.text()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_exported_svgs_have_no_overlapping_or_clipped_text(
    blank: Page, server_url: str, theme: str, artifacts: Path
) -> None:
    urls = [f"{server_url}/api/v1/export/figure.svg?{state}&figure={n}&theme={theme}"
            for state in STATES for n in FIGURES]  # fmt: skip
    urls += [f"{server_url}/api/v1/labs/{lab}&theme={theme}" for lab in LAB_SECTIONS]
    for url in urls:
        result = blank.evaluate(MEASURE, fetch(blank, url))
        assert result["count"] > 10, url
        assert result["problems"] == [], url
    blank.evaluate(MEASURE, fetch(blank, urls[2]))  # Figure 7, for the record
    blank.locator("#host svg").screenshot(path=str(artifacts / f"export-fig7-{theme}.png"))


CLOUD = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  const buttons = [...document.querySelectorAll('.modebar-btn')];
  return {
    plots: plots.length,
    cloud: plots.filter(p => p._context.showSendToCloud || p._context.displaylogo).length,
    titles: buttons.map(b => b.getAttribute('data-title')),
    links: buttons.filter(b => b.tagName === 'A' || b.closest('a')).length,
  };
}"""


def assert_offline_modebars(page: Page, where: str) -> None:
    for plot in page.locator(".js-plotly-plot").all():
        plot.hover()  # the modebar is drawn on hover
    found = page.evaluate(CLOUD)
    assert found["plots"] > 0, where
    assert found["cloud"] == 0, where
    assert found["links"] == 0, where  # no "Produced with Plotly" link out
    assert not [t for t in found["titles"] if "cloud" in t.lower() or "share" in t.lower()], where


def test_no_modebar_button_leaves_the_machine(
    context: BrowserContext, server_url: str, tmp_path: Path
) -> None:
    page = context.new_page()
    try:
        for url in (f"{server_url}/?preset=causal#fig-12", f"{server_url}/labs/masks",
                    f"{server_url}/embed/12?preset=causal"):  # fmt: skip
            page.goto(url)
            if "/embed/" not in url:
                page.wait_for_selector('main[aria-busy="false"]', timeout=30_000)
                page.locator("#fig-12, #mask-order").first.scroll_into_view_if_needed()
            page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=30_000)
            assert_offline_modebars(page, url)
        exported = tmp_path / "lab.html"
        exported.write_text(fetch(page, f"{server_url}/api/v1/labs/masks/export.html"))
        page.route("**/*", lambda route: route.abort()
                   if not route.request.url.startswith("file:") else route.continue_())  # fmt: skip
        page.goto(exported.as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        assert_offline_modebars(page, "exported lab")
    finally:
        page.close()
