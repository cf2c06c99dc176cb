"""A real model's head embeds like any figure (issue 28 item 4): the main page opened on a
head, its Embed snippet and its oEmbed discovery name the head by its short link, so the
snippet is short; the embed runs the model and draws the head's own weights (equal to
POST /api/v1/models/{id}/attention's); a model not installed is a 404 page naming it,
a hostile value a 422 naming the field, over the budget refused before the model runs,
and thirty clients on eight heads each get their head's figure."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import httpx2 as httpx
import numpy as np
import pytest
from api_helpers import iframe_srcs, strict_json
from fastapi.testclient import TestClient
from models_support import needs_minilm, needs_smollm2

from app.inputs.link import encode_body
from app.models import registry

TEXT = "kqzfmbwd kqzfmbwd"
LINK = {"model": "tiny-decoder", "text": TEXT, "layer": "2", "head": "2"}
BASE = "http://testserver"
# An iframe snippet: the address, a title, the size and the attributes, within one line.
SNIPPET_BYTES = 700


def embed_data(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="embed-data">(.*?)</script>', html, re.S)
    assert m, "no #embed-data block"
    return dict(json.loads(m.group(1)))


def weights_grid(html: str, theme: str = "light") -> np.ndarray[Any, Any]:
    """The weights grid of Figure 6 as the embed hands it to its script."""
    fig = embed_data(html)["specs"][theme]
    [grid] = [
        i["grid"]
        for row in fig["panels"]
        for i in row
        if i.get("grid", {}).get("grid") == "weights"
    ]
    return np.asarray(grid["values"], dtype=float)


def api_weights(client: TestClient, model: str, text: str, layer: int, head: int) -> Any:
    r = client.post(f"/api/v1/models/{model}/attention", json={"text": text})
    assert r.status_code == 200, r.text[:300]
    return np.asarray(r.json()["attentions"][layer - 1][head - 1], dtype=float)


def snippet(client: TestClient, page_url: str) -> str:
    r = client.get(f"/oembed?url={quote(page_url, safe='')}&format=json")
    assert r.status_code == 200, r.text[:500]
    html: str = strict_json(r.text)["html"]
    return html


def test_the_decoders_snippet_is_short_and_names_the_head(client: TestClient) -> None:
    page = f"{BASE}/?{urlencode(LINK)}&fig=6"
    html = snippet(client, page)
    assert len(html.encode()) < SNIPPET_BYTES, html
    [src] = iframe_srcs(html)
    assert src == f"{BASE}/embed/6?{urlencode(LINK)}"
    # The state it stands for, as an s= link, is a hundred times longer.
    body = client.post("/api/v1/models/tiny-decoder/head", json={"text": TEXT, "layer": 1,
                       "head": 1}).json()["body"]  # fmt: skip
    assert len(encode_body(body)) > 100 * len(html)


@pytest.mark.parametrize(
    ("model", "text", "layer", "head"),
    [("tiny-decoder", TEXT, 2, 2), ("tiny-decoder", "abcab", 1, 3),
     pytest.param("minilm", "The cat sat on the mat.", 3, 5, marks=needs_minilm),
     pytest.param("smollm2", "The capital of France is", 3, 4, marks=needs_smollm2)],
)  # fmt: skip
def test_the_embed_draws_the_heads_own_weights(
    client: TestClient, model: str, text: str, layer: int, head: int
) -> None:
    query = urlencode({"model": model, "text": text, "layer": layer, "head": head})
    r = client.get(f"/embed/6?{query}")
    assert r.status_code == 200, r.text[:500]
    got = weights_grid(r.text)
    want = api_weights(client, model, text, layer, head)
    assert got.shape == want.shape
    # The engine recomputes the head in float64 from the float32 state the model hands it.
    np.testing.assert_allclose(got, want, atol=2e-6)
    data = embed_data(r.text)
    assert data["body"] is None  # the page carries the link, never the state
    assert data["model_link"]["query"] == query
    assert len(r.content) < 60_000, len(r.content)  # MiniLM's state alone is 800 kB
    assert f'href="/?{query.replace("&", "&amp;")}&amp;fig=6#fig-6"' in r.text


def test_both_colour_schemes_and_the_view_are_kept(client: TestClient) -> None:
    query = urlencode(LINK | {"focus": "14"})
    r = client.get(f"/embed/6?{query}")
    assert r.status_code == 200
    data = embed_data(r.text)
    assert sorted(data["specs"]) == ["dark", "light"]
    assert data["view"]["focus"] == 14  # as the URL counts it
    np.testing.assert_allclose(weights_grid(r.text, "dark"), weights_grid(r.text, "light"))
    page = f"{BASE}/?{query}&fig=6"
    [src] = iframe_srcs(snippet(client, page))
    assert dict(parse_qsl(urlsplit(src).query)) == LINK | {"focus": "14"}


def test_the_oembed_of_the_embed_url_and_its_discovery(client: TestClient) -> None:
    embed = f"{BASE}/embed/6?{urlencode(LINK)}&theme=dark"
    r = client.get(f"/oembed?url={quote(embed, safe='')}&maxwidth=400&maxheight=300")
    assert r.status_code == 200, r.text
    answer = strict_json(r.text)
    assert (answer["width"], answer["height"]) == (400, 300)
    assert "Tiny induction decoder, layer 2, head 2" in answer["title"]
    assert iframe_srcs(answer["html"]) == [embed]
    # The main page opened on the head discovers the same embed.
    page = client.get(f"/?{urlencode(LINK)}&fig=6")
    found = re.search(r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"',
                      page.text)  # fmt: skip
    assert found is not None
    discovered = client.get(found.group(1).replace("&amp;", "&"))
    assert discovered.status_code == 200, discovered.text
    [src] = iframe_srcs(discovered.json()["html"])
    assert src == f"{BASE}/embed/6?{urlencode(LINK)}"
    assert client.get(src).status_code == 200


def test_the_model_page_offers_the_embed(client: TestClient) -> None:
    r = client.get("/models/tiny-decoder")
    assert r.status_code == 200
    assert 'id="embed-head"' in r.text
    assert "Embed its weights (Figure 6)" in r.text


def test_a_model_not_installed_is_a_404_page_naming_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.web.model_views.registry.installed", lambda _: False)
    query = urlencode(LINK | {"model": "minilm"})  # refused before any file is read
    r = client.get(f"/embed/6?{query}", headers={"accept": "text/html"})
    assert r.status_code == 404
    assert "No such model on this server" in r.text
    assert "Parameter <code>model</code>" in r.text
    assert "not installed; install it with: attention-lab models install minilm" in r.text
    o = client.get(f"/oembed?url={quote(f'{BASE}/embed/6?{query}', safe='')}")
    assert o.status_code == 404
    [detail] = o.json()["detail"]
    assert detail["field"] == "url"
    assert "the URL's model" in detail["msg"]


def test_a_model_that_ships_with_the_app_and_lost_its_files_says_so(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tiny decoder has no install command (it is in the repository): the page said
    # "install it with: None". A client of its own: the module's has the pages cached.
    monkeypatch.setattr("app.web.model_views.registry.installed", lambda _: False)
    client = make_client()
    query = urlencode(LINK | {"model": "tiny-decoder", "text": "abab"})
    r = client.get(f"/embed/6?{query}", headers={"accept": "text/html"})
    assert r.status_code == 404
    assert "its files are missing: restore them from the repository" in r.text
    for url in ("/models/tiny-decoder", "/models"):  # the page and the list say so too
        text = " ".join(client.get(url).text.split())
        assert "ships with the app, and its files are missing from this copy" in text, url
        assert "restore <code>app/models/data</code> from the repository" in text, url
        assert "<code>None</code>" not in text, url


def test_an_unknown_model_is_a_404_page(client: TestClient) -> None:
    r = client.get("/embed/6?model=..%2F..%2Fetc&text=a&layer=1&head=1")
    assert r.status_code == 404
    assert "there is no model" in r.text


HOSTILE = [
    ({"layer": "0"}, "layer"), ({"layer": "-1"}, "layer"), ({"layer": "1e3"}, "layer"),
    ({"layer": "99999999999999999999"}, "layer"), ({"head": "NaN"}, "head"),
    ({"head": "５"}, "head"), ({"text": ""}, "text"), ({"text": "x" * 5000}, "text"),
    ({"text": "digits 1234"}, "text"), ({"focus": "-1"}, "focus"), ({"focus": "99"}, "focus"),
    ({"theme": "neon"}, "theme"), ({"height": "1e9"}, "height"), ({"autoplay": "yes"}, "autoplay"),
    ({"editable": "1"}, "editable"), ({"controls": "scale,mask"}, "controls"),
]  # fmt: skip


@pytest.mark.parametrize(("changes", "field"), HOSTILE)
def test_hostile_values_are_a_422_naming_the_field(
    client: TestClient, changes: dict[str, str], field: str
) -> None:
    r = client.get(f"/embed/6?{urlencode(LINK | changes)}", headers={"accept": "text/html"})
    assert r.status_code == 422, (changes, r.status_code, r.text[:300])
    assert f"Parameter <code>{field}</code>" in r.text
    o = client.get(f"/oembed?url={quote(f'{BASE}/?{urlencode(LINK | changes)}&fig=6', safe='')}")
    if field in ("height", "autoplay"):  # not the state: oEmbed sizes the frame itself
        return
    assert o.status_code == 404, o.text
    assert o.json()["detail"][0]["msg"].startswith(f"the URL's {field}")


def test_over_the_budget_is_refused_before_the_model_runs(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[Any] = []
    monkeypatch.setattr("app.web.model_views.head_body", lambda *a: ran.append(a) or {})
    with make_client(max_cells=1_000) as small:
        r = small.get(f"/embed/6?{urlencode(LINK)}", headers={"accept": "text/html"})
    assert r.status_code == 422, r.text[:300]
    assert "Parameter <code>text</code>" in r.text  # the embed's own small page
    assert "more than the limit of 1,000 (ATTENTION_LAB_MAX_CELLS); reduce text" in r.text
    assert ran == []


@pytest.mark.slow
def test_thirty_clients_on_eight_heads_each_get_their_heads_figure(
    make_client: Callable[..., TestClient], run_async: Callable[..., Any]
) -> None:
    app = make_client().app
    heads = [(layer, head) for layer in (1, 2) for head in (1, 2, 3, 4)]

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            asks = [LINK | {"layer": str(heads[n % 8][0]), "head": str(heads[n % 8][1])}
                    for n in range(30)]  # fmt: skip
            return list(await asyncio.gather(*(c.get(f"/embed/6?{urlencode(a)}") for a in asks)))

    answers = run_async(run)
    assert [a.status_code for a in answers] == [200] * 30
    trace = registry.trace("tiny-decoder", TEXT).attentions
    for n, answer in enumerate(answers):
        layer, head = heads[n % 8]
        want = np.asarray(trace[layer - 1][head - 1], dtype=float)
        np.testing.assert_allclose(weights_grid(answer.text), want, atol=2e-6)
