"""A real third-party oEmbed consumer, pyoembed (a test dependency), discovers and embeds
the figure a teacher linked.

pyoembed's auto-discovery does what course platforms do with a pasted link: it GETs the
page (never sending the fragment: it is not part of an HTTP request), finds
``<link type="application/json+oembed" href=…>`` with BeautifulSoup, GETs that endpoint
and validates the ``rich`` answer. It speaks real HTTP (requests), so the app is served by
uvicorn on a free loopback port in a thread for this module. Before issue 29,
``/?preset=causal#fig-7`` embedded Figure 6 and ``/labs/why-scale#saturation`` C1 here.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import uvicorn
from api_helpers import iframe_srcs
from live_server import free_port, in_thread
from pyoembed import oEmbed

from app.settings import Settings


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    from app.main import create_app

    port = free_port()
    config = uvicorn.Config(create_app(Settings()), host="127.0.0.1", port=port,
                            log_level="warning", access_log=False)  # fmt: skip
    with in_thread(config):
        yield f"http://127.0.0.1:{port}"


def embedded_path(site: str, link: str) -> str:
    """The path of the iframe pyoembed embeds for ``link``."""
    data = oEmbed(site + link)
    assert data["type"] == "rich"
    srcs = iframe_srcs(data["html"])
    assert len(srcs) == 1, data["html"]
    assert srcs[0].startswith(site + "/embed/")
    return urlsplit(srcs[0]).path


@pytest.mark.parametrize(
    ("link", "path"),
    [
        ("/?preset=causal&fig=7#fig-7", "/embed/7"),  # the Link button's form
        ("/?preset=causal&fig=12&focus=2", "/embed/12"),
        ("/?preset=two-heads&head=1&fig=3#fig-3", "/embed/3"),
        ("/labs/why-scale?figure=saturation#saturation", "/embed/labs/why-scale/saturation"),
        ("/labs/masks?figure=empty-row", "/embed/labs/masks/empty-row"),
        ("/labs/heads?figure=four-heads#four-heads", "/embed/labs/heads/four-heads"),
    ],
)
def test_a_discovering_client_embeds_the_linked_figure(site: str, link: str, path: str) -> None:
    assert embedded_path(site, link) == path


def test_unknown_figures_and_fragment_only_links_embed_the_default(site: str) -> None:
    # A figure that does not exist: the page loads and the default figure is discovered.
    assert embedded_path(site, "/?preset=causal&fig=99") == "/embed/6"
    assert (
        embedded_path(site, "/labs/why-scale?figure=nope")
        == "/embed/labs/why-scale/score-histogram"
    )
    # An older link's fragment cannot reach the server, so discovery shows the default
    # (a browser still scrolls to it; the oEmbed endpoint given the whole URL reads it).
    assert embedded_path(site, "/?preset=causal#fig-7") == "/embed/6"


def test_a_real_heads_link_embeds_the_head_by_its_short_link(site: str) -> None:
    # The Link button's form on the main page opened on the tiny decoder's head.
    head = "model=tiny-decoder&text=kqzfmbwd+kqzfmbwd&layer=2&head=2"
    data = oEmbed(f"{site}/?{head}&fig=7#fig-7")
    [src] = iframe_srcs(data["html"])
    assert src == f"{site}/embed/7?{head}"
    assert "Tiny induction decoder, layer 2, head 2" in data["title"]
