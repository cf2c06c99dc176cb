"""The "attention today" API (issue 31 item 5): ``POST /api/v1/kv-cache``,
``GET /api/v1/kv-cache/presets``, ``GET /api/v1/alibi?heads=N`` and ``POST /api/v1/flash``.

Every worked number of the sources is a test: the PagedAttention paper's 800 KB a token of
OPT-13B, each preset against its model card's config.json, Mistral 7B's span of 131K tokens
and its 8× smaller rolling buffer at 32k tokens, ALiBi's slopes for 8 and 16 heads and its
rule for 12, FlashAttention's tile sizes from Algorithm 1. Then the limits every route
holds: the largest admissible body answers exact integers, one more is a 422 naming the
field; hostile values are 4xx naming the field, never a 500; a body over the limit is a
413; 30 concurrent clients each get their own right answer."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from api_helpers import JSON, assert_error, strict_json
from fastapi.testclient import TestClient

KV = "/api/v1/kv-cache"
PRESETS = "/api/v1/kv-cache/presets"
ALIBI = "/api/v1/alibi"
FLASH = "/api/v1/flash"
EXACT = 2**53
LIMIT = 16 * 1024  # the routes' body limit, SMALL_BODY_BYTES

# The model cards' config.json (hidden_size, num_attention_heads, num_key_value_heads,
# num_hidden_layers, bytes of torch_dtype) and the printed context, copied from the sources.
CONFIGS = {
    "OPT-13B": (5120, 40, 40, 40, 2, 2048),
    "Llama-2-7B": (4096, 32, 32, 32, 2, 4096),
    "Llama-2-70B": (8192, 64, 8, 80, 2, 4096),
    "Mistral-7B": (4096, 32, 8, 32, 2, 8192),
    "SmolLM2-135M": (576, 9, 3, 30, 2, 8192),
    "GPT-2 small": (768, 12, 12, 12, 4, 1024),
}
OPT = {"layers": 40, "heads": 40, "kv_heads": 40, "d_head": 128, "bytes_per_value": 2}
MISTRAL = {"layers": 32, "heads": 32, "kv_heads": 8, "d_head": 128, "bytes_per_value": 2}
# CacheRequest's bounds, all at once; tokens then at most (2^53 − 1) // bytes_per_token.
MAXIMA = {"layers": 1024, "heads": 1024, "kv_heads": 1024, "d_head": 2**14, "bytes_per_value": 8}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    out: dict[str, Any] = strict_json(response.text)
    return out


def kv(client: TestClient, **body: Any) -> dict[str, Any]:
    return ok(client.post(KV, json=body))


# ---------------------------------------------------------------- worked numbers


def test_opt_13b_costs_the_papers_800_kb_a_token(client: TestClient) -> None:
    out = kv(client, **OPT, tokens=2048)
    # Kwon et al. §3: "2 (key and value vectors) × 5120 (hidden state size) × 40 (number of
    # layers) × 2 (bytes per FP16) = 800 KB"
    assert out["bytes_per_token"] == 2 * 5120 * 40 * 2 == 819_200 == 800 * 1024
    assert out["bytes"] == 819_200 * 2048  # a full 2048-token request: 1.6 GB
    assert out["full_heads_bytes_per_token"] == 819_200
    assert out["ratio_to_full_heads"] == 1
    assert out["span"] is None
    assert out["buffer_bytes"] is None


def test_grouped_and_multi_query_heads_shrink_the_cache_by_heads_over_kv_heads(
    client: TestClient,
) -> None:
    full = kv(client, **OPT, tokens=10)
    for kv_heads in (20, 10, 8, 5, 4, 2, 1):
        out = kv(client, **{**OPT, "kv_heads": kv_heads}, tokens=10)
        assert out["ratio_to_full_heads"] == 40 // kv_heads
        assert out["bytes_per_token"] * (40 // kv_heads) == full["bytes_per_token"]
        assert out["full_heads_bytes_per_token"] == full["bytes_per_token"]


def test_mistral_7b_reaches_131k_tokens_and_its_buffer_is_8_times_smaller_at_32k(
    client: TestClient,
) -> None:
    out = kv(client, **MISTRAL, tokens=32_768, window=4096)
    # Jiang et al. §2: W = 4096, 32 layers, "a theoretical attention span of approximately
    # 131K tokens"; at 32k tokens the rolling buffer "reduces the cache memory usage by 8x".
    assert out["span"] == 4096 * 32 == 131_072
    assert out["bytes"] == 8 * out["buffer_bytes"]
    assert out["buffer_bytes"] == out["bytes_per_token"] * 4096
    assert out["ratio_to_full_heads"] == 4  # 32 query heads share 8 key/value heads
    shorter = kv(client, **MISTRAL, tokens=100, window=4096)
    assert shorter["buffer_bytes"] == shorter["bytes"]  # fewer tokens than slots


def test_no_tokens_cost_nothing(client: TestClient) -> None:
    out = kv(client, **OPT, tokens=0, window=4)
    assert out["bytes"] == out["buffer_bytes"] == 0
    assert out["bytes_per_token"] == 819_200


def test_every_preset_matches_its_config_and_its_post_answer(client: TestClient) -> None:
    presets = ok(client.get(PRESETS))["presets"]
    assert [p["name"] for p in presets] == list(CONFIGS)
    for p in presets:
        hidden, heads, kv_heads, layers, per_value, context = CONFIGS[p["name"]]
        assert (p["heads"], p["kv_heads"], p["layers"]) == (heads, kv_heads, layers)
        assert p["d_head"] * heads == hidden
        assert (p["bytes_per_value"], p["context"]) == (per_value, context)
        expected = 2 * layers * kv_heads * (hidden // heads) * per_value
        assert p["bytes_per_token"] == expected
        assert p["full_heads_bytes_per_token"] == 2 * layers * hidden * per_value
        assert p["bytes"] == expected * context
        assert p["source"]
        assert '"' in p["source"]
        sizes = {k: p[k] for k in ("layers", "heads", "kv_heads", "d_head", "bytes_per_value")}
        window = {} if p["window"] is None else {"window": p["window"]}
        posted = kv(client, **sizes, tokens=context, **window)
        assert posted == {k: p[k] for k in posted}
    named = {p["name"]: p for p in presets}
    assert named["OPT-13B"]["bytes_per_token"] == 819_200
    assert named["Llama-2-7B"]["bytes_per_token"] == 524_288  # 512 KiB
    assert named["Llama-2-70B"]["bytes_per_token"] == 327_680  # GQA: 8× less than 2.5 MiB
    assert named["Llama-2-70B"]["ratio_to_full_heads"] == 8
    assert named["Mistral-7B"]["bytes_per_token"] == 131_072
    assert named["Mistral-7B"]["span"] == 131_072
    assert named["SmolLM2-135M"]["bytes_per_token"] == 23_040
    assert named["GPT-2 small"]["bytes_per_token"] == 73_728  # float32


def slopes(client: TestClient, heads: Any) -> list[float]:
    out: list[float] = ok(client.get(ALIBI, params={"heads": heads}))["slopes"]
    return out


def test_alibi_slopes_for_8_and_16_heads_are_the_papers(client: TestClient) -> None:
    # Press et al. §3: 8 heads "1/2^1, 1/2^2, ..., 1/2^8"; 16 heads "1/2^0.5, 1/2^1, ...,
    # 1/2^8": exact powers of two, so equal to the last bit.
    assert slopes(client, 8) == [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    assert slopes(client, 16) == [2 ** -(k / 2) for k in range(1, 17)]
    assert slopes(client, 1) == [1 / 256]


def test_alibi_slopes_for_12_heads_follow_the_papers_rule(client: TestClient) -> None:
    # The 8 slopes of 8 heads, then the first 4 of every other slope of 16 heads (the ones
    # between 8's): 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5.
    got = slopes(client, 12)
    want = [2.0**-k for k in range(1, 9)] + [2 ** -(k + 0.5) for k in range(4)]
    assert got == pytest.approx(want, rel=1e-15, abs=0)
    assert len(set(got)) == 12
    assert len(slopes(client, 1024)) == 1024


def test_flash_tiles_follow_algorithm_1(client: TestClient) -> None:
    out = ok(client.post(FLASH, json={"n": 1024, "d": 64, "sram": 25_600}))
    b_c = math.ceil(25_600 / (4 * 64))
    assert out["block_cols"] == b_c == 100
    assert out["block_rows"] == min(b_c, 64) == 64  # B_r is capped at d
    assert out["row_tiles"] == math.ceil(1024 / 64) == 16
    assert out["col_tiles"] == math.ceil(1024 / 100) == 11
    traffic = out["traffic"]
    assert traffic["standard"] == 1024 * 64 + 1024**2  # Θ(Nd + N²)
    assert traffic["tiled"] == pytest.approx(1024**2 * 64**2 / 25_600, rel=1e-15)  # Θ(N²d²/M)
    assert "order of growth" in traffic["label"]
    assert "not a count" in traffic["label"]


def test_flash_the_least_memory_gives_one_row_tiles(client: TestClient) -> None:
    out = ok(client.post(FLASH, json={"n": 7, "d": 3, "sram": 12}))
    assert (out["block_cols"], out["block_rows"], out["row_tiles"], out["col_tiles"]) == (
        1, 1, 7, 7,
    )  # fmt: skip
    # a large memory: B_r stops at d while B_c grows, and one column tile holds all N
    wide = ok(client.post(FLASH, json={"n": 100, "d": 2, "sram": 1000}))
    assert (wide["block_cols"], wide["block_rows"], wide["col_tiles"]) == (125, 2, 1)
    assert wide["row_tiles"] == 50


def test_flash_refuses_a_memory_that_holds_no_row(client: TestClient) -> None:
    detail = assert_error(client.post(FLASH, json={"n": 8, "d": 64, "sram": 255}), "sram")
    assert "4·d = 256" in detail[0]["msg"]
    ok(client.post(FLASH, json={"n": 8, "d": 64, "sram": 256}))


# ---------------------------------------------------------------- rules and bounds


@pytest.mark.parametrize(("kv_heads", "words"), [(41, "more than heads"), (7, "try 4 or 5 or 8")])
def test_kv_heads_must_divide_heads(client: TestClient, kv_heads: int, words: str) -> None:
    detail = assert_error(client.post(KV, json={**OPT, "kv_heads": kv_heads, "tokens": 1}),
                          "kv_heads")  # fmt: skip
    assert words in detail[0]["msg"]


def test_the_largest_body_is_exact_and_one_more_is_refused(client: TestClient) -> None:
    per_token = 2 * 1024 * 1024 * 2**14 * 8
    tokens = (EXACT - 1) // per_token
    largest = {**MAXIMA, "tokens": tokens, "window": 2**32}
    r = client.post(KV, json=largest)
    out = ok(r)
    assert out["bytes_per_token"] == per_token == 2**38
    assert out["bytes"] == per_token * tokens < EXACT
    assert out["span"] == 2**32 * 1024
    assert out["buffer_bytes"] == out["bytes"]
    # the integers are written exactly, digit for digit
    assert f'"bytes":{per_token * tokens}' in r.text
    numbers = [v for v in out.values() if v is not None]
    assert all(isinstance(v, int) and 0 <= v < EXACT for v in numbers)
    detail = assert_error(client.post(KV, json={**largest, "tokens": tokens + 1}), "tokens")
    assert f"at most tokens = {tokens:,}" in detail[0]["msg"]
    for field in (*MAXIMA, "window"):
        bigger = {**largest, field: largest[field] + 1}
        assert_error(client.post(KV, json=bigger), field)
    assert_error(client.post(KV, json={**OPT, "tokens": 2**32 + 1}), "tokens")


def test_flash_at_its_largest_is_finite(client: TestClient) -> None:
    largest = {"n": 2**20, "d": 2**14, "sram": 2**30}
    out = ok(client.post(FLASH, json=largest))
    assert out["block_cols"] == 2**14
    assert out["block_rows"] == 2**14
    assert out["row_tiles"] == out["col_tiles"] == 64
    assert math.isfinite(out["traffic"]["tiled"])
    assert out["traffic"]["tiled"] == (2**20) ** 2 * (2**14) ** 2 / 2**30
    for field in largest:
        assert_error(client.post(FLASH, json={**largest, field: largest[field] + 1}), field)


def test_an_integral_float_is_the_same_integer(client: TestClient) -> None:
    as_int = client.post(KV, json={**OPT, "tokens": 2048})
    as_float = client.post(KV, json={k: float(v) for k, v in {**OPT, "tokens": 2048}.items()})
    assert as_float.status_code == 200, as_float.text
    assert as_float.content == as_int.content
    flash = client.post(FLASH, json={"n": 16.0, "d": 4.0, "sram": 64.0})
    assert flash.status_code == 200, flash.text


KV_BODY = {**OPT, "tokens": 2048, "window": 16}
FLASH_BODY = {"n": 16, "d": 4, "sram": 64}
HOSTILE = [0.5, "8", True, None, -1, 10**30, [8], {"v": 8}]


@pytest.mark.parametrize("bad", HOSTILE, ids=repr)
@pytest.mark.parametrize("field", list(KV_BODY))
def test_kv_cache_hostile_values_are_a_422_naming_the_field(
    client: TestClient, field: str, bad: Any
) -> None:
    if bad is None and field == "window":
        ok(client.post(KV, json={**KV_BODY, field: bad}))  # window: null means no window
        return
    assert_error(client.post(KV, json={**KV_BODY, field: bad}), field)


@pytest.mark.parametrize("bad", [*HOSTILE, 0], ids=repr)
@pytest.mark.parametrize("field", list(FLASH_BODY))
def test_flash_hostile_values_are_a_422_naming_the_field(
    client: TestClient, field: str, bad: Any
) -> None:
    assert_error(client.post(FLASH, json={**FLASH_BODY, field: bad}), field)


@pytest.mark.parametrize(("path", "payload"), [(KV, KV_BODY), (FLASH, FLASH_BODY)])
@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000])
def test_non_finite_and_huge_numbers_are_refused(
    client: TestClient, path: str, payload: dict[str, Any], bad: str
) -> None:
    field = next(iter(payload))
    raw = json.dumps(payload).replace(f'"{field}": {payload[field]}', f'"{field}": {bad}', 1)
    assert bad in raw
    r = client.post(path, content=raw, headers=JSON)
    assert 400 <= r.status_code < 500, r.text
    detail = strict_json(r.text)["detail"]
    assert detail[0]["field"] in (field, "body"), detail


@pytest.mark.parametrize(("path", "payload"), [(KV, KV_BODY), (FLASH, FLASH_BODY)])
def test_missing_and_unknown_fields(client: TestClient, path: str, payload: dict[str, Any]) -> None:
    for field in payload:
        if field == "window":
            continue
        assert_error(client.post(path, json={k: v for k, v in payload.items() if k != field}),
                     field)  # fmt: skip
    detail = assert_error(client.post(path, json={**payload, "extra": 1}), "extra")
    assert detail[0]["type"] == "extra_forbidden"
    for wrong in ([], [payload], "x", 1, None):
        assert_error(client.post(path, content=json.dumps(wrong), headers=JSON), "body")
    assert_error(client.post(path, content=b"{", headers=JSON), "body")
    r = client.post(path, content=json.dumps(payload), headers={"content-type": "text/plain"})
    assert r.status_code == 415


@pytest.mark.parametrize(
    "query",
    ["heads=0", "heads=1025", "heads=-1", "heads=x", "heads=", "heads=%D9%A3", "heads=1e2",
     "heads=%208", "heads=8.0", "heads=1_0", "heads=" + "9" * 5000, "", "n=8", "heads=8&x=1"],
)  # fmt: skip
def test_alibi_bad_heads_are_a_422_naming_it(client: TestClient, query: str) -> None:
    field = "x" if "x=1" in query else ("heads" if query != "n=8" else "n")
    r = client.get(f"{ALIBI}?{query}")
    assert_error(r, field)


def test_alibi_takes_the_last_of_repeated_heads(client: TestClient) -> None:
    assert len(ok(client.get(f"{ALIBI}?heads=3&heads=5"))["slopes"]) == 5


# ---------------------------------------------------------------- body limit, concurrency


@pytest.mark.parametrize(("path", "payload"), [(KV, KV_BODY), (FLASH, FLASH_BODY)])
def test_the_body_limit(client: TestClient, path: str, payload: dict[str, Any]) -> None:
    text = json.dumps(payload)
    padded = text + " " * (LIMIT - len(text))  # the largest body in bytes: spaces after
    assert len(padded.encode()) == LIMIT
    assert client.post(path, content=padded, headers=JSON).status_code == 200
    over = client.post(path, content=padded + " ", headers=JSON)
    assert_error(over, "body", status=413)


@pytest.mark.slow
def test_thirty_concurrent_clients_each_get_their_own_answer(client: TestClient) -> None:
    def ask(i: int) -> tuple[int, Any, Any]:
        kind = i % 3
        if kind == 0:
            r = client.post(KV, json={**OPT, "kv_heads": [1, 2, 4, 5, 8][i % 5], "tokens": i})
            return i, r.status_code, r.json()
        if kind == 1:
            r = client.get(ALIBI, params={"heads": i})
            return i, r.status_code, r.json()
        r = client.post(FLASH, json={"n": 100 + i, "d": 8, "sram": 32 + i})
        return i, r.status_code, r.json()

    with ThreadPoolExecutor(max_workers=30) as pool:
        answers = list(pool.map(ask, range(30)))
    for i, status, out in answers:
        assert status == 200, out
        if i % 3 == 0:
            kv_heads = [1, 2, 4, 5, 8][i % 5]
            assert out["bytes"] == 2 * 40 * kv_heads * 128 * 2 * i
        elif i % 3 == 1:
            assert len(out["slopes"]) == i
        else:
            assert out["block_cols"] == math.ceil((32 + i) / 32)
            assert out["row_tiles"] == math.ceil((100 + i) / out["block_rows"])


@pytest.mark.slow
def test_thirty_identical_clients_all_see_one_answer(client: TestClient) -> None:
    with ThreadPoolExecutor(max_workers=30) as pool:
        answers = list(pool.map(lambda _: client.get(PRESETS), range(30)))
    assert {r.status_code for r in answers} == {200}
    assert len({r.content for r in answers}) == 1


# ---------------------------------------------------------------- OpenAPI


def test_openapi_lists_the_routes_with_their_bounds(client: TestClient) -> None:
    doc = client.get("/api/v1/openapi.json").json()
    paths = doc["paths"]
    assert set(paths[KV]) == {"post"}
    assert set(paths[FLASH]) == {"post"}
    assert set(paths[PRESETS]) == {"get"}
    assert set(paths[ALIBI]) == {"get"}
    (heads,) = paths[ALIBI]["get"]["parameters"]
    assert heads["name"] == "heads"
    assert heads["in"] == "query"
    assert heads["required"]
    assert heads["schema"] == {"type": "integer", "minimum": 1, "maximum": 1024}
    schemas = doc["components"]["schemas"]
    request = schemas["KVCacheRequest"]
    assert request["additionalProperties"] is False
    assert set(request["required"]) == {"layers", "heads", "kv_heads", "d_head",
                                        "bytes_per_value", "tokens"}  # fmt: skip
    bounds = {k: (v.get("minimum"), v.get("maximum")) for k, v in request["properties"].items()}
    assert bounds["tokens"] == (0, 2**32)
    assert bounds["d_head"] == (1, 2**14)
    flash = schemas["FlashRequest"]["properties"]
    assert (flash["sram"]["minimum"], flash["sram"]["maximum"]) == (1, 2**30)
    for path, method in ((KV, "post"), (FLASH, "post")):
        assert "413" in paths[path][method]["responses"]
        assert "422" in paths[path][method]["responses"]
