"""The rotary lab over HTTP: its page, its figures API (state round trip, bad and hostile
values named by key, the largest state), embeds, oEmbed, Copy as NumPy run against the
figures, and many clients at once."""

from __future__ import annotations

import json
import math
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from api_helpers import lab_script
from fastapi.testclient import TestClient

from app.figures.labs.rotary import common
from app.labs import alibi, rotary

SECTIONS = ("rotation", "wavelengths", "alibi")


def answer(client: TestClient, **params: str) -> dict[str, Any]:
    r = client.get(f"/api/v1/labs/rotary/figures?{urlencode(params)}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_page_has_the_three_sections_and_its_neighbours(client: TestClient) -> None:
    html = client.get("/labs/rotary").text
    for name in SECTIONS:
        assert f'data-figure="{name}"' in html
    assert "RoPE and ALiBi" in html
    assert 'rel="prev" href="/labs/generation"' in html  # the lab before it in the registry
    index = client.get("/labs").text
    assert 'data-lab="rotary"' in index
    assert "/static/img/labs/rotary.svg" in index


def test_default_answer_shows_each_point_before_a_control_is_touched(client: TestClient) -> None:
    figs = answer(client, theme="light")["figures"]
    rot = figs["rotation"]
    assert rot["grids"][0]["desc"]["text"] == rot["grids"][1]["desc"]["text"]
    assert "every score stays the same" in rot["caption"]
    assert "54,410.14 with base 10,000" in figs["wavelengths"]["caption"]
    assert figs["alibi"]["readout"][0] == "slopes: 1/2, 1/4, 1/8, 1/16, 1/32, 1/64, 1/128, 1/256"
    for name in SECTIONS:
        reveal = figs[name]["reveal"]
        assert reveal["correct"] in [c[0] for c in reveal["choices"]], name


def test_a_state_round_trips_and_every_figure_follows_it(client: TestClient) -> None:
    # d and base are both J1's and J2's: their page keys name the figure
    query = {"n": "7", "rotation.d": "8", "shift": "4000", "rotation.base": "100000",
             "seed": "9", "wavelengths.d": "32", "wavelengths.base": "500", "other": "2",
             "heads": "12", "head": "10", "tokens": "11"}  # fmt: skip
    first = answer(client, **query, theme="light")
    assert first["query"] == query
    figs = first["figures"]
    q, k = common.inputs(7, 8, 9)
    pos = np.arange(7.0) + 4000
    moved = np.array(figs["rotation"]["grids"][1]["desc"]["values"], dtype=float)
    np.testing.assert_array_equal(moved, rotary.scores(q, k, pos, pos, 1e5))
    here = np.array(figs["rotation"]["grids"][0]["desc"]["values"], dtype=float)
    np.testing.assert_allclose(moved, here, rtol=0, atol=1e-12 * (1 + 9 * 8))
    waves = figs["wavelengths"]["plot"]["data"]
    np.testing.assert_array_equal(waves[0]["y"], rotary.wavelengths(32, 500.0))
    np.testing.assert_array_equal(waves[1]["y"], rotary.wavelengths(32, 2.0))
    bias = figs["alibi"]["grids"][0]["desc"]
    assert bias["shape"] == [11, 11]
    assert bias["values"][10][0] == -float(alibi.slopes(12)[10]) * 10
    assert figs["alibi"]["choice_labels"]["head"][10] == "head 11 (m = 2^−2.5 ≈ 0.1768)"
    again = answer(client, **first["query"], theme="light")
    assert again["figures"] == first["figures"]
    assert first["links"]["alibi"]["link"].endswith("#alibi")


@pytest.mark.parametrize(
    ("query", "key"),
    [("n=9", "n"), ("n=1", "n"), ("n=abc", "n"), ("n=2.5", "n"), ("n=nan", "n"),
     ("n=" + "9" * 400, "n"), ("n=%EF%BC%91%EF%BC%92", "n"), ("rotation.d=3", "rotation.d"),
     ("rotation.d=10", "rotation.d"), ("rotation.d=inf", "rotation.d"),
     ("shift=-1", "shift"), ("shift=4089", "shift"), ("shift=1e9", "shift"),
     ("rotation.base=1000", "rotation.base"), ("seed=-1", "seed"),
     ("wavelengths.d=6", "wavelengths.d"), ("wavelengths.d=2048", "wavelengths.d"),
     ("wavelengths.base=1", "wavelengths.base"), ("wavelengths.base=nan", "wavelengths.base"),
     ("wavelengths.base=1e10", "wavelengths.base"), ("other=-5", "other"),
     ("other=inf", "other"), ("heads=0", "heads"), ("heads=65", "heads"),
     ("heads=" + "1" * 30, "heads"), ("head=64", "head"), ("head=-1", "head"),
     ("tokens=1", "tokens"), ("tokens=17", "tokens"), ("d=4", "d"), ("base=10000", "base"),
     ("nope=1", "nope")],
)  # fmt: skip
def test_bad_and_hostile_values_are_a_422_naming_the_key(
    client: TestClient, query: str, key: str
) -> None:
    r = client.get(f"/api/v1/labs/rotary/figures?{query}")
    assert r.status_code == 422, (query, r.text)
    detail = r.json()["detail"][0]
    assert detail["field"] == key, (query, detail)


def test_the_largest_state_is_admitted_and_exact(client: TestClient) -> None:
    data = answer(client, n="8", shift=str(common.MAX_SHIFT), seed="9999",
                  **{"rotation.d": "8", "rotation.base": "100000", "wavelengths.d": "1024",
                     "wavelengths.base": "1000000000", "other": "2"},
                  heads="64", head="63", tokens="16")  # fmt: skip
    figs = data["figures"]
    here = np.array(figs["rotation"]["grids"][0]["desc"]["values"], dtype=float)
    moved = np.array(figs["rotation"]["grids"][1]["desc"]["values"], dtype=float)
    q, k = common.inputs(8, 8, 9999)
    norms = np.linalg.norm(q, axis=1)[:, None] * np.linalg.norm(k, axis=1)[None, :]
    assert np.all(np.abs(moved - here) <= 1e-12 * (1 + norms))
    assert figs["rotation"]["reveal"]["correct"] == "same"
    assert len(figs["wavelengths"]["plot"]["data"][0]["y"]) == 512
    assert figs["wavelengths"]["plot"]["data"][0]["y"][-1] == pytest.approx(
        2 * math.pi * 1e9 ** (1022 / 1024), rel=1e-13
    )
    assert len(figs["alibi"]["tables"][0]["cells"]) == 64
    assert len(json.dumps(data)) < 400_000


def test_embeds_and_oembed_of_every_figure(client: TestClient) -> None:
    for name in SECTIONS:
        r = client.get(f"/embed/labs/rotary/{name}?theme=light&heads=12")
        assert r.status_code == 200, name
        assert f'data-figure="{name}"' in r.text
        url = f"http://testserver/labs/rotary?heads=12#{name}"
        o = client.get("/oembed?" + urlencode({"url": url}))
        assert o.status_code == 200, o.text
        src = re.search(r'src="([^"]+)"', o.json()["html"]).group(1)  # type: ignore[union-attr]
        if name == "alibi":  # its own state: heads is ALiBi's control
            assert "/embed/labs/rotary/alibi?heads=12" in src, src
        else:
            assert src.endswith(f"/embed/labs/rotary/{name}"), src


@pytest.mark.slow
def test_thirty_clients_at_once_get_the_same_answer(client: TestClient) -> None:
    url = "/api/v1/labs/rotary/figures?n=8&shift=4000&heads=24&tokens=16&wavelengths.d=1024"
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


def test_copy_as_numpy_of_the_rotation(client: TestClient) -> None:
    query = {"n": "6", "shift": "250", "seed": "3", "rotation.d": "6"}
    fig = answer(client, **query)["figures"]["rotation"]
    printed = lab_script(client, "rotary", "rotation", **query)
    for i, key in enumerate(("scores", "scores_moved")):
        np.testing.assert_allclose(printed[key], fig["grids"][i]["desc"]["values"], rtol=0,
                                   atol=1e-13)  # fmt: skip
    assert printed["max_abs_difference"] < 1e-12
    np.testing.assert_array_equal(printed["thetas"], rotary.thetas(6))


def test_copy_as_numpy_of_the_wavelengths(client: TestClient) -> None:
    query = {"wavelengths.d": "16", "other": "50000"}
    fig = answer(client, **query)["figures"]["wavelengths"]
    printed = lab_script(client, "rotary", "wavelengths", **query)
    assert list(printed) == ["10000.0", "50000.0"]
    for trace, ys in zip(fig["plot"]["data"], printed.values(), strict=True):
        np.testing.assert_allclose(ys, trace["y"], rtol=1e-15)


def test_copy_as_numpy_of_alibi(client: TestClient) -> None:
    query = {"heads": "6", "head": "5", "tokens": "9"}
    fig = answer(client, **query)["figures"]["alibi"]
    printed = lab_script(client, "rotary", "alibi", **query)
    assert printed["slopes"] == alibi.slopes(6).tolist()
    bias = fig["grids"][0]["desc"]["values"]
    weights = fig["grids"][1]["desc"]["values"]
    for i in range(9):
        for j in range(i + 1):
            assert printed["bias"][i][j] == bias[i][j]
            assert printed["weights"][i][j] == pytest.approx(weights[i][j], abs=1e-15)
    cells = fig["tables"][0]["cells"]
    assert [common.fmt.derived(x, 2) for x in printed["mean_distance"]] == [r[3] for r in cells]


@pytest.mark.parametrize("heads", ["1", "8", "12", "64"])
def test_the_lab_slopes_are_the_alibi_routes(client: TestClient, heads: str) -> None:
    """J3 and GET /api/v1/alibi?heads=N print the same slopes from one function."""
    route = client.get(f"/api/v1/alibi?heads={heads}")
    assert route.status_code == 200, route.text
    slopes = route.json()["slopes"]
    cells = answer(client, heads=heads)["figures"]["alibi"]["tables"][0]["cells"]
    assert [row[0] for row in cells] == [common.slope_text(m) for m in slopes]
    assert slopes == alibi.slopes(int(heads)).tolist()
