"""``POST /api/v1/cost`` answers bounded integers: every number below 2^53, where JSON
readers (JavaScript's numbers, any float64) stop holding integers exactly. The boundary
is tested exactly: the largest body accepted answers exact integers, one more is a 422
naming the field."""

from __future__ import annotations

import math
import re
from typing import Any

from api_helpers import assert_error, strict_json
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

COST = "/api/v1/cost"
EXACT = 2**53
# The schema's bounds (CostRequest), all at once.
MAXIMA = {"d_model": 2**16, "heads": 2**16, "d_ff": 2**18, "vocab": 2**24, "layers": 1024}


def numbers(value: Any) -> list[Any]:
    """Every number in a decoded JSON document."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in numbers(v)]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


def exact_answer(response: Any) -> dict[str, Any]:
    """A 200 whose numbers are all integers below 2^53 (parsed as Python ints, exactly)."""
    assert response.status_code == 200, response.text
    out: dict[str, Any] = strict_json(response.text)
    found = numbers(out)
    assert found
    assert all(isinstance(n, int) and 0 <= n < EXACT for n in found), max(found)
    return out


def test_the_issues_body_is_a_422_naming_n_with_the_largest_n(client: TestClient) -> None:
    sizes = {"d_model": 65536, "heads": 4096, "layers": 1024}
    detail = assert_error(client.post(COST, json={"n": 1048576, **sizes}), "n")
    assert "memory.all_tables_bytes = 18,446,744,073,709,551,616" in detail[0]["msg"]  # 2^64
    # 4·N²·h·layers < 2^53  <=>  N² <= (2^53 − 1) // (4·h·layers)
    largest = math.isqrt((EXACT - 1) // (4 * 4096 * 1024))
    assert largest == 23170
    assert f"at most n = {largest:,}" in detail[0]["msg"]
    out = exact_answer(client.post(COST, json={"n": largest, **sizes}))
    assert out["memory"]["all_tables_bytes"] == 4 * largest**2 * 4096 * 1024
    assert_error(client.post(COST, json={"n": largest + 1, **sizes}), "n")


def test_the_flops_bound_is_exact_too(client: TestClient) -> None:
    sizes = {"d_model": 2**16, "heads": 1, "layers": 1}
    msg = assert_error(client.post(COST, json={"n": 2**20, **sizes}), "n")[0]["msg"]
    assert "flops.total" in msg
    largest = int(re.findall(r"at most n = ([\d,]+)", msg)[0].replace(",", ""))
    d = 2**16

    def total(n: int) -> int:
        return 4 * n * d * d + 2 * n * n * d

    assert total(largest) < EXACT <= total(largest + 1)
    assert exact_answer(client.post(COST, json={"n": largest, **sizes}))["flops"]["total"] == (
        total(largest)
    )
    assert_error(client.post(COST, json={"n": largest + 1, **sizes}), "n")


def test_every_field_at_its_largest_is_exact_and_one_more_is_refused(client: TestClient) -> None:
    # With every other size at its bound, N may be at most isqrt((2^53 − 1) // (4·h·layers)).
    n = math.isqrt((EXACT - 1) // (4 * MAXIMA["heads"] * MAXIMA["layers"]))
    largest = {"n": n, **MAXIMA, "biases": True}
    exact_answer(client.post(COST, json=largest))
    for field in (*MAXIMA, "n"):
        assert_error(client.post(COST, json={**largest, field: largest[field] + 1}), field)
    # n's own bound, 2^20, with sizes small enough for every count to fit
    small = {"d_model": 64, "heads": 1, "layers": 1}
    exact_answer(client.post(COST, json={"n": 2**20, **small}))
    assert_error(client.post(COST, json={"n": 2**20 + 1, **small}), "n")


def test_the_schema_says_so(client: TestClient) -> None:
    schema = client.get("/api/v1/openapi.json").json()["components"]["schemas"]["CostRequest"]
    assert "2^53" in schema["properties"]["n"]["description"]
    assert "2^53" in schema["description"]
    for field, bound in MAXIMA.items():
        assert schema["properties"][field]["maximum"] == bound


@st.composite
def cost_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """Any body the schema and the divisibility rule accept, N spread over its decades."""
    heads = draw(st.integers(1, 2**16))
    d_model = heads * draw(st.integers(1, 2**16 // heads))
    exponent = draw(st.integers(0, 20))
    n = draw(st.integers(max(1, 2 ** (exponent - 1)), 2**exponent))
    return {
        "n": n, "d_model": d_model, "heads": heads, "d_ff": draw(st.integers(1, 2**18)),
        "vocab": draw(st.integers(1, 2**24)), "layers": draw(st.integers(1, 1024)),
        "biases": draw(st.booleans()),
    }  # fmt: skip


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cost_bodies())
def test_no_accepted_body_answers_a_number_past_2_53(
    client: TestClient, payload: dict[str, Any]
) -> None:
    response = client.post(COST, json=payload)
    if response.status_code == 422:
        assert [d["field"] for d in response.json()["detail"]] == ["n"]
        # refused only when a count would really reach 2^53: the formulas, by hand
        n, d, h, layers = (payload[k] for k in ("n", "d_model", "heads", "layers"))
        assert max(4 * n * d * d + 2 * n * n * d, 4 * n * n * h * layers) >= EXACT
        return
    exact_answer(response)
