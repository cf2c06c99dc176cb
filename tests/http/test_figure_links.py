"""A link names its figure in the query (``/?…&fig=7``, ``/labs/why-scale?figure=saturation``)
and the four ways a figure leaves the site agree on it: the link the page's Link button
copies, the page's oEmbed discovery ``<link>``, the oEmbed answer and its iframe.

Browsers never send the fragment, so a discovering client (which fetches the page and
reads ``<link rel="alternate" type="application/json+oembed">``) only ever sees the query.
The page is read here as such clients read it: with an HTML parser (``html.parser``),
not a regular expression. A figure that does not exist never breaks the page: it opens
the state with a note, and its discovery link falls back to the default figure.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from api_helpers import iframe_srcs
from fastapi.testclient import TestClient

from app.export.targets import url_target
from app.figures.labs import LABS, get_lab
from app.figures.registry import BUILT_FIGURES
from app.http.embed_height import LINE
from app.inputs.link import LinkState, parse_query, to_query
from app.inputs.resolve import StateError

SITE = "http://testserver"


class Head(HTMLParser):
    """The discovery links and the JSON blocks of a page, as an oEmbed client finds them."""

    def __init__(self) -> None:
        super().__init__()
        self.oembed: list[str] = []
        self.blocks: dict[str, str] = {}
        self._block: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and a.get("type") == "application/json+oembed" and a.get("href"):
            self.oembed.append(a["href"] or "")
        if tag == "script" and a.get("type") == "application/json" and a.get("id"):
            self._block = a["id"]

    def handle_data(self, data: str) -> None:
        if self._block:
            self.blocks[self._block] = self.blocks.get(self._block, "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._block = None


def read(client: TestClient, url: str) -> Head:
    r = client.get(url.removeprefix(SITE))
    assert r.status_code == 200, (url, r.status_code, r.text[:300])
    head = Head()
    head.feed(r.text)
    return head


def discovered(client: TestClient, page: str) -> tuple[str, dict[str, Any], str]:
    """What a discovering client does with ``page`` (the fragment, as a browser would,
    never sent): the discovery href, the oEmbed JSON it answers, its iframe's src."""
    head = read(client, urlsplit(page)._replace(fragment="").geturl())
    assert len(head.oembed) == 1, head.oembed
    href = head.oembed[0]
    answer = client.get(href.removeprefix(SITE))
    assert answer.status_code == 200, (href, answer.text)
    data = answer.json()
    srcs = iframe_srcs(data["html"])
    assert len(srcs) == 1, data["html"]
    return href, data, srcs[0]


def discovery_url(href: str) -> str:
    """The page URL a discovery href asks oEmbed about."""
    return dict(parse_qsl(urlsplit(href).query))["url"]


def page_link(state: str, figure: int) -> str:
    """The Link button's URL (static/js/share.js linkFor, through state.js figureLink)."""
    return f"{SITE}/?{state}&fig={figure}#fig-{figure}"


@pytest.mark.parametrize("figure", BUILT_FIGURES)
@pytest.mark.parametrize("preset", ["causal", "two-heads"])
def test_the_link_discovery_oembed_and_iframe_name_the_same_figure(
    client: TestClient, figure: int, preset: str
) -> None:
    state = f"preset={preset}&focus=2"
    link = page_link(state, figure)
    href, data, src = discovered(client, link)
    assert discovery_url(href) == link.split("#")[0]  # the query kept, as sent
    assert urlsplit(src).path == f"/embed/{figure}"
    assert dict(parse_qsl(urlsplit(src).query)) == {"preset": preset, "focus": "2"}
    assert data["title"].startswith(f"Attention Lab, Figure {figure}:")
    # The endpoint given the whole link (fragment and all) answers the same iframe.
    direct = client.get("/oembed?" + urlencode({"url": link})).json()
    assert direct["html"] == data["html"]
    # The embed's "Open in Attention Lab" goes back to a link naming the same figure.
    embed = client.get(urlsplit(src).path + "?" + urlsplit(src).query).text
    assert f"&amp;fig={figure}#fig-{figure}" in embed
    reopened = read(client, page_link(state, figure))
    assert json.loads(reopened.blocks["initial-state"])["figure"] == figure


def test_a_link_with_a_body_state_names_its_figure_too(client: TestClient) -> None:
    body = parse_query({"preset": "cross-attention"}).body
    state = to_query(LinkState(body=body))  # s=… : a state edited on the page
    _, _, src = discovered(client, page_link(state, 11))
    assert urlsplit(src).path == "/embed/11"
    assert parse_query(dict(parse_qsl(urlsplit(src).query))).body == body


def test_old_fragment_links_discover_the_default_and_embed_their_figure_when_given_whole(
    client: TestClient,
) -> None:
    old = f"{SITE}/?preset=causal#fig-7"
    _, _, src = discovered(client, old)  # the fragment never reaches the server
    assert urlsplit(src).path == "/embed/6"
    whole = client.get("/oembed?" + urlencode({"url": old})).json()["html"]
    assert "/embed/7?preset=causal" in whole
    # The query wins over a fragment that disagrees (the query is what the server saw).
    both = client.get("/oembed?" + urlencode({"url": f"{SITE}/?fig=8#fig-7"})).json()["html"]
    assert "/embed/8" in both


@pytest.mark.parametrize(
    "fig", ["99", "0", "2", "1", "abc", "-7", "7.0", "١٢", "9" * 5000, "%00", "7,8"]
)
def test_a_figure_that_cannot_be_embedded_falls_back_to_the_default(
    client: TestClient, fig: str
) -> None:
    page = f"{SITE}/?" + urlencode({"preset": "causal", "focus": "2", "fig": fig})
    href, _, src = discovered(client, page)
    kept = dict(parse_qsl(urlsplit(discovery_url(href)).query))
    assert kept == {"preset": "causal", "focus": "2"}
    assert src == f"{SITE}/embed/6?preset=causal&focus=2"
    initial = json.loads(read(client, page).blocks["initial-state"])
    assert initial["body"] == parse_query({"preset": "causal"}).body  # the state still opens
    assert initial["view"]["focus"] == 2
    if fig in ("1", "2"):  # a figure of the page (a static diagram), not one to embed
        assert initial["figure"] == int(fig)
        assert initial["error"] is None
    else:
        assert initial["figure"] is None
        assert "fig:" in initial["error"]
        assert "state" not in initial["error"]  # only the scroll target is lost


def test_a_bad_figure_does_not_hide_a_bad_state(client: TestClient) -> None:
    initial = json.loads(read(client, "/?preset=nope&fig=99").blocks["initial-state"])
    assert "preset" in initial["error"]
    assert "fig" in initial["error"]
    assert initial["preset_id"] == "i-love-llms"


def test_the_oembed_endpoint_refuses_a_figure_it_cannot_embed(client: TestClient) -> None:
    for fig in ("99", "abc", "1", "9" * 5000):
        r = client.get("/oembed?" + urlencode({"url": f"{SITE}/?fig={fig}"}))
        assert r.status_code == 404, fig
        assert r.json()["detail"][0]["field"] == "url"


LAB_FIGURES = [(lab.id, fig.name) for lab in LABS if lab.status == "ready" for fig in lab.figures]


@pytest.mark.parametrize(("lab_id", "name"), LAB_FIGURES)
def test_a_lab_link_names_its_figure_for_discovery(
    client: TestClient, lab_id: str, name: str
) -> None:
    """The lab's Link (the API's ``links.link``) → the page → discovery → oEmbed → the
    iframe: the same figure, and the iframe the lab's Embed button copies."""
    answer = client.get(f"/api/v1/labs/{lab_id}/figures?" + urlencode({"figures": name}))
    assert answer.status_code == 200, answer.text
    links = answer.json()["links"][name]
    link = links["link"]
    assert dict(parse_qsl(urlsplit(link).query))["figure"] == name
    assert urlsplit(link).fragment == name
    href, data, src = discovered(client, link)
    assert discovery_url(href) == link.split("#")[0]
    assert data["title"].startswith("Attention Lab, ")
    assert urlsplit(src).path == f"/embed/labs/{lab_id}/{name}"
    assert src == links["embed_url"]
    srcs = iframe_srcs(links["embed"])
    assert srcs == [src]
    # Embed and oEmbed give the drawn height (app.http.embed_height), not a constant: the
    # same, but for a line of caption where oEmbed lays out the experiment's preview run.
    snippet = int(re.search(r'height="(\d+)"', links["embed"]).group(1))  # type: ignore[union-attr]
    assert abs(snippet - data["height"]) <= 2 * LINE
    if not get_lab(lab_id).figure(name).runs:  # type: ignore[union-attr]
        assert snippet == data["height"]
    page = read(client, link.split("#")[0])
    assert json.loads(page.blocks["lab-state"])["figure"] == name


def test_a_lab_page_with_an_unknown_figure_opens_and_discovers_the_first(
    client: TestClient,
) -> None:
    page = f"{SITE}/labs/why-scale?figure=nope&trials=1000"
    state = json.loads(read(client, page).blocks["lab-state"])
    assert state["figure"] is None
    assert "figure: " in state["problem"]
    assert state["query"] == {"trials": "1000"}  # the rest of the link still counts
    href, _, src = discovered(client, page)
    assert discovery_url(href) == f"{SITE}/labs/why-scale?trials=1000"
    assert urlsplit(src).path == "/embed/labs/why-scale/score-histogram"
    bad = client.get("/oembed?" + urlencode({"url": page}))
    assert bad.status_code == 404
    assert "nope" in bad.json()["detail"][0]["msg"]


def test_the_lab_query_wins_over_its_fragment_and_the_fragment_still_works(
    client: TestClient,
) -> None:
    def embedded(url: str) -> str:
        srcs = iframe_srcs(client.get("/oembed?" + urlencode({"url": url})).json()["html"])
        return urlsplit(srcs[0]).path

    assert embedded(f"{SITE}/labs/why-scale#saturation") == "/embed/labs/why-scale/saturation"
    both = f"{SITE}/labs/why-scale?figure=flat-line#saturation"
    assert embedded(both) == "/embed/labs/why-scale/flat-line"


def test_the_export_command_reads_the_figure_from_the_query() -> None:
    assert url_target(f"{SITE}/?preset=causal&fig=7#fig-7", None).figures == (7,)
    assert url_target(f"{SITE}/?preset=causal&fig=7", None).figures == (7,)
    assert url_target(f"{SITE}/?preset=causal#fig-9", None).figures == (9,)  # older links
    assert "fig" not in url_target(f"{SITE}/?preset=causal&fig=7", None).params
    lab = url_target(f"{SITE}/labs/why-scale?figure=saturation&trials=1000", None)
    assert (lab.lab, lab.lab_figures, lab.params) == ("why-scale", ("saturation",),
                                                      {"trials": "1000"})  # fmt: skip
    with pytest.raises(StateError) as refused:
        url_target(f"{SITE}/?fig=99", None)
    assert refused.value.param == "fig"
    with pytest.raises(StateError):
        url_target(f"{SITE}/labs/why-scale?figure=nope", None)
