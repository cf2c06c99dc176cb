"""GET / and the static files: state from the link, bad links, escaping, caching, gzip."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from fastapi.testclient import TestClient

from app.figures import BUILT_FIGURES
from app.figures.registry import FIGURES, focus_figures_text, page_lists
from app.inputs.body import MAX_LABEL_CHARS
from app.inputs.link import LinkState, encode_body, to_query
from app.inputs.view import ViewState, url_defaults
from app.presets import RUNNING_EXAMPLE
from app.web.assets import IMMUTABLE, REVALIDATE, asset_hash


def initial_state(html: str) -> dict[str, object]:
    found = re.search(
        r'<script type="application/json" id="initial-state">(.*?)</script>', html, re.S
    )
    assert found, "no initial-state block"
    return dict(json.loads(found.group(1)))


def test_index_hands_the_running_example_to_the_script(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert '<html lang="en"' in response.text
    state = initial_state(response.text)
    assert state["body"] == RUNNING_EXAMPLE
    assert state["preset_id"] == "i-love-llms"
    assert state["error"] is None
    for n in range(1, 14):  # the tutorial's Figures 1-13, in order
        assert f'id="fig-{n}"' in response.text
    positions = [response.text.index(f'id="fig-{n}"') for n in range(1, 14)]
    assert positions == sorted(positions)
    assert "Figures 1–13" in response.text


def test_page_figures_are_exactly_the_registrys(client: TestClient) -> None:
    """Panels in registry order with its titles (no placeholder to replace), and the JS's
    figure lists from the registry in #initial-state."""
    html = client.get("/").text
    panels = re.findall(
        r'<section class="figure-panel" id="fig-(\d+)".*?<span data-role="title">(.*?)</span>',
        html,
        re.S,
    )
    assert [(int(n), unescape(t)) for n, t in panels] == [(f.number, f.title) for f in FIGURES]
    static = re.findall(r'id="fig-(\d+)"[^>]*data-static', html)
    assert [int(n) for n in static] == [f.number for f in FIGURES if f.kind == "static"]
    assert initial_state(html)["figures"] == page_lists()
    assert initial_state(html)["figures"]["live"] == list(BUILT_FIGURES)


def test_a_two_head_link_shows_the_titles_its_figures_will_have(client: TestClient) -> None:
    body = {**RUNNING_EXAMPLE, "heads": 2}
    query = to_query(LinkState(body=body, view=ViewState(head=1), preset_id=None))
    html = client.get("/?" + query).text
    shown = re.findall(r'id="fig-(\d+)-title">.*?<span data-role="title">(.*?)</span>', html)
    answer = client.post("/api/v1/figures", json={**body, "view": {"head": 1}}).json()
    built = {int(n): fig["title"] for n, fig in answer["figures"].items()}
    assert built[4] == "Three projections of one X (head 2 of 2)"
    assert {int(n): unescape(t) for n, t in shown if int(n) in built} == built


def test_page_has_no_inline_script_code_or_handlers(client: TestClient) -> None:
    html = client.get("/").text
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+\s*=", html), "inline event handler"


def test_link_state_is_restored(client: TestClient) -> None:
    body = {**RUNNING_EXAMPLE, "mask": "causal", "x": [[1, 2, 3, 4], [0, 1, 0, 1]],
            "tokens": ["a", "b"]}  # fmt: skip
    view = ViewState(focus=0, head=0, stretch=4.0, row="focus", theme="dark")
    query = to_query(LinkState(body=body, view=view))
    html = client.get(f"/?{query}").text
    state = initial_state(html)
    assert state["body"] == body
    assert state["view"] == {"focus": 0, "head": 0, "stretch": 4.0, "row": "focus",
                             "theme": "dark"}  # fmt: skip
    assert 'data-theme="dark"' in html


@pytest.mark.parametrize(
    ("query", "named"),
    [("s=abc", "s:"), ("preset=nope", "preset"), ("focus=x", "focus"),
     (f"s={encode_body({**RUNNING_EXAMPLE, 'x': 'abc'})}", "x"),
     (f"s={encode_body({**RUNNING_EXAMPLE, 'w_q': [[1e9]]})}", "w_q"), ("focus=7", "focus")],
)  # fmt: skip
def test_a_bad_link_opens_the_page_with_a_message(
    client: TestClient, query: str, named: str
) -> None:
    response = client.get(f"/?{query}")
    assert response.status_code == 200
    state = initial_state(response.text)
    assert isinstance(state["error"], str)
    assert named in state["error"]
    assert 'id="page-error"' in response.text


ONE_TOKEN = {"x": [[1.0, 0.0]], "w_q": [[1.0], [0.0]], "w_k": [[1.0], [0.0]],
             "w_v": [[1.0], [1.0]], "tokens": ["solo"]}  # fmt: skip


def test_a_one_token_link_opens_on_token_0_without_a_warning(client: TestClient) -> None:
    """The default focus is row 1, or 0 when there is one token: no false warning."""
    response = client.get(f"/?s={encode_body(ONE_TOKEN)}")
    assert response.status_code == 200
    state = initial_state(response.text)
    assert state["error"] is None
    assert state["view"]["focus"] == 0  # type: ignore[index]
    assert re.search(r'<p id="page-error"[^>]*\bhidden>', response.text)
    assert "does not exist" not in response.text


def test_a_focus_past_the_tokens_opens_on_token_0_with_a_note(client: TestClient) -> None:
    state = initial_state(client.get(f"/?s={encode_body(ONE_TOKEN)}&focus=1").text)
    assert state["view"]["focus"] == 0  # type: ignore[index]
    assert "focus token (position 1) does not exist" in str(state["error"])


def test_the_default_focus_is_the_same_for_the_page_the_embed_and_the_export(
    client: TestClient,
) -> None:
    s = encode_body(ONE_TOKEN)
    embed = client.get(f"/embed/6?s={s}")
    assert embed.status_code == 200
    assert "/?s=" in embed.text
    export = client.get(f"/api/v1/export?format=numpy&s={s}&row=focus")
    assert export.status_code == 200
    assert "head_scaled[0]" in export.text
    figures = client.post("/api/v1/figures?draw=grids", json={**ONE_TOKEN, "view": {}})
    assert figures.status_code == 200
    assert figures.json()["state"]["view"]["focus"] == 0


def test_the_label_limit_reaches_the_page_from_the_server(client: TestClient) -> None:
    """One limit for token labels (app.inputs.body): the markup and the script read it."""
    html = client.get("/").text
    assert initial_state(html)["limits"] == {"label_chars": MAX_LABEL_CHARS}
    inputs = re.findall(r'<input class="token"[^>]*>', html)
    assert inputs
    assert all(f'maxlength="{MAX_LABEL_CHARS}"' in tag for tag in inputs)
    editor = (Path(__file__).resolve().parents[2] / "static/js/editor.js").read_text("utf-8")
    assert not re.search(r"maxlength:\s*\d", editor)


def test_token_labels_are_escaped(client: TestClient) -> None:
    label = "</script><img src=x onerror=alert(1)>"
    body = {**RUNNING_EXAMPLE, "tokens": [label, "love", "LLMs"]}
    html = client.get(f"/?s={encode_body(body)}").text
    assert "<img src=x" not in html
    assert initial_state(html)["body"]["tokens"][0] == label  # type: ignore[index]


def test_hashed_assets_are_immutable_and_others_revalidate(client: TestClient) -> None:
    good = client.get(f"/static/js/main.js?v={asset_hash('js/main.js')}")
    assert good.status_code == 200
    assert good.headers["cache-control"] == IMMUTABLE
    for url in ("/static/js/main.js", "/static/js/main.js?v=stale", "/static/js/api.js"):
        response = client.get(url)
        assert response.headers["cache-control"] == REVALIDATE, url
    etag = client.get("/static/js/api.js").headers["etag"]
    assert client.get("/static/js/api.js", headers={"If-None-Match": etag}).status_code == 304
    assert client.get("/static/nope.js").status_code == 404


def test_every_asset_url_in_the_page_is_current(client: TestClient) -> None:
    html = client.get("/").text
    for path, version in re.findall(r'"/static/([^"?]+)\?v=([0-9a-f]+)"', html):
        assert version == asset_hash(path)
        assert client.get(f"/static/{path}?v={version}").headers["cache-control"] == IMMUTABLE


def test_text_assets_are_gzipped(client: TestClient) -> None:
    response = client.get(
        "/static/vendor/plotly-cartesian-4.1.1.min.js", headers={"Accept-Encoding": "gzip"}
    )
    assert response.headers["content-encoding"] == "gzip"
    assert response.num_bytes_downloaded < 600_000  # bytes on the wire, before decoding
    assert (
        client.get("/", headers={"Accept-Encoding": "gzip"}).headers["content-encoding"] == "gzip"
    )


def test_entry_hash_covers_every_module(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "js/main.js").write_text('import "./a.js";')
    (tmp_path / "js/a.js").write_text("export const a = 1;")
    before = asset_hash("js/main.js", tmp_path)
    (tmp_path / "js/a.js").write_text("export const a = 2;  // changed")
    assert asset_hash("js/main.js", tmp_path) != before


def test_page_carries_the_oembed_discovery_link(client: TestClient) -> None:
    page = "http://testserver/?preset=causal&focus=2"
    html = client.get(page).text
    pattern = r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"'
    links = re.findall(pattern, html)
    assert len(links) == 1, links
    href = links[0].replace("&amp;", "&")
    path, query = href.split("?", 1)
    assert path == "http://testserver/oembed"
    assert dict(parse_qsl(query)) == {"url": page, "format": "json"}
    answer = client.get(href)
    assert answer.status_code == 200
    assert answer.json()["type"] == "rich"
    assert 'src="http://testserver/embed/6?preset=causal&amp;focus=2"' in answer.json()["html"]


def test_every_figure_has_a_share_toolbar_of_buttons(client: TestClient) -> None:
    html = client.get("/").text
    for n in range(3, 14):
        for label in (f"Copy embed code for Figure {n}", f"Copy link to Figure {n}",
                      f"Download Figure {n} as PNG", f"Download Figure {n} as SVG"):  # fmt: skip
            assert re.search(rf'<button type="button"[^>]*aria-label="{label}"', html), label
    for kind in ("numpy", "csv", "json"):
        assert f'data-share="{kind}"' in html


def test_the_page_and_the_embed_get_the_view_defaults_from_the_server(client: TestClient) -> None:
    # One table (app.inputs.view.url_defaults): the script writes links with it.
    assert initial_state(client.get("/").text)["view_defaults"] == url_defaults()
    embed = client.get("/embed/6").text
    data = json.loads(re.search(r'id="embed-data">(.*?)</script>', embed, re.S).group(1))
    assert data["view_defaults"] == url_defaults()
    js_test = (Path(__file__).parents[1] / "js" / "state.test.mjs").read_text(encoding="utf-8")
    copy = re.search(r"const VIEW_DEFAULTS = (\{.*?\});", js_test).group(1)
    assert json.loads(re.sub(r"(\w+):", r'"\1":', copy)) == url_defaults()


def test_the_focus_hint_and_the_api_docs_name_the_registry_figures(client: TestClient) -> None:
    text = "Figures 3, 4, 6, 7, 8 and 9 (and Figure 12, when its row is the focus)"
    assert focus_figures_text() == text  # follows FIGURES: a new focus figure changes it
    assert f"the focus token is the row explained by {text}." in unescape(client.get("/").text)
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    assert text in schemas["ViewRequest"]["properties"]["focus"]["description"]
