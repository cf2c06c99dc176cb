"""Lab controls read numbers with THE number grammar of a URL (ASCII decimals, finite; the
one the page's own parameters use), and a vector dragged on a chart is bounded before it
is snapped: every hostile value is a 4xx naming its URL key on the page (the message is
shown and the defaults are used), in figures.json and figures.ndjson (422), in an embed
(400) and in oEmbed (404 naming the URL and the key), never a 500."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from fastapi.testclient import TestClient

# Each is accepted by Python's float() or int() (or both), and refused here.
HOSTILE = ["١٢", "１２", "1_2", " 12", "12 ", "0x10", "inf", "-inf", "nan", "Infinity", "1e400"]
# Finite, but q·k and the snap's round() overflow with them (round(inf) was a 500).
HUGE_Q = ["1e308,1e308", "-1e308,1e308", "1000001,0", "2e6,0"]


def lab_state(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="lab-state">(.*?)</script>', html, re.S)
    assert found, "no lab-state block"
    return dict(json.loads(found.group(1)))


def query(**params: str) -> str:
    return urlencode(params, quote_via=quote)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_number_on_the_page_opens_the_defaults_and_names_the_key(
    client: TestClient, text: str
) -> None:
    r = client.get(f"/labs/one-query?{query(shift=text, scores='3,1,0')}")
    assert r.status_code == 200
    state = lab_state(r.text)
    assert state["problem"] is not None
    assert "shift" in state["problem"]
    assert state["query"] == {"scores": "3,1,0"}  # shift fell back to its default; the rest kept


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_number_in_figures_json_is_a_422_naming_the_key(
    client: TestClient, text: str
) -> None:
    for lab, key in (("one-query", "shift"), ("why-scale", "score-histogram.seed")):
        r = client.get(f"/labs/{lab}/figures.json?{query(**{key: text})}")
        assert r.status_code == 422, (lab, text, r.text)
        assert r.headers["content-type"].startswith("application/json")
        detail = r.json()["detail"][0]
        assert (detail["field"], detail["loc"]) == (key, ["query", key]), detail


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_number_in_an_embed_is_a_400_naming_the_key(
    client: TestClient, text: str
) -> None:
    for path, key in (
        ("/embed/labs/one-query/softmax-table", "shift"),
        ("/embed/labs/why-scale/score-histogram", "seed"),  # an embed reads bare names
        ("/embed/labs/why-scale/score-histogram", "score-histogram.seed"),
    ):
        r = client.get(f"{path}?{query(**{key: text})}")
        assert r.status_code == 400, (path, text)
        assert f"<code>{key}</code>" in r.text


@pytest.mark.parametrize("q", HUGE_Q)
def test_a_huge_dragged_query_is_a_4xx_naming_alignment_q_everywhere(
    client: TestClient, q: str
) -> None:
    key = "alignment.q"
    page = client.get(f"/labs/one-query?{query(**{key: q})}")
    assert page.status_code == 200
    state = lab_state(page.text)
    assert key in state["problem"]
    assert "1,000,000" in state["problem"]
    assert key not in state["query"]
    for route in ("figures.json", "figures.ndjson"):
        r = client.get(f"/labs/one-query/{route}?{query(**{key: q, 'figures': 'alignment'})}")
        assert r.status_code == 422, (route, r.text)
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["detail"][0]["field"] == key
    for name in (key, "q"):
        embed = client.get(f"/embed/labs/one-query/alignment?{query(**{name: q})}")
        assert embed.status_code == 400
        assert f"<code>{name}</code>" in embed.text
    url = f"http://testserver/embed/labs/one-query/alignment?{query(**{key: q})}"
    oembed = client.get(f"/oembed?{query(url=url)}")
    assert oembed.status_code == 404
    detail = oembed.json()["detail"][0]
    assert detail["field"] == "url"
    assert key in detail["msg"]


def test_the_largest_allowed_drag_is_snapped_and_clamped(client: TestClient) -> None:
    r = client.get(f"/labs/one-query/figures.json?{query(**{'alignment.q': '1e6,-1e6'})}")
    assert r.status_code == 200, r.text
    assert r.json()["query"] == {"alignment.q": "2,-2"}


def test_the_help_of_the_dragged_query_states_its_bound(client: TestClient) -> None:
    html = client.get("/labs/one-query").text
    assert "±1,000,000 are refused" in html


def test_plain_decimals_still_read(client: TestClient) -> None:
    for text, canonical in (("1.5", "1.5"), ("+2", "2"), ("-.5", "-0.5"), ("1e-1", "0.1")):
        r = client.get(f"/labs/one-query/figures.json?{query(shift=text)}")
        assert r.status_code == 200, (text, r.text)
        assert r.json()["query"] == {"shift": canonical}
