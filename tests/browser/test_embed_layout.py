"""Embeds on a course page of another origin are readable at 375, 720 and 1600 px: in
Figures 3, 4, 7, 8, 9 and a lab section no two text boxes overlap and no text is clipped.

One host page per width holds every iframe (a static file on a second server, as in
test_embed_cross_origin.py), sized by the documented host snippet. In each frame every
visible text node is measured with a Range (one box per line it takes) and the boxes of
different nodes are compared pairwise; a box is clipped when it lies outside the visible
box of an ancestor that clips (overflow other than visible, the frame's viewport
included) or when its element is narrower than its text (scrollWidth > clientWidth).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from axe_support import axe_violations, summary
from playwright.sync_api import Browser, Frame, Page

from tests.browser.embed_support import (
    console_errors,
    embed_app_url,
    embed_browser,
    host_site,
    wait_for,
)
from tests.browser.page_helpers import after_layout
from tests.browser.test_embed_cross_origin import host_snippet

pytestmark = pytest.mark.browser
__all__ = ["embed_app_url", "embed_browser", "host_site"]  # fixtures used by name

WIDTHS = (375, 720, 1600)
EMBEDS = {
    **{f"fig-{n}": f"/embed/{n}?preset=i-love-llms" for n in (3, 4, 7, 8, 9)},
    "lab": "/embed/labs/one-query/softmax-table",
}
# Boxes that share less than this (CSS px, both ways) only touch: glyph boxes of
# neighbouring lines and cells may meet at an edge after rounding.
TOUCH = 1.0

# Every visible text box of the frame's document, then the overlapping pairs and the
# clipped boxes. Text made invisible on purpose (.visually-hidden, visibility:hidden, a
# closed <details>, [hidden]) draws nothing and is left out.
MEASURE = """
(() => {
  const TOUCH = TOUCH_PX;
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(), id = 0; node; node = walker.nextNode(), id++) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest(".visually-hidden, script, style")) continue;
    // checkVisibility: not display:none, visibility:hidden or a closed <details>' content
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 0.5 || r.height < 0.5) continue;
      boxes.push({ id, el, text: node.textContent.trim().slice(0, 40),
                   left: r.left, right: r.right, top: r.top, bottom: r.bottom });
    }
  }
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.id === b.id) continue;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > TOUCH && h > TOUCH) overlaps.push([a.text, b.text, Math.round(w), Math.round(h)]);
    }
  }
  const clipped = [];
  const view = { left: 0, top: 0, right: innerWidth, bottom: Infinity };
  for (const box of boxes) {
    const clips = [view];
    for (let el = box.el; el && el !== document.documentElement; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (style.overflowX !== "visible" || style.overflowY !== "visible") {
        const r = el.getBoundingClientRect();
        clips.push({ left: r.left + el.clientLeft, top: r.top + el.clientTop,
                     right: r.left + el.clientLeft + el.clientWidth,
                     bottom: style.overflowY === "visible" ? Infinity
                       : r.top + el.clientTop + el.clientHeight });
      }
    }
    const outside = clips.find((c) => box.left < c.left - TOUCH || box.right > c.right + TOUCH
                                    || box.top < c.top - TOUCH || box.bottom > c.bottom + TOUCH);
    // (an SVG text of a chart has no CSS box to scroll: its clip is its <svg>, above)
    const narrow = box.el instanceof HTMLElement && box.el.clientWidth > 0
                   && box.el.scrollWidth > box.el.clientWidth + 1;
    if (outside || narrow)
      clipped.push([box.text, outside ? "outside its box" : "scrollWidth > clientWidth"]);
  }
  return { boxes: boxes.length, overlaps, clipped,
           sideways: document.documentElement.scrollWidth > document.documentElement.clientWidth };
})()
""".replace("TOUCH_PX", str(TOUCH))


def host_page(app: str, width: int) -> str:
    frames = "\n".join(
        f'<h2>{name}</h2><iframe id="{name}" src="{app}{src}" title="{name}" '
        f'style="border:0;width:{width}px;height:200px"></iframe>'
        for name, src in EMBEDS.items()
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">'
        f"<title>Course page at {width} px</title></head><body>\n{frames}\n"
        f"{host_snippet()}\n</body></html>"
    )


@pytest.fixture
def page(embed_browser: Browser) -> Iterator[Page]:
    context = embed_browser.new_context(viewport={"width": 1700, "height": 1000})
    page = context.new_page()
    yield page
    context.close()


def heights_followed(page: Page, frames: dict[str, Frame]) -> bool:
    """Each iframe's height is the one its document (scrollHeight) asks for."""
    for name, frame in frames.items():
        wanted = frame.evaluate("() => document.documentElement.scrollHeight")
        if page.evaluate(f"() => document.getElementById('{name}').style.height") != f"{wanted}px":
            return False
    return True


def open_host(page: Page, host: tuple[str, Path], app: str, width: int) -> dict[str, Frame]:
    """Load the host page with every embed at ``width``; its frames by name once drawn."""
    url, folder = host
    (folder / f"layout-{width}.html").write_text(host_page(app, width))
    page.goto(f"{url}/layout-{width}.html")
    for name in EMBEDS:
        frame = page.frame_locator(f"#{name}")
        frame.locator("main[aria-busy='false']").first.wait_for(timeout=30_000)
        frame.locator("#embed[data-drawn='true'], #main .plot, #main .lab-tables").first.wait_for()
    for name in EMBEDS:  # the snippet gave each iframe its content's height
        wait_for(page, f"document.getElementById('{name}').style.height !== '200px'")
    frames = {}
    for name in EMBEDS:
        handle = page.locator(f"#{name}").element_handle()
        content = handle.content_frame() if handle else None
        assert content is not None
        frames[name] = content
    # The last height message has arrived: each iframe is as tall as its document.
    deadline = time.monotonic() + 15
    while not heights_followed(page, frames):
        assert time.monotonic() < deadline, "the iframes' heights never caught up"
        after_layout(page)
    return frames


@pytest.mark.parametrize("width", WIDTHS)
def test_no_text_overlaps_or_is_clipped(
    page: Page, host_site: tuple[str, Path], embed_app_url: str, width: int
) -> None:
    errors = console_errors(page)
    frames = open_host(page, host_site, embed_app_url, width)
    for name, frame in frames.items():
        result = frame.evaluate(MEASURE)
        assert result["boxes"] > 20, (name, width, result["boxes"])  # it measured the figure
        assert result["overlaps"] == [], (name, width, result["overlaps"][:5])
        assert result["clipped"] == [], (name, width, result["clipped"][:5])
        assert not result["sideways"], (name, width, "the frame scrolls sideways")
    assert errors == []


def serious_violations(frame: Frame) -> list[tuple[str, list[Any]]]:
    """axe-core's serious and critical findings in one frame (the tables opened too)."""
    frame.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    return summary(axe_violations(frame))


def test_axe_passes_on_every_embed_in_both_themes(
    page: Page, host_site: tuple[str, Path], embed_app_url: str
) -> None:
    """Grid text on its fills, headers, the derivation line, the lab's tables: contrast
    and names as axe checks them, light and then dark (theme=auto follows the host)."""
    frames = open_host(page, host_site, embed_app_url, 720)
    for scheme in ("light", "dark"):
        mode: Literal["light", "dark"] = scheme  # type: ignore[assignment]
        page.emulate_media(color_scheme=mode)
        for name, frame in frames.items():
            wait_for(frame, f"matchMedia('(prefers-color-scheme: {scheme})').matches")
            wait_for(frame, "document.querySelector('main').getAttribute('aria-busy') === 'false'")
            assert serious_violations(frame) == [], (name, scheme)


@pytest.mark.parametrize("path", ["/embed/9?preset=i-love-llms&", "/embed/labs/masks/mask-kinds?"])
def test_a_fixed_height_scrolls_inside(page: Page, embed_app_url: str, path: str) -> None:
    """height=300: the document is 300 px tall whatever the window, and its body scrolls
    (a platform that strips the host's script gives the iframe a fixed height)."""
    errors = console_errors(page)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{embed_app_url}{path}height=300")
    page.locator("#embed[data-drawn='true'], #main[aria-busy='false']").first.wait_for()
    box = page.evaluate("document.documentElement.getBoundingClientRect().height")
    assert box == 300
    body = page.evaluate("({s: document.body.scrollHeight, c: document.body.clientHeight})")
    assert body["c"] == 300
    assert body["s"] > 600  # the whole figure is there, below the fold of the frame
    page.evaluate("document.body.scrollTop = 10000")
    assert page.evaluate("document.body.scrollTop") == body["s"] - body["c"]
    assert page.get_by_text("Open in Attention Lab").is_visible()
    assert errors == []
