"""A lesson embedded in a course page of another origin, with the "Use in a course" panel's
own web-page snippet (iframe + height listener, app/web/lesson_snippets.py): the player
runs inside the frame under the embed's CSP, the host receives the height messages and the
snippet's listener sizes the iframe to the content, at the first step and after a step
change. One page load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from app.web.lesson_snippets import course_snippets
from tests.browser.embed_support import (
    CSP_RECORDER,
    console_errors,
    embed_app_url,
    embed_browser,
    host_site,
    wait_for,
)

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "embed_browser", "host_site"]  # fixtures used by name

HOST_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Week 4</title></head>
<body><h1>Week 4: scaling</h1>
<script>
  window.heightMessages = [];
  window.addEventListener("message",
    (e) => window.heightMessages.push({data: e.data, origin: e.origin}));
</script>
SNIPPET
</body></html>
"""


@pytest.fixture
def page(embed_browser: Browser) -> Iterator[Page]:
    context = embed_browser.new_context(viewport={"width": 900, "height": 900})
    context.add_init_script(CSP_RECORDER)
    page = context.new_page()
    yield page
    context.close()


def test_lesson_embed_in_another_origin_follows_its_height(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    url, folder = host_site
    src = f"{embed_app_url}/embed/lesson/why-scale"
    snippet = {s.key: s for s in course_snippets(src, "Why divide by √d_k")}["html"].text
    (folder / "week4.html").write_text(HOST_PAGE.replace("SNIPPET", snippet))
    errors = console_errors(page)
    page.goto(f"{url}/week4.html")
    # The snippet's iframe is lazy: it loads when the host page shows it.
    player = page.frame_locator("iframe").locator('#lesson-player[data-rendered="0"]')
    player.wait_for(timeout=20_000)
    frame = next(f for f in page.frames if "/embed/lesson/" in f.url)
    assert url.rsplit(":", 1)[1] != embed_app_url.rsplit(":", 1)[1]  # two origins

    def reported() -> int:
        wait_for(page, "window.heightMessages.some(m => m.data.type === 'attention-lab:height')")
        content = frame.evaluate("document.documentElement.scrollHeight")
        # The frame shows all of the lesson and nothing more: no scrolling inside it.
        assert content == frame.evaluate("Math.ceil(document.body.getBoundingClientRect().height)")
        expression = (
            "window.heightMessages.filter(m => m.data.type === 'attention-lab:height')"
            f".at(-1).data.height === {content}"
        )
        wait_for(page, expression)
        wait_for(page, f"document.querySelector('iframe').style.height === '{content}px'")
        return int(content)

    first = reported()
    messages = page.evaluate("window.heightMessages")
    last = [m for m in messages if m["data"].get("type") == "attention-lab:height"][-1]
    assert last["origin"] == embed_app_url
    assert last["data"]["lesson"] == "why-scale"
    assert first > 300
    # The first step asks a number: commit one, the figure and the reveal appear, taller.
    frame.locator('[data-question] input[type="number"]').fill("0.5")
    frame.locator("[data-commit]").click()
    frame.locator("[data-reveal]").first.wait_for()
    assert reported() > first
    frame.locator("[data-next]").click()
    frame.locator('#lesson-player[data-rendered="1"]').wait_for()
    reported()
    assert frame.evaluate("window.__cspViolations") == []
    assert errors == []
