"""Figure 12's stretch control in a real browser: the slider reaches both ends of the range a
link accepts (app.figures.view_fields.STRETCH), the number box takes any value inside it and
refuses one outside, and the link round-trips the value; the embed's control does the same."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

import pytest
from page_helpers import open_page, source_texts, wait_idle
from playwright.sync_api import Browser, Page

from app.attention import run
from app.figures import View, build_figures
from app.figures.view_fields import STRETCH
from app.inputs.body import AttentionRequest
from app.presets import RUNNING_EXAMPLE

pytestmark = pytest.mark.browser


def server_readout(stretch: float) -> list[str]:
    """What Figure 12 says for the running example at ``stretch`` (the server's own words)."""
    stages = run(AttentionRequest.model_validate(RUNNING_EXAMPLE).to_input())
    fig = build_figures(stages, View(stretch=stretch, figures=(12,)), plotly=False)
    return list(fig["figures"]["12"]["readout"])


def readout(page: Page) -> list[str]:
    return source_texts(page, "#fig-12 [data-role=readout] li")


def url_stretch(page: Page) -> str | None:
    return dict(parse_qsl(urlsplit(page.url).query)).get("stretch")


def slide_to(page: Page, key: str) -> None:
    """Move the slider with the keyboard (Home: first stop, End: last) and wait."""
    page.focus("#stretch-slider")
    page.keyboard.press(key)
    wait_idle(page)


def type_stretch(page: Page, text: str) -> None:
    page.fill("#stretch", text)
    wait_idle(page)


def test_the_slider_reaches_both_ends_and_the_link_keeps_them(page: Page, server_url: str) -> None:
    for key, value in (("Home", STRETCH.low), ("End", STRETCH.high)):
        slide_to(page, key)
        assert float(page.input_value("#stretch")) == value
        assert url_stretch(page) is not None
        assert float(url_stretch(page) or "") == value
        assert readout(page) == server_readout(value)
        url = page.url
        open_page(page, server_url + "/")
        open_page(page, url)
        assert float(page.input_value("#stretch")) == value
        assert page.input_value("#stretch-slider") == str(STRETCH.stop_index(value))
        assert readout(page) == server_readout(value)


@pytest.mark.parametrize("value", [0.15, 63.5])
def test_the_box_takes_a_value_near_either_end_between_stops(
    page: Page, server_url: str, value: float
) -> None:
    type_stretch(page, str(value))
    assert float(url_stretch(page) or "") == value
    assert page.input_value("#stretch-slider") == str(STRETCH.stop_index(value))
    assert readout(page) == server_readout(value)
    url = page.url
    open_page(page, server_url + "/")
    open_page(page, url)
    assert float(page.input_value("#stretch")) == value
    assert readout(page) == server_readout(value)


def test_a_value_outside_the_range_is_not_sent(page: Page) -> None:
    type_stretch(page, "12")
    before = readout(page)
    for text in (str(STRETCH.high * 2), str(STRETCH.low / 2), ""):
        type_stretch(page, text)
        assert page.evaluate("document.getElementById('stretch').checkValidity()") is False
        assert url_stretch(page) == "12"
        assert readout(page) == before


@pytest.fixture
def embed(browser: Browser, server_url: str) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server_url}/embed/12?controls=stretch")
    page.locator("#plot .main-svg").first.wait_for(timeout=20_000)
    yield page
    context.close()


def test_the_embed_slider_reaches_both_ends(embed: Page) -> None:
    for key, value in (("Home", STRETCH.low), ("End", STRETCH.high)):
        embed.focus("#stretch-slider")
        embed.keyboard.press(key)
        embed.locator("#embed[aria-busy='false']").wait_for(state="attached")
        link = embed.locator("#open-link").get_attribute("href") or ""
        assert float(dict(parse_qsl(urlsplit(link).query))["stretch"]) == value
        # "Open in Attention Lab" names the figure in its query and its fragment (embed.js)
        assert dict(parse_qsl(urlsplit(link).query))["fig"] == "12"
        assert urlsplit(link).fragment == "fig-12"
        texts = source_texts(embed, "[data-field=readout] li")
        assert texts == server_readout(value)
