"""The page as people use it: keyboard only, screen readers (axe-core), hostile labels,
no console errors, and screenshots of the light, dark and phone layouts."""

from __future__ import annotations

import copy
import json
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from axe_support import axe_violations, summary
from page_helpers import (
    after_layout,
    cell,
    element_source_text,
    figure_tables,
    grid_values,
    open_all_tables,
    open_page,
    wait_idle,
)
from playwright.sync_api import Browser, BrowserContext, Dialog, Page, Route, expect

from app.attention import run
from app.figures.context import label_text
from app.inputs.body import AttentionRequest
from app.presets import RUNNING_EXAMPLE

pytestmark = pytest.mark.browser

PAYLOAD = "<img src=x onerror=alert(1)>"


def active(page: Page) -> dict[str, Any]:
    found = page.evaluate(
        "({...document.activeElement.dataset, tag: document.activeElement.tagName})"
    )
    return {k: v for k, v in found.items() if k in ("matrix", "row", "col", "tag")}


def weights_of(body: dict[str, Any]) -> Any:
    return run(AttentionRequest.model_validate(body).to_input()).head.weights


def test_hostile_token_label_is_text_and_runs_nothing(page: Page) -> None:
    dialogs: list[str] = []

    def on_dialog(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        page.fill('input[data-token="0"]', PAYLOAD)
        page.press('input[data-token="0"]', "Enter")
        wait_idle(page)
        after_layout(page)  # drawn and painted: a script in the label would have run
        assert dialogs == []
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        options = page.locator("#focus option").all_inner_texts()
        assert any(PAYLOAD in o for o in options)
        # Figures show labels as inert text: < > & become look-alikes (‹ › ＆) where
        # labels enter the figures, so Plotly cannot read them as its pseudo-HTML.
        shown = label_text(PAYLOAD)
        ticks = page.locator("#fig-6 table.grid th").all_text_contents()
        assert shown in ticks, ticks
        figure_tables(page, 6)  # opens and builds the tables
        headers = page.locator("#fig-6 table.data-table th").all_text_contents()
        assert shown in headers
    finally:
        page.remove_listener("dialog", on_dialog)


def test_keyboard_only_editing(page: Page) -> None:
    for _ in range(30):
        page.keyboard.press("Tab")
        if active(page).get("matrix") == "x":
            break
    assert active(page) == {"matrix": "x", "row": "0", "col": "0", "tag": "INPUT"}
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    wait_idle(page)
    body = copy.deepcopy(RUNNING_EXAMPLE)
    body["x"][0][0] = 2
    assert np.allclose(grid_values(page, 6, "weights"), weights_of(body))
    page.keyboard.press("ArrowDown")
    assert active(page)["row"] == "1"
    page.keyboard.type("5")
    page.keyboard.press("Escape")
    wait_idle(page)
    assert page.input_value(cell("x", 1, 0)) == "0"
    page.keyboard.press("ArrowRight")
    assert active(page) == {"matrix": "x", "row": "1", "col": "1", "tag": "INPUT"}
    assert np.allclose(grid_values(page, 6, "weights"), weights_of(body))


def test_invalid_entries_are_marked_and_figures_keep_the_last_valid_state(page: Page) -> None:
    before = grid_values(page, 6, "weights")
    target = cell("w_k", 2, 1)
    page.fill(target, "abc")
    page.press(target, "Enter")
    assert page.get_attribute(target, "aria-invalid") == "true"
    reason = page.locator("#" + str(page.get_attribute(target, "aria-describedby")))
    assert "not a number" in reason.inner_text()
    page.fill(target, "2000000")
    page.press(target, "Enter")
    wait_idle(page)
    assert page.get_attribute(target, "aria-invalid") == "true"
    reason = page.locator("#" + str(page.get_attribute(target, "aria-describedby")))
    assert "1000000" in reason.inner_text().replace(",", "").replace("1e6", "1000000")
    assert grid_values(page, 6, "weights") == before
    page.press(target, "Escape")
    wait_idle(page)
    assert page.get_attribute(target, "aria-invalid") is None


def test_derivations_show_on_keyboard_focus_of_grid_cells(page: Page, server_url: str) -> None:
    page.focus('#fig-6 [data-grid="weights"] td[tabindex="0"]')
    line = page.locator("#fig-6 [data-role=derivation]")
    first = element_source_text(line)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    second = element_source_text(line)
    assert first != second
    # the cell the softmax used: row 2 of the scaled grid is outlined in Figure 7, not 6
    request = urllib.request.Request(
        f"{server_url}/api/v1/figures",
        data=json.dumps({**RUNNING_EXAMPLE, "view": {"figures": [6]}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        hover = json.loads(response.read())["figures"]["6"]["panels"][0][0]["grid"]["hover"]
    assert first == hover[0][0]
    assert second == hover[1][1]
    assert "e^2.5" in second
    assert second.endswith("0.63")


def test_stepper_and_no_console_errors(context: BrowserContext, server_url: str) -> None:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_page(page, server_url + "/")
        narration = page.locator("#fig-3 [data-role=narration]")
        final = narration.inner_text()
        page.click("#fig-3 [data-step=back]")
        assert narration.inner_text() != final
        page.click("#fig-3 [data-step=forward]")
        assert narration.inner_text() == final
        page.click("#fig-3 [data-step=replay]")
        assert "Frame 1 of" in page.locator("#fig-3 [data-role=step-count]").inner_text()
        page.click("#fig-3 [data-step=play]")
        page.select_option("#heads", "2")
        wait_idle(page)
        page.fill("#stretch", "12")
        wait_idle(page)
        page.check("input[name=row][value=focus]")
        wait_idle(page)
        page.click("[data-action=add-d_model]")
        wait_idle(page)
        page.click("#randomise")
        wait_idle(page)
        assert errors == []
    finally:
        page.close()


def _axe(page: Page) -> list[dict[str, Any]]:
    open_all_tables(page, "details")  # every <details>, once each has toggled
    assert page.locator("table.data-table").count() >= 10
    return axe_violations(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violations(shared_page: Page, server_url: str, scheme: str) -> None:
    page = shared_page  # opened once, already in the scheme (``page`` would open it light first)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    try:
        open_page(page, server_url + "/")
        bad = _axe(page)
        summary = [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
        assert bad == [], summary
    finally:
        page.emulate_media(color_scheme="light")


def test_screenshots(page: Page, artifacts: Path, server_url: str) -> None:
    page.screenshot(path=str(artifacts / "page-light-1280.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.reload()
    wait_idle(page)
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.screenshot(path=str(artifacts / "page-dark-1280.png"), full_page=True)
    page.emulate_media(color_scheme="light")
    for width in (375, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        open_page(page, server_url + "/")
        page.screenshot(path=str(artifacts / f"page-light-{width}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow} px at {width} px"
    page.set_viewport_size({"width": 1280, "height": 900})


def test_figure_3_plays_once_unless_motion_is_reduced(browser: Browser, server_url: str) -> None:
    for motion, plays in (("no-preference", True), ("reduce", False)):
        context = browser.new_context(reduced_motion=motion)  # type: ignore[arg-type]
        try:
            page = context.new_page()
            open_page(page, server_url + "/")
            play = page.locator("#fig-3 [data-step=play]")
            # it plays when it comes into view (Figures 1 and 2 sit above it)
            page.locator("#fig-3 .plot").scroll_into_view_if_needed()
            after_layout(page)  # its IntersectionObserver has seen it in view
            expect(play).to_have_attribute("aria-pressed", str(plays).lower())
            count = page.locator("#fig-3 [data-role=step-count]").inner_text()
            assert count.startswith("Frame 1 of") == plays, count
        finally:
            context.close()


def test_copy_link_copies_the_current_state(page: Page) -> None:
    page.select_option("#mask", "causal")
    wait_idle(page)
    page.click("#copy-link")
    expect(page.locator("#copy-status")).not_to_have_text("")
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    assert "Link copied" in page.inner_text("#copy-status")


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; frame-ancestors 'self'"
)


def test_page_works_under_the_content_security_policy(
    context: BrowserContext, server_url: str
) -> None:
    """The CONTRACT's CSP, added to every response: no violation, every figure drawn."""
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def with_csp(route: Route) -> None:
        response = route.fetch()
        route.fulfill(
            response=response, headers={**response.headers, "content-security-policy": CSP}
        )

    page.route(f"{server_url}/**", with_csp)
    idle = "main[aria-busy=false]"  # a selector: wait_for_function would need eval
    try:
        page.goto(server_url + "/")
        page.wait_for_selector(idle, state="attached")
        page.select_option("#mask", "causal")
        page.wait_for_selector(idle, state="attached")
        drawn = page.locator("[data-figure] .main-svg").count()
        assert drawn >= 10
        assert errors == []
    finally:
        page.close()


def test_randomise_is_reproducible_from_its_visible_seed(page: Page) -> None:
    def x_values() -> list[str]:
        return page.locator('input[data-matrix="x"]').evaluate_all("els => els.map(e => e.value)")

    page.click("#randomise")
    wait_idle(page)
    seed, first = page.input_value("#seed"), x_values()
    page.fill("#seed", "7")
    page.press("#seed", "Enter")
    wait_idle(page)
    assert x_values() != first
    page.fill("#seed", seed)
    page.press("#seed", "Enter")
    wait_idle(page)
    assert x_values() == first
    assert "s=" in page.url


@pytest.mark.parametrize(("scheme", "width"), [("light", 1440), ("dark", 375)])
def test_a_wrong_address_is_a_page_that_leads_back(
    browser: Browser, server_url: str, scheme: str, width: int
) -> None:
    context = browser.new_context(
        color_scheme=scheme,  # type: ignore[arg-type]
        viewport={"width": width, "height": 800},
    )
    page = context.new_page()
    try:
        response = page.goto(server_url + "/nope")
        assert response is not None
        assert response.status == 404
        expect(page.locator("h1")).to_have_text("Not found")
        expect(page.get_by_role("alert")).to_contain_text("no page at this address")
        page.get_by_role("link", name="Open the running example").click()
        # Idle, and the address bar following the state (it names the preset 120 ms after
        # the figures are drawn): reading page.url between the two raced on a loaded machine.
        page.wait_for_selector('main[aria-busy="false"][data-url="synced"]', state="attached")
        assert page.url == server_url + "/?preset=i-love-llms"
        page.goto(server_url + "/nope")
        page.keyboard.press("Tab")  # the skip link leads to the message, which exists
        assert page.evaluate("document.activeElement.getAttribute('href')") == "#main"
        bad = axe_violations(page)
        assert bad == [], summary(bad)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()
