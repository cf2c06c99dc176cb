"""`attention-lab export --format html`: the file draws its figures in Chromium offline."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route

from tests.browser.embed_support import ROOT, console_errors, embed_browser

pytestmark = pytest.mark.browser
__all__ = ["embed_browser"]


def export(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "figure.html"
    done = subprocess.run(
        [sys.executable, "-m", "app", "export", *args, "--format", "html", "--output", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def offline_page(embed_browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    context = embed_browser.new_context(viewport={"width": 1000, "height": 800})
    requested: list[str] = []

    def block(route: Route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:  # every network request is refused: the file must work offline
            requested.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    page = context.new_page()
    yield page, requested
    context.close()


@pytest.mark.parametrize(
    ("args", "theme_bg"),
    [(["--preset", "i-love-llms", "--figure", "12"], "#ffffff"),
     (["--preset", "causal", "--figure", "12", "--theme", "dark"], "#1b1b1b")],
)  # fmt: skip
def test_an_exported_chart_draws_offline(
    tmp_path: Path, offline_page: tuple[Page, list[str]], args: list[str], theme_bg: str
) -> None:
    page, requested = offline_page
    errors = console_errors(page)
    path = export(tmp_path, *args)
    html = path.read_text()
    assert "<script src=" not in html  # everything inlined
    assert "http://" not in html.split("<script>")[0]  # no external stylesheet or font
    page.goto(path.as_uri())
    page.locator("#fig-12-plot .main-svg").first.wait_for(timeout=20_000)
    trace_type = page.evaluate("document.getElementById('fig-12-plot').data[0].type")
    assert trace_type == "bar"
    assert page.locator("table caption").first.text_content()
    assert "Figure 12" in (page.locator("h1").text_content() or "")
    assert page.locator("input, select, textarea").count() == 0  # read-only
    assert requested == []
    assert errors == []
    assert page.evaluate("document.getElementById('fig-12-plot').layout.plot_bgcolor") == theme_bg


def test_a_page_state_url_exports_every_figure_in_one_file(
    tmp_path: Path, offline_page: tuple[Page, list[str]]
) -> None:
    page, requested = offline_page
    errors = console_errors(page)
    state = tmp_path / "link.txt"
    state.write_text("https://lab.example.edu/?preset=two-heads&head=1\n")
    path = export(tmp_path, "--state", str(state))
    page.goto(path.as_uri())
    page.locator("#fig-13-plot .main-svg").first.wait_for(timeout=20_000)
    assert page.locator("section").count() == 13
    assert page.locator(".picture svg").count() == 7  # the grid figures, drawn as SVG
    assert page.locator(".js-plotly-plot").count() == 4  # one plotly.js draws every chart
    assert "head 2 of 2" in page.content()
    assert requested == []
    assert errors == []
