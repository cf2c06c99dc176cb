"""The flash lab over HTTP: its page, its figures API (state round trip, bad and hostile
values named by key), embeds, oEmbed, and many clients at once."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from api_helpers import lab_script
from fastapi.testclient import TestClient

from app.figures.labs.flash import common
from app.labs import flash


def answer(client: TestClient, **params: str) -> dict[str, Any]:
    r = client.get(f"/api/v1/labs/flash/figures?{urlencode(params)}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_page_has_the_three_sections_and_the_player(client: TestClient) -> None:
    html = client.get("/labs/flash").text
    for name in ("tiles", "online", "traffic"):
        assert f'data-figure="{name}"' in html
    online = html.split('data-figure="online"', 1)[1].split('data-figure="traffic"', 1)[0]
    assert 'data-step="forward"' in online  # B1's player, under H2
    assert 'rel="prev" href="/labs/cost"' in html
    assert 'data-lab="flash"' in client.get("/labs").text


def test_default_answer_shows_tiles_a_rescaling_and_the_equality(client: TestClient) -> None:
    figs = answer(client, theme="light")["figures"]
    assert figs["tiles"]["grids"][0]["desc"]["tiles"]["cols"] == [0, 2, 4, 6]
    online = figs["online"]
    assert "a larger score arrived" in " ".join(f["caption"] for f in online["frames"])
    assert online["readout"][0].startswith("At step 2")
    diff = float(online["readout"][1].split("= ")[1].split(" ")[0].replace(" × 10⁻¹⁶", ""))
    assert diff < 10  # printed as "8.88 × 10⁻¹⁶": the mantissa
    assert "× 10⁻¹⁶" in online["readout"][1] or online["readout"][1].split("= ")[1][0] == "0"
    assert "not a count" in figs["traffic"]["plot"]["layout"]["yaxis"]["title"]["text"]


def test_a_state_round_trips_and_every_figure_follows_it(client: TestClient) -> None:
    # d and M are also the traffic section's: the page keys are tiles.d and tiles.sram
    query = {"n": "12", "tiles.d": "3", "tiles.sram": "36", "seed": "5", "causal": "1",
             "block": "1"}  # fmt: skip
    first = answer(client, **query, theme="light")
    assert first["query"] == query
    b = flash.blocks(12, 3, 36)
    tiles = first["figures"]["tiles"]["grids"][0]["desc"]
    assert tiles["shape"] == [12, 12]
    assert tiles["tiles"]["rows"] == list(range(0, 12, b.block_rows))
    frames = first["figures"]["online"]["frames"]
    assert len(frames) == b.col_tiles
    assert frames[0]["grids"][0]["desc"]["rows"] == [f"q_{i + 1}" for i in range(3, 6)]
    again = answer(client, **first["query"], theme="light")
    assert again["figures"] == first["figures"]
    assert first["links"]["online"]["link"].endswith("#online")


def test_m_below_4d_is_written_back_as_4d(client: TestClient) -> None:
    data = answer(client, **{"tiles.d": "6", "tiles.sram": "4"})
    assert data["query"]["tiles.sram"] == "24"
    assert "B_c = ⌈24 / 24⌉ = 1" in data["figures"]["tiles"]["caption"]


@pytest.mark.parametrize(
    ("query", "key"),
    [("n=17", "n"), ("n=1", "n"), ("n=abc", "n"), ("n=2.5", "n"), ("n=nan", "n"),
     ("n=" + "9" * 400, "n"), ("n=%EF%BC%91%EF%BC%92", "n"), ("tiles.d=0", "tiles.d"),
     ("tiles.d=9", "tiles.d"), ("tiles.d=inf", "tiles.d"), ("tiles.sram=1e9", "tiles.sram"),
     ("tiles.sram=-4", "tiles.sram"), ("seed=-1", "seed"), ("causal=yes", "causal"),
     ("block=16", "block"), ("block=-1", "block"), ("traffic.d=100", "traffic.d"),
     ("traffic.sram=5", "traffic.sram"), ("d=4", "d"), ("nope=1", "nope")],
)  # fmt: skip
def test_bad_and_hostile_values_are_a_422_naming_the_key(
    client: TestClient, query: str, key: str
) -> None:
    r = client.get(f"/api/v1/labs/flash/figures?{query}")
    assert r.status_code == 422, (query, r.text)
    detail = r.json()["detail"][0]
    assert detail["field"] == key, (query, detail)


def test_the_largest_state_is_admitted_and_exact(client: TestClient) -> None:
    data = answer(client, n="16", causal="1", block="15", **{"tiles.d": "8", "tiles.sram": "32"})
    frames = data["figures"]["online"]["frames"]
    assert len(frames) == 16  # B_c = ⌈32 / 32⌉ = 1 key per tile
    last = frames[-1]["grids"]
    tiled = np.array(last[1]["desc"]["values"], dtype=float)
    one = np.array(last[2]["desc"]["values"], dtype=float)
    np.testing.assert_allclose(tiled, one, rtol=0, atol=1e-12)
    assert len(json.dumps(data)) < 1_500_000


def test_embeds_and_oembed_of_every_figure(client: TestClient) -> None:
    for name in ("tiles", "online", "traffic"):
        r = client.get(f"/embed/labs/flash/{name}?n=6&theme=light")
        assert r.status_code == 200, name
        if name == "online":
            assert 'data-step="forward"' in r.text
        o = client.get("/oembed?" + urlencode({"url": f"http://testserver/labs/flash?n=6#{name}"}))
        assert o.status_code == 200, o.text
        src = re.search(r'src="([^"]+)"', o.json()["html"]).group(1)  # type: ignore[union-attr]
        if name == "traffic":  # its own state only
            assert src.endswith("/embed/labs/flash/traffic"), src
        else:  # the online softmax draws the tiles section's state: its embed keeps it
            assert f"/embed/labs/flash/{name}?n=6" in src


@pytest.mark.slow
def test_thirty_clients_at_once_get_the_same_answer(client: TestClient) -> None:
    url = "/api/v1/labs/flash/figures?n=16&tiles.sram=36&seed=3&theme=dark"
    expected = client.get(url).json()

    def one(_: int) -> tuple[int, Any]:
        r = client.get(url)
        return r.status_code, r.json() if r.status_code == 200 else r.headers.get("retry-after")

    with ThreadPoolExecutor(30) as pool:
        results = list(pool.map(one, range(30)))
    for status, body in results:
        assert status in (200, 503), status  # 503 with Retry-After when the slots are full
        if status == 200:
            assert body == expected
        else:
            assert body is not None
    assert any(status == 200 for status, _ in results)


@pytest.mark.parametrize("causal", ["0", "1"])
def test_copy_as_numpy_recomputes_the_tiles_and_the_online_softmax(
    client: TestClient, causal: str
) -> None:
    query = {"n": "10", "tiles.sram": "36", "seed": "4", "causal": causal, "block": "1"}
    fig = answer(client, **query, theme="light")["figures"]
    for figure in ("tiles", "online"):
        printed = lab_script(client, "flash", figure, **query)
        b = flash.blocks(10, 4, 36)
        assert {k: printed[k] for k in ("block_cols", "block_rows", "row_tiles", "col_tiles")} == {
            "block_cols": b.block_cols, "block_rows": b.block_rows, "row_tiles": b.row_tiles,
            "col_tiles": b.col_tiles,
        }  # fmt: skip
        assert printed["max_abs_difference"] < 1e-12
    steps = [t for t in printed["trace"] if t["row_tile"] == 1]
    frames = fig["online"]["frames"]
    assert len(steps) == len(frames)
    for step, frame in zip(steps, frames, strict=True):
        ell = [row[6] for row in frame["tables"][0]["cells"]]
        assert ell == [common.num(x) for x in step["l"]]
    last = np.array(frames[-1]["grids"][1]["desc"]["values"], dtype=float)
    rows = slice(*common.block_rows(common.state_of(_tiles(query)), 1))
    np.testing.assert_allclose(np.array(printed["output"])[rows], last, rtol=0, atol=1e-15)


def _tiles(query: dict[str, str]) -> dict[str, Any]:
    return {"n": int(query["n"]), "d": 4, "sram": int(query["tiles.sram"]),
            "seed": int(query["seed"]), "causal": query["causal"] == "1"}  # fmt: skip


def test_copy_as_numpy_of_the_traffic_is_theorem_2(client: TestClient) -> None:
    printed = lab_script(client, "flash", "traffic", **{"traffic.d": "128"})
    rows = answer(client, **{"traffic.d": "128"})["figures"]["traffic"]["tables"][0]["cells"]
    assert [common.fmt.count(p["standard"]) for p in printed] == [r[0] for r in rows]
    assert [common.fmt.significant(p["tiled"], 4) for p in printed] == [r[1] for r in rows]
