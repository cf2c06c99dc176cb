"""/embed/{figure} and /oembed: every figure, option, error page and the oEmbed response."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from api_helpers import MakeClient
from fastapi.testclient import TestClient

from app.figures import BUILDERS
from app.inputs.link import encode_body

FIGURES = sorted(BUILDERS)


@pytest.fixture(scope="module")
def client(make_client: MakeClient) -> TestClient:
    return make_client(frame_ancestors="https://lms.example.edu")


def embed_data(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="embed-data">(.*?)</script>', html, re.S)
    assert m, "no #embed-data block"
    return dict(json.loads(m.group(1)))


class Scripts(HTMLParser):
    """Collects <script> tags and inline event handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs))
        self.handlers += [name for name, _ in attrs if name.startswith("on")]


@pytest.mark.parametrize("figure", FIGURES)
def test_every_figure_embeds(client: TestClient, figure: int) -> None:
    r = client.get(f"/embed/{figure}?preset=i-love-llms")
    assert r.status_code == 200, r.text[:500]
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"].endswith("frame-ancestors https://lms.example.edu")
    assert "x-frame-options" not in r.headers
    data = embed_data(r.text)
    assert data["figure"] == figure
    assert set(data["specs"]) == {"light", "dark"}  # theme=auto by default
    assert data["specs"]["light"]["number"] == figure
    assert f'id="fig-{figure}"' in r.text
    assert "site-header" not in r.text  # no site chrome
    # "Open in Attention Lab": the page, naming the figure in its query and fragment
    assert f'href="/?preset=i-love-llms&amp;fig={figure}#fig-{figure}"' in r.text
    assert 'rel="alternate" type="application/json+oembed"' in r.text


def test_no_inline_script_or_handlers(client: TestClient) -> None:
    parser = Scripts()
    parser.feed(client.get("/embed/6?editable=1").text)
    assert parser.handlers == []
    for attrs in parser.scripts:  # every script is a file or a JSON data block
        assert attrs.get("src") or attrs.get("type") == "application/json", attrs


def test_state_from_s_and_view(client: TestClient) -> None:
    body = {"tokens": ["a", "b"], "x": [[1, 0], [0, 1]], "w_q": [[1, 0], [0, 1]],
            "w_k": [[2, 0], [0, 1]], "w_v": [[1, 1], [0, 1]], "mask": "causal"}  # fmt: skip
    r = client.get(f"/embed/6?s={encode_body(body)}&focus=0&theme=dark")
    assert r.status_code == 200
    data = embed_data(r.text)
    assert data["body"] == body
    assert data["view"]["focus"] == 0
    assert list(data["specs"]) == ["dark"]
    assert 'data-theme="dark"' in r.text
    link = re.search(r'id="open-link"|href="(/\?s=[^"]+)"', r.text)
    assert link
    opened = re.search(r'href="/\?([^"#]+)#fig-6"', r.text)
    assert opened
    query = parse_qs(opened.group(1).replace("&amp;", "&"))
    assert query["s"] == [encode_body(body)]
    assert query["theme"] == ["dark"]
    assert query["focus"] == ["0"]
    assert query["fig"] == ["6"]


def test_one_token_state_gets_focus_zero(client: TestClient) -> None:
    body = {"x": [[1, 2]], "w_q": [[1], [0]], "w_k": [[1], [1]], "w_v": [[1], [2]]}
    r = client.get(f"/embed/6?s={encode_body(body)}")
    assert r.status_code == 200
    assert embed_data(r.text)["view"]["focus"] == 0


def test_read_only_by_default(client: TestClient) -> None:
    html = client.get("/embed/6").text
    assert "data-matrix" not in html
    assert 'id="controls"' not in html
    assert "Open in Attention Lab" in html


def test_editable_shows_the_matrices_the_figure_depends_on(client: TestClient) -> None:
    html = client.get("/embed/6?preset=cross-attention&editable=1").text
    matrices = set(re.findall(r'data-matrix="(\w+)"', html))
    assert matrices == {"x", "source_x", "w_q", "w_k", "w_v"}
    assert 'data-matrix="source_x" data-row="3" data-col="0" value="1"' in html
    for control in ("scale", "mask", "focus"):
        assert f'id="{control}"' in html
    if 12 in BUILDERS:  # Figure 12's textbook row depends on no input: no editor
        html12 = client.get("/embed/12?editable=1").text
        assert "data-matrix" not in html12
        assert 'id="stretch"' in html12


def test_controls_shows_only_those(client: TestClient) -> None:
    html = client.get("/embed/6?controls=scale,focus").text
    assert 'id="scale"' in html
    assert 'id="focus"' in html
    assert 'id="mask"' not in html
    assert "data-matrix" not in html


@pytest.mark.parametrize("figure", ["99", "2", "abc", "-6", "6.0"])
def test_unknown_figure_is_a_404_page(client: TestClient, figure: str) -> None:
    r = client.get(f"/embed/{figure}")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "<code>figure</code>" in r.text


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("preset=nope", "preset"),
        ("s=%25%25", "s"),
        (f"s={encode_body({'x': [[1, 2], [3]]})}", "s"),
        (f"s={encode_body({'x': [[1e300]], 'w_q': [[1]], 'w_k': [[1]], 'w_v': [[1]]})}", "s"),
        ("focus=5", "focus"),
        ("focus=-1", "focus"),
        ("head=2", "head"),
        ("stretch=abc", "stretch"),
        ("stretch=1000", "stretch"),
        ("row=sideways", "row"),
        ("theme=purple", "theme"),
        ("editable=yes", "editable"),
        ("controls=scale,volume", "controls"),
    ],
)
def test_bad_state_is_a_400_page_naming_the_parameter(
    client: TestClient, query: str, param: str
) -> None:
    r = client.get(f"/embed/6?{query}")
    assert r.status_code == 400, r.text[:300]
    assert r.headers["content-type"].startswith("text/html")
    assert f"<code>{param}</code>" in r.text


def test_script_json_cannot_close_the_script(client: TestClient) -> None:
    body = {"tokens": ["</script><b>x", "&amp;"], "x": [[1], [2]], "w_q": [[1]], "w_k": [[1]],
            "w_v": [[1]]}  # fmt: skip
    r = client.get(f"/embed/6?s={encode_body(body)}")
    assert r.status_code == 200
    assert "</script><b>" not in r.text
    assert embed_data(r.text)["tokens"] == ["</script><b>x", "&amp;"]


# ---- oEmbed ----


def oembed(client: TestClient, url: str, **extra: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in extra.items())
    return client.get(f"/oembed?url={quote(url, safe='')}" + (f"&{query}" if query else ""))


def test_oembed_rich_response(client: TestClient) -> None:
    r = oembed(client, "http://testserver/embed/6?preset=causal&theme=dark", format="json")
    assert r.status_code == 200
    data = r.json()
    for key in ("version", "type", "provider_name", "provider_url", "title", "html", "width",
                "height"):  # fmt: skip
        assert key in data
    assert data["version"] == "1.0"
    assert data["type"] == "rich"
    assert data["provider_name"] == "Attention Lab"
    assert data["provider_url"] == "http://testserver/"
    assert "Figure 6" in data["title"]
    assert "causal" in data["title"]
    src = re.search(r'<iframe src="([^"]+)"', data["html"])
    assert src
    parts = urlsplit(src.group(1).replace("&amp;", "&"))
    assert parts.path == "/embed/6"
    assert parse_qs(parts.query) == {"preset": ["causal"], "theme": ["dark"]}
    assert f'title="{data["title"]}"' in data["html"]
    assert f'width="{data["width"]}" height="{data["height"]}"' in data["html"]
    # the iframe it hands out really renders
    assert client.get(src.group(1).replace("&amp;", "&")).status_code == 200


def test_oembed_for_a_page_url_uses_the_fragment(client: TestClient) -> None:
    data = oembed(client, "http://testserver/?preset=two-heads&head=1#fig-7").json()
    assert "/embed/7?preset=two-heads&amp;head=1" in data["html"]
    default = oembed(client, "http://testserver/?preset=two-heads").json()
    assert "/embed/6?preset=two-heads" in default["html"]


def test_oembed_honours_maxwidth_maxheight(client: TestClient) -> None:
    full = oembed(client, "http://testserver/embed/6").json()
    small = oembed(client, "http://testserver/embed/6", maxwidth="300", maxheight="200").json()
    assert small["width"] == 300 < full["width"]
    assert small["height"] == 200 < full["height"]
    assert 'width="300" height="200"' in small["html"]
    big = oembed(client, "http://testserver/embed/6", maxwidth="5000").json()
    assert big["width"] == full["width"]


def test_oembed_errors(client: TestClient) -> None:
    assert oembed(client, "http://testserver/embed/6", format="xml").status_code == 501
    for url in ("http://other.example/embed/6", "http://testserver/api/v1/presets",
                "http://testserver/embed/99", "http://testserver/embed/6?preset=nope",
                "javascript:alert(1)", ""):  # fmt: skip
        r = oembed(client, url)
        assert r.status_code == 404, url
        assert r.json()["detail"][0]["field"] == "url"
    r = oembed(client, "http://testserver/embed/6", maxwidth="wide")
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "maxwidth"


def test_oembed_discovery_link_points_back(client: TestClient) -> None:
    html = client.get("/embed/8?preset=causal").text
    m = re.search(r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"', html)
    assert m
    href = m.group(1).replace("&amp;", "&")
    r = client.get(href)
    assert r.status_code == 200
    assert "/embed/8?preset=causal" in r.json()["html"]


def test_embed_carries_the_numbers_as_a_table(client: TestClient) -> None:
    """The screen-reader alternative is in the served HTML, before any script runs."""
    html = client.get("/embed/6?preset=i-love-llms").text
    tables = re.findall(r'<table class="data-table">.*?</table>', html, flags=re.S)
    assert tables, "no data table in the embed"
    weights = tables[0]
    assert '<th scope="col">love</th>' in weights
    assert '<th scope="row">love</th><td>0.14</td><td>0.63</td><td>0.23</td>' in weights


def test_only_figure_3_embeds_carry_the_player(client: TestClient) -> None:
    assert 'data-step="play"' in client.get("/embed/3?preset=i-love-llms").text
    assert 'data-step="play"' not in client.get("/embed/6?preset=i-love-llms").text


@pytest.mark.parametrize("figure", [3, 4, 6, 7, 8, 9, 11])
def test_grid_figures_embed_grids_not_plotly(client: TestClient, figure: int) -> None:
    """A figure of number grids is sent as its grid descriptions (drawn like the page);
    no Plotly conversion is computed or shipped, and plotly.js is not even loaded."""
    r = client.get(f"/embed/{figure}?preset=i-love-llms")
    spec = embed_data(r.text)["specs"]["dark"]
    assert not {"data", "layout", "frames"} & set(spec), sorted(spec)
    grids = [item["grid"] for row in spec["panels"] for item in row if "grid" in item]
    assert grids
    assert all(g["palette"] and g["values"] for g in grids)
    assert not any("ref" in item for row in spec["panels"] for item in row)
    assert spec["tables"]
    assert "tables_deferred" not in spec
    assert "plotly-cartesian" not in r.text
    assert 'role="figure"' in r.text


@pytest.mark.parametrize("figure", [5, 10, 12, 13])
def test_charts_embed_plotly(client: TestClient, figure: int) -> None:
    r = client.get(f"/embed/{figure}?preset=i-love-llms&theme=light")
    spec = embed_data(r.text)["specs"]["light"]
    assert spec["data"]
    assert spec["layout"]
    assert not spec.get("panels")
    assert "plotly-cartesian" in r.text


def test_figure_9_embed_prints_its_numbers_in_full(client: TestClient) -> None:
    """The Plotly embed showed "1.63" as "1.6"; the grid carries the text as formatted."""
    spec = embed_data(client.get("/embed/9?preset=i-love-llms&theme=light").text)["specs"]
    texts = [t for row in spec["light"]["panels"] for item in row if "grid" in item
             for line in item["grid"]["text"] for t in line]  # fmt: skip
    assert "1.63" in texts


@pytest.mark.parametrize(
    ("query", "frame"),
    [("", {"height": None, "autoplay": False}), ("&height=200&autoplay=1",
     {"height": 200, "autoplay": True}), ("&height=4000&autoplay=0",
     {"height": 4000, "autoplay": False})],
)  # fmt: skip
def test_frame_options_reach_the_script(client: TestClient, query: str, frame: object) -> None:
    for path in ("/embed/3?preset=i-love-llms", "/embed/labs/masks/mask-kinds?"):
        r = client.get(path + query)
        assert r.status_code == 200, (path, r.text[:300])
        assert embed_data(r.text)["frame"] == frame


@pytest.mark.parametrize(
    ("query", "name"),
    [("height=199", "height"), ("height=4001", "height"), ("height=abc", "height"),
     ("height=50%25", "height"), ("height=", "height"), ("height=%D9%A3%D9%A3%D9%A3", "height"),
     ("autoplay=yes", "autoplay"), ("autoplay=", "autoplay"), ("autoplay=2", "autoplay")],
)  # fmt: skip
def test_bad_frame_options_are_a_400_naming_them(client: TestClient, query: str, name: str) -> None:
    for path in ("/embed/3?preset=i-love-llms&", "/embed/labs/masks/mask-kinds?"):
        r = client.get(path + query)
        assert r.status_code == 400, (path, query, r.status_code)
        assert name in r.text
