"""The main page's Link button offers a short link (/s/<id>, static/js/short_links.js) that
reopens exactly the state on screen, and falls back to the long, self-contained link when
the server refuses to store it; the lesson editor's "Copy link" does the same with /l/<id>."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from page_helpers import cell, grid_values, open_page, set_cell, wait_idle
from playwright.sync_api import BrowserContext, Page, Route, expect

from app.inputs.link import parse_query
from app.lessons.link import decode_lesson

pytestmark = pytest.mark.browser

SHORT = re.compile(r"/s/[A-Za-z0-9_-]{16}")


def edited(page: Page) -> dict[str, object]:
    set_cell(page, cell("x", 0, 1), "3")
    set_cell(page, cell("w_k", 0, 0), "0.25")
    page.select_option("#focus", "2")
    wait_idle(page)
    return parse_query(dict(parse_qsl(urlsplit(page.url).query))).body


def copy_link(page: Page, n: int) -> str:
    page.get_by_role("button", name=f"Copy link to Figure {n}", exact=True).click()
    expect(page.locator("#announce")).to_have_text(re.compile(f"ink to Figure {n} copied"),
                                                   timeout=15_000)  # fmt: skip
    return str(page.evaluate("navigator.clipboard.readText()"))


def test_the_link_button_offers_a_short_link_that_reopens_exactly_the_state(
    page: Page, context: BrowserContext, server_url: str
) -> None:
    body = edited(page)
    weights = grid_values(page, 6, "weights")
    link = copy_link(page, 6)
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == server_url
    assert SHORT.fullmatch(parts.path), link
    assert "Link to Figure 6 copied (a short link)." in page.locator("#announce").inner_text()
    assert copy_link(page, 6) == link  # the same state: the same short link
    other = context.new_page()
    try:
        open_page(other, link)
        reopened = urlsplit(other.url)
        assert (reopened.path, reopened.fragment) == ("/", "fig-6")
        query = dict(parse_qsl(reopened.query))
        assert query["fig"] == "6"
        state = parse_query(query)
        assert state.body == body
        assert state.view.focus == 2
        assert grid_values(other, 6, "weights") == weights
        expect(other.locator(cell("w_k", 0, 0))).to_have_value("0.25")
        expect(other.locator("#focus")).to_have_value("2")
    finally:
        other.close()


def test_the_long_link_is_offered_when_the_server_will_not_store(page: Page) -> None:
    edited(page)

    def refuse(route: Route) -> None:
        route.fulfill(status=429, headers={"retry-after": "20"}, body="{}")

    page.route("**/api/v1/short-links", refuse)
    try:
        link = copy_link(page, 7)
    finally:
        page.unroute("**/api/v1/short-links")
    parts = urlsplit(link)
    assert parts.path == "/"
    assert dict(parse_qsl(parts.query))["fig"] == "7"
    assert "short" not in page.locator("#announce").inner_text()


def test_the_lesson_editor_copies_a_short_lesson_link_that_plays(
    context: BrowserContext, server_url: str
) -> None:
    editor = context.new_page()
    try:
        editor.goto(f"{server_url}/lessons/edit")
        editor.evaluate("localStorage.clear()")
        editor.reload()
        start = editor.locator("[data-start-from]").first
        start.click()
        expect(editor.locator("#editor-link")).not_to_have_value("", timeout=15_000)
        long = editor.locator("#editor-link").input_value()
        editor.click("#editor-copy")
        copied = str(editor.evaluate("navigator.clipboard.readText()"))
        deadline = 0
        while not copied.startswith(server_url + "/l/") and deadline < 50:
            editor.wait_for_timeout(100)  # the copy waits for the server's answer
            copied = str(editor.evaluate("navigator.clipboard.readText()"))
            deadline += 1
        assert re.fullmatch(re.escape(server_url) + r"/l/[A-Za-z0-9_-]{16}", copied), copied
        player = context.new_page()
        try:
            player.goto(copied)
            target = urlsplit(player.url)
            assert target.path == "/lessons/play"
            played = decode_lesson(dict(parse_qsl(target.query))["l"])
            assert played == decode_lesson(dict(parse_qsl(urlsplit(long).query))["l"])
            expect(player.locator("h1").first).to_be_visible()
        finally:
            player.close()
    finally:
        editor.close()


def test_the_embed_button_gives_a_short_src_that_embeds_the_same_state(
    page: Page, context: BrowserContext, server_url: str
) -> None:
    edited(page)  # a body of its own: its long src is an s= state
    weights = grid_values(page, 6, "weights")
    page.get_by_role("button", name="Copy embed code for Figure 6", exact=True).click()
    expect(page.locator("#announce")).to_have_text(
        re.compile("Embed code for Figure 6 copied"), timeout=15_000
    )
    snippet = str(page.evaluate("navigator.clipboard.readText()"))
    src = re.search(r'src="([^"]+)"', snippet)
    assert src, snippet
    assert re.fullmatch(re.escape(server_url) + r"/e/[A-Za-z0-9_-]{16}", src.group(1)), snippet
    assert len(snippet) < 700
    embed = context.new_page()
    try:
        embed.goto(src.group(1))
        assert urlsplit(embed.url).path == "/embed/6"
        embed.locator("#embed[data-drawn=true]").wait_for(timeout=20_000)
        assert grid_values(embed, 6, "weights") == weights
    finally:
        embed.close()
