"""The page's figure titles are the registry's before the figures arrive and after: the
placeholder never flashes to another title (app/figures/registry.py)."""

from __future__ import annotations

import pytest
from page_helpers import wait_idle
from playwright.sync_api import Page, Route

from app.figures.registry import FIGURES

pytestmark = pytest.mark.browser

TITLES_JS = """() => [...document.querySelectorAll('#figures .figure-panel')].map(p => [
  Number(p.dataset.figure), p.querySelector('[data-role="title"]').textContent])"""


def test_titles_are_the_registrys_before_and_after_the_figures_load(
    shared_page: Page, server_url: str
) -> None:
    page = shared_page
    expected = [[f.number, f.title] for f in FIGURES]
    held: list[Route] = []

    def hold(route: Route) -> None:  # the first answer waits until the titles are read
        held.append(route)

    page.route("**/api/v1/figures*", hold)
    try:
        with page.expect_request("**/api/v1/figures*", timeout=30_000):  # main.js has asked
            page.goto(server_url + "/")
        assert held, "the page never asked for its figures"
        assert page.get_attribute("#main", "aria-busy") == "true"  # nothing drawn yet
        assert page.evaluate(TITLES_JS) == expected
    finally:
        for route in held:
            route.continue_()
        page.unroute("**/api/v1/figures*")
    wait_idle(page)
    assert page.evaluate(TITLES_JS) == expected
