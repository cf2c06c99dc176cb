"""`attention-lab export --format html`: the file draws its figure in Chromium offline."""

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
    [(["--preset", "i-love-llms", "--figure", "6"], "#ffffff"),
     (["--preset", "causal", "--figure", "6", "--theme", "dark"], None)],
)  # fmt: skip
def test_exported_figure_draws_offline(
    tmp_path: Path, offline_page: tuple[Page, list[str]], args: list[str], theme_bg: str | None
) -> None:
    page, requested = offline_page
    errors = console_errors(page)
    path = export(tmp_path, *args)
    html = path.read_text()
    assert "<script src=" not in html  # everything inlined
    assert "http://" not in html.split("<script>")[0]  # no external stylesheet or font
    page.goto(path.as_uri())
    page.locator("#plot .main-svg").first.wait_for(timeout=20_000)
    assert page.locator("#plot .heatmaplayer").count() >= 1
    trace_type = page.evaluate("document.getElementById('plot').data[0].type")
    assert trace_type == "heatmap"
    assert page.locator("table caption").first.text_content()
    assert "Figure 6" in (page.locator("h1").text_content() or "")
    assert page.locator("input, select, textarea").count() == 0  # read-only
    assert requested == []
    assert errors == []
    if theme_bg:
        assert page.evaluate("document.getElementById('plot').layout.plot_bgcolor") == theme_bg


def test_export_from_a_state_url_file(tmp_path: Path, offline_page: tuple[Page, list[str]]) -> None:
    page, requested = offline_page
    state = tmp_path / "link.txt"
    state.write_text("https://lab.example.edu/embed/7?preset=two-heads&head=1\n")
    path = export(tmp_path, "--state", str(state), "--figure", "7")
    page.goto(path.as_uri())
    page.locator("#plot .main-svg").first.wait_for(timeout=20_000)
    assert "head 2 of 2" in page.content()
    assert requested == []
