"""Labs I over HTTP: the extended /softmax (values, masks, mask_order, row sums), key_tokens
on /attention, and the presets two-tokens, who-is-the-best and dog-truck-barked, checked
against the fixtures copied from LABS.md."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from api_helpers import MakeClient, assert_error, body, strict_json
from fastapi.testclient import TestClient

FIX: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "unit" / "data" / "labs-fixtures.json").read_text("utf-8")
)
SOFTMAX = "/api/v1/softmax"
ATTENTION = "/api/v1/attention"


def post(client: TestClient, path: str, payload: Any) -> dict[str, Any]:
    r = client.post(path, json=payload)
    assert r.status_code == 200, r.text
    return dict(strict_json(r.text))


def r3(xs: Any) -> list[float]:
    return [round(x, 3) for x in xs]


def test_a1_call_gives_weights_and_output(client: TestClient) -> None:
    a1 = FIX["A1"]
    out = post(client, SOFTMAX, {"scores": a1["scores"], "values": a1["values"]})
    assert r3(out["weights"]) == a1["printed"]["weights"]
    want = sum(w * v for w, v in zip(out["weights"], a1["values"], strict=True))
    assert out["output"] == pytest.approx(want, abs=1e-15)
    assert out["row_sums"] == pytest.approx(1.0, abs=1e-15)
    assert out["warnings"] == []
    # the existing fields stay
    for key in ("exps", "exp_sum", "weights", "entropy", "max_weight", "gradient_term", "stretch"):
        assert key in out


def test_without_values_there_is_no_output(client: TestClient) -> None:
    out = post(client, SOFTMAX, {"scores": [1, 2, 3]})
    assert "output" not in out
    assert out["row_sums"] == pytest.approx(1.0)
    assert out["mask_order"] == "before"


def test_value_matrix_gives_a_vector_per_row(client: TestClient) -> None:
    out = post(client, SOFTMAX, {"scores": [[1, 2], [3, 3]], "values": [[0, -1], [1, 2]]})
    assert len(out["output"]) == 2
    assert out["output"][1] == pytest.approx([0.5, 0.5])
    vec = post(client, SOFTMAX, {"scores": [1, 1], "values": [[0, -1], [1, 2]]})
    assert vec["output"] == pytest.approx([0.5, 0.5])


def test_d2_causal_after_and_before(client: TestClient) -> None:
    s = FIX["D2"]["S"]
    after = post(client, SOFTMAX, {"scores": s, "mask": "causal", "mask_order": "after"})
    before = post(client, SOFTMAX, {"scores": s, "mask": "causal"})
    assert round(after["row_sums"][0], 4) == FIX["D2"]["printed"]["after_row_0_sum"]
    assert before["row_sums"] == pytest.approx([1.0] * 4, abs=1e-15)
    for i, row in enumerate(before["weights"]):
        assert all(w == 0 for w in row[i + 1 :])
    assert after["mask_order"] == "after"


def test_allowed_is_anded_with_causal(client: TestClient) -> None:
    allowed = [[True, True, True], [False, True, True], [True, False, True]]
    scores = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    both = post(client, SOFTMAX, {"scores": scores, "mask": "causal", "allowed": allowed})
    anded = [[a and j <= i for j, a in enumerate(row)] for i, row in enumerate(allowed)]
    one = post(client, SOFTMAX, {"scores": scores, "allowed": anded})
    assert both["weights"] == one["weights"]
    assert both["weights"][0] == [1.0, 0.0, 0.0]
    assert both["weights"][1] == pytest.approx([0, 1, 0])


@pytest.mark.parametrize("order", ["before", "after"])
def test_empty_row_is_zeros_and_a_warning(client: TestClient, order: str) -> None:
    payload = {"scores": [[1, 2], [3, 4]], "values": [[0, -1], [1, 2]],
               "allowed": [[False, False], [True, True]], "mask_order": order}  # fmt: skip
    r = client.post(SOFTMAX, json=payload)
    out = strict_json(r.text)  # no NaN, no Infinity
    assert out["weights"][0] == [0.0, 0.0]
    assert out["output"][0] == [0.0, 0.0]
    assert out["row_sums"][0] == 0.0
    assert out["warnings"] == ["row 0 has no allowed key: its weights and output are all zero"]


def test_vector_scores_take_a_vector_mask(client: TestClient) -> None:
    out = post(client, SOFTMAX, {"scores": [1, 2, 3], "allowed": [True, False, True]})
    assert out["weights"][1] == 0.0
    assert out["row_sums"] == pytest.approx(1.0)
    causal = post(client, SOFTMAX, {"scores": [1, 2, 3], "mask": "causal"})  # a vector is row 0
    assert causal["weights"] == [1.0, 0.0, 0.0]


def test_c4_stretch_by_root_d(client: TestClient) -> None:
    flat = post(client, SOFTMAX, {"scores": [2, 1, 0]})
    steep = post(client, SOFTMAX, {"scores": [2, 1, 0], "stretch": math.sqrt(64)})
    assert r3(flat["weights"]) == FIX["C4"]["printed"]["weights"]
    assert steep["max_weight"] > 0.9995


SOFTMAX_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("values too short", {"scores": [1, 2, 3], "values": [1, 2]}, "values"),
    ("value rows too many", {"scores": [1, 2], "values": [[1], [2], [3]]}, "values"),
    ("value not a number", {"scores": [1, 2], "values": [1, "x"]}, "values[1]"),
    ("value ragged", {"scores": [1, 2], "values": [[1, 2], [3]]}, "values"),
    ("value beyond 1e6", {"scores": [1, 2], "values": [1, 2e6]}, "values[1]"),
    ("mask unknown", {"scores": [1, 2], "mask": "window"}, "mask"),
    ("mask_order unknown", {"scores": [1, 2], "mask_order": "during"}, "mask_order"),
    ("allowed shape", {"scores": [[1, 2], [3, 4]], "allowed": [[True, True]]}, "allowed"),
    ("allowed vector length", {"scores": [1, 2], "allowed": [True]}, "allowed"),
    ("allowed not booleans", {"scores": [1, 2], "allowed": [1, 0]}, "allowed[0]"),
    ("allowed ragged", {"scores": [[1, 2], [3, 4]], "allowed": [[True], [True, False]]},
     "allowed"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "payload", "field"), SOFTMAX_CASES,
                         ids=[c[0] for c in SOFTMAX_CASES])  # fmt: skip
def test_softmax_extension_bad_input(
    client: TestClient, case: str, payload: dict[str, Any], field: str
) -> None:
    assert_error(client.post(SOFTMAX, json=payload), field)


# --- key_tokens and the presets ----------------------------------------------------------


def preset(client: TestClient, name: str) -> dict[str, Any]:
    r = client.get(f"/api/v1/presets/{name}")
    assert r.status_code == 200
    return dict(r.json()["body"])


@pytest.mark.parametrize("entry", ["A3", "A4", "B1"])
def test_presets_are_the_spec_fixtures(client: TestClient, entry: str) -> None:
    fx = FIX[entry]
    b = preset(client, fx["preset"])
    assert b["q"] == fx["q"]
    assert b["k"] == fx["k"]
    assert b["v"] == fx.get("v", fx["k"])  # A3, A4: V = K
    assert b["tokens"] == fx["tokens"]
    assert b.get("key_tokens") == fx.get("key_tokens")
    assert b["scale"] is True
    assert b["mask"] == fx.get("mask", "none")


def test_presets_are_listed_after_the_existing_ones(client: TestClient) -> None:
    ids = [p["id"] for p in client.get("/api/v1/presets").json()]
    assert ids[:4] == ["i-love-llms", "cross-attention", "causal", "two-heads"]
    assert {"two-tokens", "who-is-the-best", "dog-truck-barked"} <= set(ids)


def test_who_is_the_best_over_http(client: TestClient) -> None:
    out = post(client, ATTENTION, preset(client, "who-is-the-best"))
    assert round(out["divisor"], 4) == FIX["A3"]["printed"]["sqrt_d_k"]
    assert [round(w, 4) for w in out["weights"][0]] == FIX["A3"]["printed"]["weights"]
    assert out["key_tokens"] == ["is", "the", "best"]
    assert out["tokens"] == ["who"]


def test_two_tokens_over_http(client: TestClient) -> None:
    p = FIX["B1"]["printed"]
    out = post(client, ATTENTION, preset(client, "two-tokens"))
    assert out["scores"] == p["scores"]
    assert [round(x, 2) for x in out["scaled"][0]] == p["scaled"][0]
    assert r3(out["scaled"][1]) == p["scaled"][1]
    assert out["masked"][0][1] is None  # −∞ is null on the wire
    assert out["weights"][0] == p["weights_row_0"]
    assert r3(out["weights"][1]) == p["weights_row_1"]
    assert out["output"][0] == p["output"][0]
    assert r3(out["output"][1]) == p["output"][1]


def test_dog_truck_barked_over_http(client: TestClient) -> None:
    out = post(client, ATTENTION, preset(client, "dog-truck-barked"))
    assert out["key_tokens"] == ["dog", "truck", "barked"]
    assert out["row_argmax"][:2] == [0, 1]
    assert out["row_entropy"][2] == pytest.approx(math.log2(3), abs=1e-12)


Q = [[1.0, 0.0]]
K = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
KEY_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("too few", {"q": Q, "k": K, "v": K, "key_tokens": ["a", "b"]}, "key_tokens"),
    ("too many", {"q": Q, "k": K, "v": K, "key_tokens": ["a", "b", "c", "d"]}, "key_tokens"),
    ("over 64", {"q": Q, "k": K, "v": K, "key_tokens": ["a", "b" * 65, "c"]}, "key_tokens[1]"),
    ("not a string", {"q": Q, "k": K, "v": K, "key_tokens": ["a", 2, "c"]}, "key_tokens[1]"),
    ("projection mode", body(key_tokens=["a", "b", "c"]), "key_tokens"),
]


@pytest.mark.parametrize(("case", "payload", "field"), KEY_CASES, ids=[c[0] for c in KEY_CASES])
def test_key_tokens_bad_input(client: TestClient, case: str, payload: Any, field: str) -> None:
    assert_error(client.post(ATTENTION, json=payload), field)


def test_key_tokens_label_the_columns(client: TestClient) -> None:
    out = post(client, ATTENTION, {"q": Q, "k": K, "v": K, "key_tokens": ["same", "right", "back"]})
    assert out["key_tokens"] == ["same", "right", "back"]
    assert out["heads"][0]["weights"] == out["weights"]


def test_softmax_over_budget_names_what_to_reduce(make_client: MakeClient) -> None:
    small = make_client(max_cells=1000)
    assert_error(small.post(SOFTMAX, json={"scores": [[1] * 20] * 20}), "scores")
    wide = {"scores": [[1] * 4] * 4, "values": [[1] * 200] * 4}
    assert_error(small.post(SOFTMAX, json=wide), "values")
    assert small.post(SOFTMAX, json={"scores": [2, 1, 0], "values": [1, 2, 3]}).status_code == 200
