"""Every bad input of issue 2 gets a 4xx JSON error naming the field, never a 500, and the
server keeps serving: after each bad request the running example still answers 200."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from api_helpers import JSON, MakeClient, assert_error, body, strict_json
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException

from app.settings import Settings
from app.web.middleware import RequestGuard

X = [[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]
Q = [[2, 1, 0, 0], [1, 2, 0, 1], [1, 0, 1, 2]]


def still_serving(client: TestClient) -> None:
    r = client.post("/api/v1/attention", json=body())
    assert r.status_code == 200
    assert r.json()["divisor"] == 2


# (case id, request body, field the error must name)
ATTENTION_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("ragged x", body(x=[[0, 0, 1, 1], [0, 1, 0], [1, 0, 0, 1]]), "x"),
    ("ragged w_q", body(w_q=[[0, -1, 1, 1], [0, 1], [1, 0, 0, -1], [1, 1, 0, 1]]), "w_q"),
    ("ragged allowed", body(allowed=[[True], [True, True, True], [True, True, True]]), "allowed"),
    ("empty x", body(x=[]), "x"),
    ("empty row", body(x=[[]]), "x"),
    ("empty w_v", body(w_v=[]), "w_v"),
    ("string number", body(x=[["0", 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]), "x[0][0]"),
    ("word", body(x=[["abc", 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]), "x[0][0]"),
    ("boolean number", body(w_k=[[True, 0, 0, 1]] * 4), "w_k[0][0]"),
    ("null number", body(x=[[None, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]), "x[0][0]"),
    ("x not a list", body(x="X"), "x"),
    ("beyond +1e6", body(x=[[0, 0, 1, 1.000001e6], [0, 1, 0, 1], [1, 0, 0, 1]]), "x[0][3]"),
    (
        "beyond -1e6",
        body(w_q=[[0, -1, 1, 1], [0, 1, 0, 0], [1, 0, 0, -2e6], [1, 1, 0, 1]]),
        "w_q[2][3]",
    ),
    ("x columns != w_q rows", body(w_q=[[0, -1, 1, 1], [0, 1, 0, 0], [1, 0, 0, -1]]), "w_q"),
    ("x columns != w_v rows", body(w_v=[[0, 0, 1, 0]]), "w_v"),
    ("w_q and w_k widths", body(w_k=[[0, -1, 0], [-1, 1, 0], [1, -1, 1], [1, 1, 0]]), "w_k"),
    ("source width", body(source={"x": [[1, 2, 3]]}), "source.x"),
    ("source tokens length", body(source={"x": X, "tokens": ["a"]}), "source.tokens"),
    ("tokens length", body(tokens=["I", "love"]), "tokens"),
    ("Q and K widths", {"q": Q, "k": [[1, 2, 3]] * 3, "v": Q}, "k"),
    ("K and V lengths", {"q": Q, "k": Q, "v": Q[:2]}, "v"),
    ("missing v", {"q": Q, "k": Q}, "v"),
    ("heads do not divide d_k", body(heads=3), "heads"),
    ("heads do not divide d_v", {"q": Q, "k": Q, "v": [[1, 2, 3]] * 3, "heads": 2}, "heads"),
    ("heads zero", body(heads=0), "heads"),
    ("heads not an integer", body(heads=1.5), "heads"),
    ("w_o rows", body(heads=2, w_o=[[1, 0, 0, 0]] * 3), "w_o"),
    ("w_o ragged", body(w_o=[[1, 0], [1]]), "w_o"),
    ("both modes", body(q=Q, k=Q, v=Q), "q"),
    ("neither mode", {"tokens": ["I"]}, "x"),
    ("projection incomplete", body(w_v=None), "w_v"),
    ("padding too short", body(padding=[False, True]), "padding"),
    ("padding too long", body(padding=[False] * 4), "padding"),
    ("padding not booleans", body(padding=[0, 1, 0]), "padding[0]"),
    ("allowed too few rows", body(allowed=[[True, True, True]] * 2), "allowed"),
    ("allowed too few columns", body(allowed=[[True, True]] * 3), "allowed"),
    ("unknown field", body(softmax=True), "softmax"),
    ("unknown field in source", body(source={"x": X, "colour": "red"}), "source.colour"),
    ("mask unknown", body(mask="diagonal"), "mask"),
    ("scale not boolean", body(scale="yes"), "scale"),
    ("label over 64", body(tokens=["I", "x" * 65, "LLMs"]), "tokens[1]"),
    (
        "source label over 64",
        body(source={"x": X, "tokens": ["a", "b", "c" * 65]}),
        "source.tokens[2]",
    ),
    ("label not a string", body(tokens=["I", 2, "LLMs"]), "tokens[1]"),
    ("513 tokens", body(x=[[0, 0, 1, 1]] * 513, tokens=None), "x"),
    ("513 wide", body(x=[[1] * 513] * 3, w_q=[[1] * 4] * 513), "x"),
    ("513 wide w_k", body(w_k=[[1] * 513] * 4), "w_k"),
    ("513 direct keys", {"q": Q, "k": [[1, 2, 3, 4]] * 513, "v": [[1]] * 513}, "k"),
    ("513 source tokens", body(source={"x": [[0, 0, 1, 1]] * 513}), "source.x"),
    ("not an object", [1, 2, 3], "body"),  # type: ignore[list-item]
]


@pytest.mark.parametrize(("case", "payload", "field"), ATTENTION_CASES,
                         ids=[c[0] for c in ATTENTION_CASES])  # fmt: skip
def test_attention_bad_input(client: TestClient, case: str, payload: Any, field: str) -> None:
    assert_error(client.post("/api/v1/attention", json=payload), field)
    still_serving(client)


SOFTMAX_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("empty", {"scores": []}, "scores"),
    ("empty row", {"scores": [[]]}, "scores[0]"),
    ("ragged", {"scores": [[1, 2], [3]]}, "scores"),
    ("word", {"scores": [1, "two"]}, "scores[1]"),
    ("beyond 1e6", {"scores": [1, 2e6]}, "scores[1]"),
    ("matrix cell", {"scores": [[1, 2], [3, False]]}, "scores[1][1]"),
    ("too long", {"scores": [1] * 4097}, "scores"),
    ("missing", {"stretch": 2}, "scores"),
    ("stretch too big", {"scores": [1], "stretch": 1001}, "stretch"),
    ("stretch a string", {"scores": [1], "stretch": "8"}, "stretch"),
    ("unknown field", {"scores": [1], "temperature": 2}, "temperature"),
]


@pytest.mark.parametrize(("case", "payload", "field"), SOFTMAX_CASES,
                         ids=[c[0] for c in SOFTMAX_CASES])  # fmt: skip
def test_softmax_bad_input(client: TestClient, case: str, payload: Any, field: str) -> None:
    assert_error(client.post("/api/v1/softmax", json=payload), field)
    still_serving(client)


RAW_X = '{"x": [[%s, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]], "w_q": [[0, -1, 1, 1], [0, 1, 0, 0], [1, 0, 0, -1], [1, 1, 0, 1]], "w_k": [[0, -1, 0, 1], [-1, 1, 0, 0], [1, -1, 1, -1], [1, 1, 0, 1]], "w_v": [[0, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0], [1, 0, 0, 0]]}'  # noqa: E501


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_nan_and_infinity_literals_are_refused(client: TestClient, literal: str) -> None:
    r = client.post("/api/v1/attention", content=RAW_X.replace("%s", literal), headers=JSON)
    detail = assert_error(r, "x[0][0]")
    assert "finite" in detail[0]["msg"]
    assert literal not in r.text  # the input is never echoed back
    r = client.post("/api/v1/softmax", content=f'{{"scores": [1, {literal}]}}', headers=JSON)
    assert_error(r, "scores[1]")
    r = client.post("/api/v1/softmax", content=f'{{"scores": [1], "stretch": {literal}}}',
                 headers=JSON)  # fmt: skip
    assert_error(r, "stretch")
    still_serving(client)


def test_an_integer_too_long_for_json_is_a_400_naming_the_body(client: TestClient) -> None:
    r = client.post("/api/v1/softmax", content='{"scores": [1' + "0" * 5000 + "]}", headers=JSON)
    assert_error(r, "body", status=400)
    still_serving(client)


@pytest.mark.parametrize(
    "text", ['{"x": [[1, 2]', "{'x': 1}", "", "nonsense", '{"scores": [1, 2,]}']
)
def test_malformed_json(client: TestClient, text: str) -> None:
    for path in ("/api/v1/attention", "/api/v1/softmax"):
        detail = assert_error(client.post(path, content=text, headers=JSON), "body")
        assert any("JSON" in d["msg"] or "required" in d["msg"] for d in detail)
    still_serving(client)


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_wrong_content_type_is_415(client: TestClient, content_type: str | None) -> None:
    headers = {"content-type": content_type} if content_type else {}
    r = client.post("/api/v1/attention", content=json.dumps(body()), headers=headers)
    detail = assert_error(r, "content-type", status=415)
    assert "application/json" in detail[0]["msg"]
    still_serving(client)


def test_json_with_charset_is_fine(client: TestClient) -> None:
    headers = {"content-type": "application/json; charset=utf-8"}
    assert (
        client.post("/api/v1/attention", content=json.dumps(body()), headers=headers).status_code
        == 200
    )


def test_limits_follow_settings(make_client: MakeClient) -> None:
    with make_client(max_tokens=4, max_width=6) as small:
        assert small.post("/api/v1/attention", json=body()).status_code == 200
        five = body(x=[[0, 0, 1, 1]] * 5, tokens=None)
        detail = assert_error(small.post("/api/v1/attention", json=five), "x")
        assert "limit of 4" in detail[0]["msg"]
        wide = body(w_v=[[1] * 7] * 4)
        assert "width limit of 6" in assert_error(small.post("/api/v1/attention", json=wide),
                                                   "w_v")[0]["msg"]  # fmt: skip
        labels = body(tokens=["a"] * 5)
        assert_error(small.post("/api/v1/attention", json=labels), "tokens")
        padding = body(padding=[False] * 5)
        assert_error(small.post("/api/v1/attention", json=padding), "padding")
        assert small.post("/api/v1/attention", json=body()).status_code == 200


def test_512_tokens_and_512_wide_are_accepted(client: TestClient) -> None:
    r = client.post("/api/v1/attention", json={"q": [[1.0] * 512] * 512, "k": [[0.5] * 512] * 2,
                                            "v": [[1.0] * 3] * 2})  # fmt: skip
    assert r.status_code == 200
    assert len(r.json()["weights"]) == 512


# Body size: 413 before the body is parsed


def test_oversized_body_with_content_length_is_413(make_client: MakeClient) -> None:
    with make_client(max_body_bytes=2048) as small:
        assert small.post("/api/v1/attention", json=body()).status_code == 200
        # not even JSON: a 413 (not 422) shows the body was never parsed
        r = small.post("/api/v1/attention", content=b"x" * 2049, headers=JSON)
        detail = assert_error(r, "body", status=413)
        assert "2048" in detail[0]["msg"]
        assert small.post("/api/v1/attention", json=body()).status_code == 200


def test_oversized_chunked_body_is_413(make_client: MakeClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b"y" * 1000

    with make_client(max_body_bytes=4096) as small:
        r = small.post("/api/v1/attention", content=chunks(), headers=JSON)
        assert "content-length" not in r.request.headers
        assert r.request.headers.get("transfer-encoding") == "chunked"
        assert_error(r, "body", status=413)
        assert small.post("/api/v1/attention", json=body()).status_code == 200


def test_guard_stops_reading_a_chunked_body_at_the_limit() -> None:
    """At the ASGI level (TestClient reads whole bodies first): the guard buffers nothing
    and counts the chunks as the app reads them; past the limit the read fails with 413,
    of an endless body."""
    pulled: list[int] = []

    async def receive() -> dict[str, Any]:
        pulled.append(1)
        return {"type": "http.request", "body": b"y" * 1000, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        raise AssertionError("the guard itself sends nothing for a chunked body")

    async def reader(_: Any, receive: Any, __: Any) -> None:
        while True:  # reads for ever: only the guard's count stops it
            await receive()

    scope = {"type": "http", "method": "POST", "path": "/api/v1/attention",
             "headers": [(b"content-type", b"application/json")]}  # fmt: skip
    guard = RequestGuard(reader, max_body_bytes=4096)
    # In a thread of its own: a session-scoped Playwright browser keeps an event loop
    # running on the main thread, where asyncio.run would refuse to start.
    with ThreadPoolExecutor(1) as pool, pytest.raises(HTTPException) as refused:
        pool.submit(asyncio.run, guard(scope, receive, send)).result()  # type: ignore[arg-type]
    assert refused.value.status_code == 413
    assert len(pulled) == 5  # 5000 bytes > 4096: stop there
    assert refused.value.detail[0]["field"] == "body"


def test_chunked_body_within_the_limit_is_served(make_client: MakeClient) -> None:
    raw = json.dumps(body()).encode()

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(raw), 100):
            yield raw[i : i + 100]

    with make_client(max_body_bytes=4096) as small:
        r = small.post("/api/v1/attention", content=chunks(), headers=JSON)
        assert r.status_code == 200
        assert strict_json(r.text)["divisor"] == 2


def test_default_body_limit_admits_the_largest_valid_request() -> None:
    # six 512 × 512 matrices of long numbers and a 512 × 512 allowed grid
    number = "-123456.78901234567"
    row = "[" + ",".join([number] * 512) + "]"
    matrix = "[" + ",".join([row] * 512) + "]"
    allowed = "[" + ",".join(["[" + ",".join(["false"] * 512) + "]"] * 512) + "]"
    size = 6 * len(matrix) + len(allowed) + 200
    assert size < Settings().max_body_bytes


def test_unknown_api_path_and_method_use_the_error_shape(client: TestClient) -> None:
    assert_error(client.get("/api/v1/nothing"), "path", status=404)
    assert_error(client.get("/api/v1/attention"), "method", status=405)
    assert_error(client.get("/api/v1/presets/nothing"), "preset_id", status=404)


@pytest.mark.parametrize(
    ("method", "path"),
    [("PUT", "/api/v1/presets"), ("POST", "/api/v1/presets"), ("PATCH", "/api/v1/attention")],
)
def test_a_method_the_route_lacks_is_405_not_415(
    client: TestClient, method: str, path: str
) -> None:
    # found by Schemathesis: the guard used to answer 415 before the router could say 405
    assert_error(client.request(method, path), "method", status=405)
