"""GET /labs, /labs/{id}, /labs/{id}/figures.json and /embed/labs/{id}/{figure}: the index,
the pages, 404s, bad links, URL state round trips and the embeds."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient
from numpy_scripts import run_numpy_script

from app.figures.labs import LABS
from app.figures.labs.words import plain
from app.templating import environment

READY = [lab.id for lab in LABS if lab.status == "ready"]


def lab_state(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="lab-state">(.*?)</script>', html, re.S)
    assert found, "no lab-state block"
    return dict(json.loads(found.group(1)))


def figures(client: TestClient, lab: str, **params: str) -> dict[str, Any]:
    response = client.get(f"/labs/{lab}/figures.json?{urlencode(params)}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def cells(fig: dict[str, Any], table: int = 0) -> list[list[str]]:
    return list(fig["tables"][table]["cells"])


def test_index_lists_all_ten_labs_with_a_picture_each(client: TestClient) -> None:
    html = client.get("/labs").text
    ids = re.findall(r'<li class="lab-card" data-lab="([a-z-]+)" data-status="(\w+)"', html)
    assert [i for i, _ in ids] == [
        "one-query", "step-by-step", "why-scale", "masks", "order", "heads", "cost", "flash",
        "generation", "rotary",
    ]  # fmt: skip
    status = dict(ids)
    assert status == {lab.id: lab.status for lab in LABS}
    for lab in LABS:
        assert str(environment.filters["math"](lab.summary)) in html  # notation as MathML
        linked = f'href="/labs/{lab.id}"' in html
        assert linked == (lab.status == "ready"), lab.id
    pictures = re.findall(r'<img src="([^"]+)"', html)
    assert len(pictures) == len(LABS)
    for src in pictures:
        response = client.get(src)
        assert response.status_code == 200, src
        assert response.text.lstrip().startswith("<svg"), src


def test_main_page_header_links_to_the_labs(client: TestClient) -> None:
    assert '<a href="/labs">Labs</a>' in client.get("/").text


@pytest.mark.parametrize("lab_id", READY)
def test_each_ready_lab_page_has_its_figures_and_state(client: TestClient, lab_id: str) -> None:
    response = client.get(f"/labs/{lab_id}")
    assert response.status_code == 200
    html = response.text
    state = lab_state(html)
    lab = next(lab for lab in LABS if lab.id == lab_id)
    assert state["figures"] == [f.name for f in lab.figures]
    assert state["query"] == {}
    assert state["problem"] is None
    assert 'aria-busy="true"' in html
    for fig in lab.figures:
        assert f'data-figure="{fig.name}"' in html
        assert f"Copy embed code for {fig.entry}" in html
        # sources named and linked: the page text is the teaching with each mark written
        # out, its notation as MathML
        shown = str(environment.filters["math"](plain(fig.teaching)))
        assert shown in re.sub(r"</?a\b[^>]*>", "", html)
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+\s*=", html), "inline event handler"


def test_unknown_lab_is_an_html_404(client: TestClient) -> None:
    response = client.get("/labs/no-such-lab")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "no lab “no-such-lab”" in response.text


COMING = [lab.id for lab in LABS if lab.status == "coming"]


@pytest.mark.skipif(not COMING, reason="every lab is ready")
def test_a_coming_lab_says_so(client: TestClient) -> None:
    response = client.get(f"/labs/{COMING[0]}")
    assert response.status_code == 200
    assert "coming" in response.text
    assert "not built yet" in response.text


def test_figures_json_of_a_coming_or_unknown_lab_is_404(client: TestClient) -> None:
    for lab_id in COMING:
        assert client.get(f"/labs/{lab_id}/figures.json").status_code == 404
    assert client.get("/labs/nope/figures.json").status_code == 404


def test_bad_values_in_a_link_open_the_defaults_and_say_which_key(client: TestClient) -> None:
    html = client.get("/labs/one-query?scores=1,zwei,3&bogus=1&shift=2").text
    state = lab_state(html)
    assert "scores" in state["problem"]
    assert "bogus" in state["problem"]
    assert state["query"] == {"shift": "2"}  # the good key survives


def test_figures_json_names_the_bad_key(client: TestClient) -> None:
    for query, key in (("scores=1,2", "scores"), ("shift=9", "shift"), ("tied=2", "tied"),
                       ("nope=1", "nope"), ("figures=nope", "figures"),
                       ("alignment.q=nan,0", "alignment.q")):  # fmt: skip
        response = client.get(f"/labs/one-query/figures.json?{query}")
        assert response.status_code == 422, query
        detail = response.json()["detail"][0]
        assert detail["field"] == key, detail
        assert detail["loc"] == ["query", key], detail


def test_url_state_round_trip(client: TestClient) -> None:
    """A state's canonical query reopens the same numbers, on the page and in an embed."""
    first = figures(client, "one-query", scores="3,1,0.5", shift="1.5", theme="light")
    query = first["query"]
    assert query == {"scores": "3,1,0.5", "shift": "1.5"}
    again = figures(client, "one-query", **query, theme="light")
    assert again["figures"] == first["figures"]
    assert lab_state(client.get(f"/labs/one-query?{urlencode(query)}").text)["query"] == query
    link = first["links"]["softmax-table"]["link"]
    # the state, then the figure: in the query (the server reads it) and the fragment
    assert urlsplit(link).query == urlencode({**query, "figure": "softmax-table"})
    assert link.endswith("#softmax-table")
    embed_url = first["links"]["softmax-table"]["embed_url"]
    html = client.get(urlsplit(embed_url).path + "?" + urlsplit(embed_url).query).text
    caption = first["figures"]["softmax-table"]["caption"]
    assert caption in html


def test_defaults_are_left_out_of_links(client: TestClient) -> None:
    data = figures(client, "one-query", scores="2,1,0", shift="0")
    assert data["query"] == {}
    assert data["links"]["alignment"]["link"].endswith("/labs/one-query?figure=alignment#alignment")


def test_embed_of_every_figure(client: TestClient) -> None:
    for lab in LABS:
        for fig in lab.figures:
            response = client.get(f"/embed/labs/{lab.id}/{fig.name}")
            assert response.status_code == 200, (lab.id, fig.name)
            data = re.search(r'id="embed-data">(.*?)</script>', response.text, re.S)
            assert data, fig.name
            specs = json.loads(data.group(1))["specs"]
            assert sorted(specs) == ["dark", "light"]  # theme=auto follows the host
            assert specs["light"]["caption"] == specs["dark"]["caption"]


def test_embed_reads_bare_control_names_and_page_keys(client: TestClient) -> None:
    bare = client.get("/embed/labs/one-query/alignment?q=0,1&theme=light").text
    keyed = client.get("/embed/labs/one-query/alignment?alignment.q=0,1&theme=light").text
    assert "q = (0, 1)" in bare
    discovery = re.compile(r'<link rel="alternate" type="application/json\+oembed"[^>]*>')
    assert discovery.sub("", bare) == discovery.sub("", keyed)  # only the page's own URL differs
    assert "alignment.q=0%2C1" in bare  # "Open in Attention Lab" keeps the state


def test_embed_errors_are_html_and_name_the_parameter(client: TestClient) -> None:
    missing = client.get("/embed/labs/one-query/nope")
    assert missing.status_code == 404
    assert "nope" in missing.text
    assert client.get("/embed/labs/nope/alignment").status_code == 404
    bad = client.get("/embed/labs/one-query/alignment?q=five,0")
    assert bad.status_code == 400
    assert "<code>q</code>" in bad.text


def test_ndjson_streams_progress_then_the_same_answer(client: TestClient) -> None:
    query = {"figures": "score-histogram", "reproduce": "1", "theme": "light"}
    lines = [
        json.loads(line)
        for line in client.get(
            f"/labs/why-scale/figures.ndjson?{urlencode(query)}"
        ).text.splitlines()
    ]
    progress = [line["progress"] for line in lines[:-1]]
    assert progress[0]["done"] == 0
    assert [p["done"] for p in progress] == list(range(len(progress)))
    assert progress[-1]["done"] == progress[-1]["total"] > 1
    assert lines[-1]["result"] == figures(client, "why-scale", **query)


def test_over_budget_runs_name_the_control(client: TestClient) -> None:
    query = {"dks": "1,2,4,8,16,32,64,128,256,512,1024", "scaling-table.draws": "10000",
             "scaling-table.keys": "128"}  # fmt: skip
    for route in ("figures.json", "figures.ndjson"):
        response = client.get(f"/labs/why-scale/{route}?{urlencode(query)}")
        assert response.status_code == 422, route
        assert response.json()["detail"][0]["field"] == "scaling-table.draws"
        assert "reduce" in response.json()["detail"][0]["msg"]


def test_copy_as_numpy_reproduces_the_figure(client: TestClient) -> None:
    """The script runs with numpy alone and prints the numbers the figure shows."""
    query = {"saturation.seed": "7", "trials": "1000", "saturation.dk": "256"}
    script = client.get(f"/labs/why-scale/numpy/saturation?{urlencode(query)}")
    assert script.status_code == 200
    done = run_numpy_script(script.text)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout.splitlines()[0])  # the chosen d_k's run comes first
    fig = figures(client, "why-scale", figures="saturation", **query)["figures"]["saturation"]
    shown = fig["tables"][0]["cells"][0][0]  # unscaled share saturated, "… %"
    assert shown == f"{100 * printed['unscaled']['saturated_fraction']:.1f} %"
    sweep = [json.loads(line) for line in done.stdout.splitlines()]  # one run per width
    assert len(sweep) == 7
    by_width = sorted(zip([256, 16, 32, 64, 128, 512, 1024], sweep, strict=True))
    assert [row[1] for row in fig["tables"][1]["cells"]] == [
        f"{100 * run['unscaled']['saturated_fraction']:.1f} %" for _, run in by_width
    ]
    assert client.get("/labs/why-scale/numpy/flat-line").status_code == 404


def test_every_lab_figure_is_a_valid_plotly_figure_or_has_an_export(client: TestClient) -> None:
    """Charts, and the Plotly version of grids-only figures (their PNG/SVG), are figures
    plotly accepts, attribute names and all."""
    import plotly.graph_objects as go

    for lab in READY:
        for theme in ("light", "dark"):
            for name, fig in figures(client, lab, theme=theme)["figures"].items():
                chart = fig["plot"] or fig.get("export")
                assert chart is not None, (lab, name)
                go.Figure(data=chart["data"], layout=chart["layout"])
                if fig["plot"] is None:
                    kinds = {t["type"] for t in fig["export"]["data"]}
                    assert kinds == {"heatmap"}, (lab, name)
                    assert len(fig["export"]["data"]) == len(fig["grids"])


# ---- B1: any length from 2 to 8, the player's frames


def test_b1_length_resizes_the_matrices_on_the_page_and_in_links(client: TestClient) -> None:
    html = client.get("/labs/step-by-step?L=4").text
    assert html.count('data-row="3" data-col="1"') == 3  # Q, K and V each get row 3
    assert 'id="stepper--q-3-0"' in html
    data = figures(client, "step-by-step", L="4", figures="stepper", theme="light")
    assert data["query"]["L"] == "4"
    assert data["query"]["q"] == "3,-3;1,1;2,0;0,2"  # the preset's rows, then ours
    assert data["values"]["stepper"]["stepper.focus"] == "1"
    frames = data["figures"]["stepper"]["frames"]
    assert [f["step"] for f in frames] == [1, 2, 3, 4, 5]
    assert data["figures"]["stepper"]["step"] == 5
    shapes = {g["desc"]["grid"]: g["desc"]["shape"] for g in frames[3]["grids"]}
    assert shapes == {"masked": [4, 4], "weights": [4, 4], "ghost": [1, 4]}
    again = figures(client, "step-by-step", **data["query"], figures="stepper", theme="light")
    assert again["figures"] == data["figures"]  # the link reopens the same frames


def test_b1_bad_lengths_and_rows_name_the_key(client: TestClient) -> None:
    for query, key in (("L=9", "L"), ("L=1", "L"), ("q=" + ";".join(["1,1"] * 9), "q"),
                       ("v=1,2,3", "v"), ("stepper.focus=8", "stepper.focus")):  # fmt: skip
        response = client.get(f"/labs/step-by-step/figures.json?{query}")
        assert response.status_code == 422, query
        assert response.json()["detail"][0]["field"] == key


def test_b1_focus_past_the_end_is_the_last_position(client: TestClient) -> None:
    data = figures(client, "step-by-step", L="3", **{"stepper.focus": "7"}, figures="stepper")
    assert data["values"]["stepper"]["stepper.focus"] == "2"
    assert data["query"]["stepper.focus"] == "2"


def test_b1_embed_sends_the_frames_and_the_player(client: TestClient) -> None:
    html = client.get("/embed/labs/step-by-step/stepper?L=3&step=2&theme=light").text
    assert 'data-step="play"' in html
    assert 'data-step="replay"' in html
    spec = json.loads(re.search(r'id="embed-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    fig = spec["specs"]["light"]
    assert fig["step"] == 2
    assert len(fig["frames"]) == 5
    assert fig["frames"][0]["grids"][-1]["desc"]["shape"] == [3, 3]


# ---- oEmbed for lab pages and lab embeds


def oembed(client: TestClient, url: str, **extra: str) -> Any:
    return client.get("/oembed?" + urlencode({"url": url, **extra}))


def test_oembed_for_a_lab_embed_url(client: TestClient) -> None:
    r = oembed(client, "http://testserver/embed/labs/why-scale/saturation?trials=1000&theme=dark")
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["type"] == "rich"
    assert data["title"] == "Attention Lab, C2: Saturation: how often does softmax go one-hot?"
    src = re.search(r'src="([^"]+)"', data["html"]).group(1)  # type: ignore[union-attr]
    assert (
        unescape(src) == "http://testserver/embed/labs/why-scale/saturation?trials=1000&theme=dark"
    )
    # As tall as the embed draws: C2's chart alone is 700 px (its Plotly layout), the
    # title, caption and readout below it (the old constant, 560, cut it off).
    assert data["width"] == 720
    assert data["height"] > 700 + 100
    small = oembed(client, "http://testserver/embed/labs/why-scale/saturation", maxwidth="300")
    assert small.json()["width"] == 300
    assert small.json()["height"] > data["height"]  # narrower: the text wraps, taller
    assert client.get(unescape(src).removeprefix("http://testserver")).status_code == 200


def test_oembed_for_a_lab_page_names_the_figure_by_its_fragment(client: TestClient) -> None:
    url = "http://testserver/labs/step-by-step?L=3&per-position.focus=1&preset=causal#per-position"
    html = oembed(client, url).json()["html"]
    assert "/embed/labs/step-by-step/per-position?per-position.focus=1&amp;preset=causal" in html
    first = oembed(client, "http://testserver/labs/step-by-step?L=3").json()["html"]
    assert "/embed/labs/step-by-step/stepper?L=3&amp;q=" in first  # the first figure


def test_oembed_lab_errors_name_the_url(client: TestClient) -> None:
    for url in ("http://testserver/embed/labs/nope/stepper", "http://testserver/labs/nope",
                "http://testserver/embed/labs/one-query/nope", "http://testserver/labs/one-query#nope",
                "http://testserver/embed/labs/one-query/alignment?q=five,0",
                "http://testserver/labs/step-by-step?preset=nope#per-position",
                "http://other.example/embed/labs/one-query/alignment"):  # fmt: skip
        r = oembed(client, url)
        assert r.status_code == 404, url
        assert r.json()["detail"][0]["field"] == "url", url


def test_lab_pages_and_embeds_advertise_working_oembed(client: TestClient) -> None:
    for path in ("/labs/why-scale?trials=1000", "/embed/labs/one-query/alignment?q=0,1"):
        html = client.get(path).text
        found = re.search(
            r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"', html
        )
        assert found, path
        r = client.get(unescape(found.group(1)))
        assert r.status_code == 200, (path, r.text)
        assert "/embed/labs/" in r.json()["html"]


def test_embed_with_controls_shows_the_figures_own_controls(client: TestClient) -> None:
    html = client.get("/embed/labs/step-by-step/stepper?controls=1&L=3&theme=light").text
    assert 'data-role="controls"' in html
    assert 'data-key="stepper.focus"' in html  # page keys: figures.json understands them
    assert 'id="stepper--q-2-1"' in html  # the editor has L rows
    data = json.loads(re.search(r'id="embed-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert [c["key"] for c in data["controls"]] == [
        "step", "L", "stepper.scale", "stepper.mask", "stepper.focus", "q", "k", "v"
    ]  # fmt: skip
    plain = client.get("/embed/labs/step-by-step/stepper?L=3").text
    assert 'data-role="controls"' not in plain
    bad = client.get("/embed/labs/step-by-step/stepper?controls=yes")
    assert bad.status_code == 400
    assert "<code>controls</code>" in bad.text


def test_oembed_keeps_controls_and_makes_room_for_them(client: TestClient) -> None:
    data = oembed(client, "http://testserver/embed/labs/one-query/softmax-table?controls=1").json()
    assert "softmax-table?controls=1" in data["html"]
    plain = oembed(client, "http://testserver/embed/labs/one-query/softmax-table").json()
    assert data["height"] == plain["height"] + 240
