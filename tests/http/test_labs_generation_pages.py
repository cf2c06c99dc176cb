"""The generation lab over HTTP: its page, its figures API (state round trip, the presets
as GET /api/v1/kv-cache/presets serves them, bad and hostile values named by key, the
largest state), embeds, oEmbed, Copy as NumPy run against the figures, and many clients."""

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

from app.figures.labs.generation import cache, common

SECTIONS = ("decode", "cache", "shared", "windows")


def answer(client: TestClient, **params: str) -> dict[str, Any]:
    r = client.get(f"/api/v1/labs/generation/figures?{urlencode(params)}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def values(desc: dict[str, Any]) -> np.ndarray[Any, Any]:
    return np.nan_to_num(np.array(desc["values"], dtype=float), nan=0.0)


def grid(fig: dict[str, Any], name: str) -> dict[str, Any]:
    return next(g["desc"] for g in fig["grids"] if g["desc"]["grid"] == name)


def test_page_has_the_four_sections_and_the_player(client: TestClient) -> None:
    html = client.get("/labs/generation").text
    for name in SECTIONS:
        assert f'data-figure="{name}"' in html
    decode = html.split('data-figure="decode"', 1)[1].split('data-figure="cache"', 1)[0]
    assert 'data-step="forward"' in decode  # B1's player, under I1
    assert 'rel="prev" href="/labs/flash"' in html
    index = client.get("/labs").text
    assert 'data-lab="generation"' in index
    assert client.get("/static/img/labs/generation.svg").status_code == 200


def test_the_defaults_show_each_point_before_a_control_is_touched(client: TestClient) -> None:
    figs = answer(client, theme="light")["figures"]
    assert figs["decode"]["frames"][-1]["caption"].endswith(
        "max |cached − one pass| = 0 (float64)."
    )
    assert "= 800 KiB a token" in figs["cache"]["caption"]
    assert "2 times fewer" in figs["shared"]["caption"]
    assert "Token 1 holds 0.7768 of token 12's weight" in figs["windows"]["caption"]
    for name in SECTIONS:
        assert figs[name]["reveal"]["question"], name


def test_the_cache_table_is_the_presets_route(client: TestClient) -> None:
    presets = client.get("/api/v1/kv-cache/presets").json()["presets"]
    table = answer(client)["figures"]["cache"]["tables"][0]
    assert table["row_headers"] == [p["name"] for p in presets]
    for p, row in zip(presets, table["cells"], strict=True):
        assert row[-1] == p["source"]
        assert row[5] == cache._kib(p["bytes_per_token"])
        assert common.byte_text(p["bytes"]) in row[6]
    opt = next(p for p in presets if p["name"] == "OPT-13B")
    assert opt["bytes_per_token"] == 2 * 5120 * 40 * 2  # Kwon et al.'s 800 KB


def test_a_state_round_trips_and_every_figure_follows_it(client: TestClient) -> None:
    query = {"decode.tokens": "7", "decode.width": "3", "decode.seed": "11", "model": "Mistral-7B",
             "cache.layers": "4", "cache.heads": "6", "cache.kv_heads": "3", "d_head": "16",
             "bytes_per_value": "4", "cache.tokens": "100", "shared.heads": "6",
             "shared.kv_heads": "3", "head": "5", "window": "3", "windows.layers": "3",
             "sinks": "2", "boost": "1.5", "windows.tokens": "10"}  # fmt: skip
    first = answer(client, **query, theme="light")
    assert first["query"] == query
    figs = first["figures"]
    assert len(figs["decode"]["frames"]) == 7
    assert grid(figs["decode"]["frames"][-1], "k")["shape"] == [7, 3]
    per = 2 * 4 * 3 * 16 * 4
    assert figs["cache"]["readout"][0] == (
        f"your model: {common.byte_text(per)} a token, {common.byte_text(per * 100)} for 100 tokens"
    )
    assert figs["cache"]["reveal"]["answer"] == "Mistral-7B: 128 KiB a token"
    assert figs["shared"]["reveal"]["correct"] == "2"
    assert grid(figs["windows"], "weights-last")["shape"] == [4, 10]
    again = answer(client, **first["query"], theme="light")
    assert again["figures"] == first["figures"]
    assert first["links"]["windows"]["link"].endswith("#windows")


def test_kv_heads_that_do_not_divide_are_written_back_lowered(client: TestClient) -> None:
    lowered = {"cache.heads": "12", "cache.kv_heads": "5", "shared.heads": "6",
               "shared.kv_heads": "4", "windows.tokens": "4", "sinks": "4"}  # fmt: skip
    data = answer(client, **lowered)
    assert data["query"]["cache.kv_heads"] == "4"
    assert data["query"]["shared.kv_heads"] == "3"
    assert data["query"]["sinks"] == "3"


@pytest.mark.parametrize(
    ("query", "key"),
    [("decode.tokens=9", "decode.tokens"), ("decode.tokens=1", "decode.tokens"),
     ("decode.tokens=abc", "decode.tokens"), ("decode.tokens=2.5", "decode.tokens"),
     ("decode.tokens=nan", "decode.tokens"), ("decode.width=" + "9" * 400, "decode.width"),
     ("decode.seed=-1", "decode.seed"), ("decode.seed=%EF%BC%91", "decode.seed"),
     ("model=GPT-5", "model"), ("model=", "model"), ("cache.layers=0", "cache.layers"),
     ("cache.layers=1e9", "cache.layers"), ("cache.heads=-4", "cache.heads"),
     ("d_head=inf", "d_head"), ("bytes_per_value=3", "bytes_per_value"),
     ("cache.tokens=2000000", "cache.tokens"), ("cache.tokens=-1", "cache.tokens"),
     ("shared.heads=9", "shared.heads"), ("shared.kv_heads=0", "shared.kv_heads"),
     ("head=8", "head"), ("window=0", "window"), ("windows.layers=7", "windows.layers"),
     ("sinks=5", "sinks"), ("boost=nan", "boost"), ("boost=inf", "boost"),
     ("boost=1e308", "boost"), ("boost=-5", "boost"), ("tokens=4", "tokens"),
     ("nope=1", "nope")],
)  # fmt: skip
def test_bad_and_hostile_values_are_a_422_naming_the_key(
    client: TestClient, query: str, key: str
) -> None:
    r = client.get(f"/api/v1/labs/generation/figures?{query}")
    assert r.status_code == 422, (query, r.text)
    detail = r.json()["detail"][0]
    assert detail["field"] == key, (query, detail)


def test_the_largest_state_is_admitted_and_exact(client: TestClient) -> None:
    query = {"decode.tokens": "8", "decode.width": "4", "decode.seed": "9999",
             "cache.layers": "256", "cache.heads": "256", "cache.kv_heads": "256",
             "d_head": "1024", "bytes_per_value": "8", "cache.tokens": str(2**20),
             "shared.heads": "8", "shared.kv_heads": "1", "shared.tokens": "6",
             "shared.width": "4", "head": "7", "windows.tokens": "16", "window": "16",
             "windows.layers": "6", "sinks": "4", "boost": "8"}  # fmt: skip
    data = answer(client, **query)
    frames = data["figures"]["decode"]["frames"]
    assert len(frames) == 8
    for frame in frames:
        cached, one = values(grid(frame, "output"))
        np.testing.assert_allclose(cached, one, rtol=0, atol=1e-12)
    per = 2 * 256 * 256 * 1024 * 8
    assert f"for {2**20:,} tokens" in data["figures"]["cache"]["readout"][0]
    assert f"({per:,} bytes) a token" in data["figures"]["cache"]["readout"][0]
    last = values(grid(data["figures"]["windows"], "weights-last"))
    np.testing.assert_allclose(last.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert len(json.dumps(data)) < 1_500_000


def test_embeds_and_oembed_of_every_figure(client: TestClient) -> None:
    for name in SECTIONS:
        r = client.get(f"/embed/labs/generation/{name}?theme=light")
        assert r.status_code == 200, name
        if name == "decode":
            assert 'data-step="forward"' in r.text
        url = f"http://testserver/labs/generation?decode.tokens=6#{name}"
        o = client.get("/oembed?" + urlencode({"url": url}))
        assert o.status_code == 200, o.text
        src = re.search(r'src="([^"]+)"', o.json()["html"]).group(1)  # type: ignore[union-attr]
        if name == "decode":  # its own state
            assert src.endswith("/embed/labs/generation/decode?decode.tokens=6"), src
        else:  # no other figure's state
            assert src.endswith(f"/embed/labs/generation/{name}"), src
    assert client.get("/embed/labs/generation/decode?tokens=6").status_code == 200
    assert client.get("/embed/labs/generation/nope").status_code == 404


@pytest.mark.slow
def test_thirty_clients_at_once_get_the_same_answer(client: TestClient) -> None:
    url = ("/api/v1/labs/generation/figures?decode.tokens=8&decode.width=4&shared.heads=8"
           "&shared.kv_heads=2&windows.tokens=16&theme=dark")  # fmt: skip
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


def test_copy_as_numpy_of_the_decoding(client: TestClient) -> None:
    query = {"decode.tokens": "6", "decode.width": "3", "decode.seed": "2"}
    printed = lab_script(client, "generation", "decode", **query)
    assert printed["max_abs_difference"] < 1e-12
    frames = answer(client, **query)["figures"]["decode"]["frames"]
    for step, frame in zip(printed["steps"], frames, strict=True):
        cached, _ = values(grid(frame, "weights-step"))
        np.testing.assert_allclose(step["weights"], cached, rtol=0, atol=1e-15)
    full = values(grid(frames[-1], "weights-full"))
    np.testing.assert_allclose(printed["full_weights"], full, rtol=0, atol=1e-15)


def test_copy_as_numpy_of_the_bytes(client: TestClient) -> None:
    printed = lab_script(client, "generation", "cache", **{"cache.tokens": "100"})
    presets = {p["name"]: p for p in client.get("/api/v1/kv-cache/presets").json()["presets"]}
    for name, p in presets.items():
        assert printed[name]["bytes_per_token"] == p["bytes_per_token"]
        assert printed[name]["bytes"] == p["bytes"]
    assert printed["your model"] == {"bytes_per_token": 2 * 32 * 8 * 128 * 2,
                                     "bytes": 2 * 32 * 8 * 128 * 2 * 100,
                                     "ratio_to_full_heads": 4.0}  # fmt: skip


def test_copy_as_numpy_of_the_shared_heads(client: TestClient) -> None:
    query = {"shared.heads": "6", "shared.kv_heads": "2", "head": "4", "shared.seed": "8"}
    printed = lab_script(client, "generation", "shared", **query)
    fig = answer(client, **query)["figures"]["shared"]
    np.testing.assert_allclose(printed["weights"][4], values(grid(fig, "weights-grouped")),
                               rtol=0, atol=1e-15)  # fmt: skip
    changes = [row[3] for row in fig["tables"][0]["cells"]]
    assert [f"{o['max_weight_change']:.4f}" for o in printed["options"]] == changes


def test_copy_as_numpy_of_the_windows(client: TestClient) -> None:
    query = {"windows.tokens": "11", "window": "3", "windows.layers": "3", "sinks": "2",
             "boost": "2.5", "windows.seed": "6"}  # fmt: skip
    printed = lab_script(client, "generation", "windows", **query)
    fig = answer(client, **query)["figures"]["windows"]
    last = values(grid(fig, "weights-last"))
    rows = ["all", "no token 1", "window", "sinks + window"]
    np.testing.assert_allclose([printed["last_query_weights"][r] for r in rows], last, rtol=0,
                               atol=1e-15)  # fmt: skip
    reach = values(grid(fig, "reach")) > 0
    np.testing.assert_array_equal(np.array(printed["reach"]), reach)
    assert printed["reach_back"] == 3 * 2
    assert [f"token {p + 1}" if p >= 0 else "empty" for p in printed["buffer"]] == [
        row[0] for row in fig["tables"][0]["cells"]
    ]
