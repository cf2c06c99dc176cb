"""POST /api/v1/experiments/{score-variance, saturation, scaling-table} over HTTP: the
§2 shapes (checked against the documented response models), byte-identical answers,
422s naming the field (bad input and over budget), NDJSON progress, OpenAPI, and the
"Copy as NumPy" scripts, run in a subprocess and compared with the API's numbers."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from api_helpers import MakeClient, assert_error, strict_json
from fastapi.testclient import TestClient
from numpy_scripts import script_json
from pydantic import BaseModel

from app.inputs.experiments import (
    SaturationResponse,
    ScalingTableResponse,
    ScoreVarianceResponse,
)

BASE = "/api/v1/experiments"
MODELS: dict[str, type[BaseModel]] = {
    "score-variance": ScoreVarianceResponse,
    "saturation": SaturationResponse,
    "scaling-table": ScalingTableResponse,
}


def post(client: TestClient, name: str, payload: dict[str, Any]) -> Any:
    r = client.post(f"{BASE}/{name}", json=payload)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    return r


@pytest.mark.parametrize("name", list(MODELS))
def test_defaults_answer_in_the_documented_shape(client: TestClient, name: str) -> None:
    out = strict_json(post(client, name, {}).text)
    MODELS[name].model_validate(out, strict=True)


def test_score_variance_fields(client: TestClient) -> None:
    out = post(
        client, "score-variance", {"d_ks": [64, 1], "draws": 3000, "seed": 7, "bins": 9}
    ).json()
    assert set(out) == {"seed", "draws", "widths"}
    assert (out["seed"], out["draws"]) == (7, 3000)
    assert [w["d_k"] for w in out["widths"]] == [64, 1]
    w = out["widths"][0]
    assert set(w) == {"d_k", "mean", "var", "var_over_d_k", "scaled_var", "histogram"}
    assert w["var_over_d_k"] == pytest.approx(w["var"] / 64)
    assert len(w["histogram"]["edges"]) == 10
    assert sum(w["histogram"]["counts"]) == 3000


def test_saturation_fields(client: TestClient) -> None:
    out = post(client, "saturation", {}).json()
    assert set(out) == {"unscaled", "scaled"}
    for side in out.values():
        assert set(side) == {"saturated_fraction", "mean_p_max", "mean_saturated_p_one_minus_p",
                             "p_max_histogram"}  # fmt: skip
        assert side["p_max_histogram"]["edges"][0] == 0.0
        assert side["p_max_histogram"]["edges"][-1] == 1.0
        assert sum(side["p_max_histogram"]["counts"]) == 500
    assert out["scaled"]["mean_saturated_p_one_minus_p"] is None  # none saturated: null


def test_scaling_table_fields(client: TestClient) -> None:
    out = post(client, "scaling-table", {}).json()
    assert out["max_entropy_bits"] == 3.0
    assert [r["d_k"] for r in out["rows"]] == [4, 16, 64, 256, 1024]
    assert set(out["rows"][0]) == {"d_k", "spread", "pooled_spread", "raw_max_weight",
                                   "raw_entropy_bits", "scaled_max_weight",
                                   "scaled_entropy_bits"}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "payload"),
    [("score-variance", {"draws": 50_000, "seed": 3}), ("saturation", {"seed": 9}),
     ("scaling-table", {"seed": 2, "keys": 16})],
)  # fmt: skip
def test_same_body_same_bytes(
    client: TestClient, make_client: MakeClient, name: str, payload: dict[str, Any]
) -> None:
    first = post(client, name, payload).content
    assert post(client, name, payload).content == first
    assert post(make_client(), name, payload).content == first  # a fresh app, too
    other = post(client, name, {**payload, "seed": payload["seed"] + 1}).content
    assert other != first


BAD: list[tuple[str, str, dict[str, Any], str]] = [
    ("score-variance", "no widths", {"d_ks": []}, "d_ks"),
    ("score-variance", "width 0", {"d_ks": [0]}, "d_ks[0]"),
    ("score-variance", "width 1025", {"d_ks": [64, 1025]}, "d_ks[1]"),
    ("score-variance", "width 2.5", {"d_ks": [2.5]}, "d_ks[0]"),
    ("score-variance", "17 widths", {"d_ks": [1] * 17}, "d_ks"),
    ("score-variance", "draws 0", {"draws": 0}, "draws"),
    ("score-variance", "draws 200001", {"draws": 200_001}, "draws"),
    ("score-variance", "draws a string", {"draws": "100"}, "draws"),
    ("score-variance", "seed negative", {"seed": -1}, "seed"),
    ("score-variance", "seed beyond 2**53", {"seed": 2**53}, "seed"),
    ("score-variance", "seed true", {"seed": True}, "seed"),
    ("score-variance", "bins 4", {"bins": 4}, "bins"),
    ("score-variance", "bins 201", {"bins": 201}, "bins"),
    ("score-variance", "unknown field", {"width": 3}, "width"),
    ("saturation", "d_k 0", {"d_k": 0}, "d_k"),
    ("saturation", "keys 1", {"keys": 1}, "keys"),
    ("saturation", "keys 1025", {"keys": 1025}, "keys"),
    ("saturation", "trials 0", {"trials": 0}, "trials"),
    ("saturation", "trials 10001", {"trials": 10_001}, "trials"),
    ("saturation", "threshold 0", {"threshold": 0}, "threshold"),
    ("saturation", "threshold 1", {"threshold": 1}, "threshold"),
    ("saturation", "threshold text", {"threshold": "0.9"}, "threshold"),
    ("saturation", "unknown field", {"scale": True}, "scale"),
    ("scaling-table", "keys 1", {"keys": 1}, "keys"),
    ("scaling-table", "draws 10001", {"draws": 10_001}, "draws"),
    ("scaling-table", "width 2048", {"d_ks": [2048]}, "d_ks[0]"),
    ("scaling-table", "not an object", [1, 2], "body"),  # type: ignore[list-item]
]


@pytest.mark.parametrize(
    ("name", "case", "payload", "field"), BAD, ids=[f"{b[0]}: {b[1]}" for b in BAD]
)
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, name: str, case: str, payload: Any, field: str
) -> None:
    assert_error(client.post(f"{BASE}/{name}", json=payload), field)
    assert_error(client.post(f"{BASE}/{name}/numpy", json=payload), field)


@pytest.mark.parametrize(
    ("name", "payload", "field"),
    [("saturation", {"trials": 10_000, "keys": 1024}, "trials"),
     ("scaling-table", {"draws": 10_000, "keys": 1024}, "draws")],
)  # fmt: skip
def test_over_budget_is_a_422_naming_what_to_reduce(
    client: TestClient, name: str, payload: dict[str, Any], field: str
) -> None:
    detail = assert_error(client.post(f"{BASE}/{name}", json=payload), field)
    assert "reduce" in detail[0]["msg"]
    assert detail[0]["type"] == "too_costly"


def test_the_settings_budget_applies_too(make_client: MakeClient) -> None:
    small = make_client(max_cells=1000)
    detail = assert_error(small.post(f"{BASE}/score-variance", json={}), "draws")
    assert "ATTENTION_LAB_MAX_CELLS" in detail[0]["msg"]


def test_the_page_s_largest_runs_fit_the_budget(client: TestClient) -> None:
    post(client, "score-variance", {"d_ks": [32, 64, 128, 256], "draws": 200_000})
    post(client, "saturation", {"d_k": 1024, "keys": 512, "trials": 10_000})


# --- progress ----------------------------------------------------------------------------


def stream(client: TestClient, name: str, payload: dict[str, Any]) -> tuple[list[bytes], Any]:
    with client.stream("POST", f"{BASE}/{name}", json=payload,
                    headers={"accept": "application/x-ndjson"}) as r:  # fmt: skip
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/x-ndjson")
        lines = [line.encode() for line in r.iter_lines() if line]
    return lines, r


@pytest.mark.parametrize(
    ("name", "payload", "total"),
    [("score-variance", {"draws": 45_000, "d_ks": [8, 16]}, 6),
     ("saturation", {"keys": 1000, "trials": 450}, 3),
     ("scaling-table", {"draws": 10, "d_ks": [4, 8, 16]}, 3)],
)  # fmt: skip
def test_ndjson_reports_each_block_then_the_same_bytes(
    client: TestClient, name: str, payload: dict[str, Any], total: int
) -> None:
    lines, _ = stream(client, name, payload)
    progress = [json.loads(line)["progress"] for line in lines[:-1]]
    assert progress == [{"done": i, "total": total} for i in range(total + 1)]
    plain = post(client, name, payload).content
    assert lines[-1] == b'{"result":' + plain + b"}"


def test_ndjson_refuses_over_budget_before_streaming(client: TestClient) -> None:
    r = client.post(f"{BASE}/saturation", json={"trials": 10_000, "keys": 1024},
                 headers={"accept": "application/x-ndjson"})  # fmt: skip
    assert_error(r, "trials")


# --- OpenAPI -----------------------------------------------------------------------------


def test_openapi_lists_the_experiments_with_examples(client: TestClient) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    for name in MODELS:
        op = spec["paths"][f"{BASE}/{name}"]["post"]
        assert op["summary"]
        ok = op["responses"]["200"]["content"]
        assert {"application/json", "application/x-ndjson"} <= set(ok)
        assert op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith(
            "/ErrorResponse"
        )
        ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        schema = spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        assert schema["examples"]
        assert schema["additionalProperties"] is False
        for example in schema["examples"]:
            post(client, name, example)
        named = op["requestBody"]["content"]["application/json"]["examples"]
        assert len(named) >= 2
        for example in named.values():
            post(client, name, example["value"])
        assert "application/x-ndjson" in op["description"]
        for field, prop in schema["properties"].items():
            assert prop.get("description"), (name, field)
            assert prop.get("examples"), (name, field)
        script = spec["paths"][f"{BASE}/{name}/numpy"]["post"]
        assert "text/x-python" in script["responses"]["200"]["content"]


# --- Copy as NumPy -----------------------------------------------------------------------


def same_numbers(a: Any, b: Any, path: str = "") -> None:
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            same_numbers(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same_numbers(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert a == b, path


@pytest.mark.parametrize(
    ("name", "payload"),
    [("score-variance", {}),
     ("score-variance", {"d_ks": [3, 700], "draws": 45_001, "seed": 12345, "bins": 7}),
     ("saturation", {}),
     ("saturation", {"d_k": 5, "keys": 1000, "trials": 450, "threshold": 0.5, "seed": 4}),
     ("scaling-table", {}),
     ("scaling-table", {"d_ks": [1, 2], "keys": 2, "draws": 3, "seed": 99})],
)  # fmt: skip
def test_numpy_script_reproduces_the_api(
    client: TestClient, name: str, payload: dict[str, Any]
) -> None:
    r = client.post(f"{BASE}/{name}/numpy", json=payload)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/x-python")
    assert "default_rng" in r.text
    assert "import app" not in r.text  # standalone
    assert "from app" not in r.text
    same_numbers(script_json(r.text), post(client, name, payload).json())


def test_a_huge_body_is_refused_not_computed(client: TestClient, make_client: MakeClient) -> None:
    text = '{"d_ks": [' + ",".join(["64"] * 200_000) + "]}"  # ~600 kB, read off the loop
    r = client.post(
        f"{BASE}/score-variance", content=text, headers={"content-type": "application/json"}
    )
    assert_error(r, "d_ks")
    tiny = make_client(max_cells=1000)  # and past the budget it is refused before parsing
    assert_error(tiny.post(f"{BASE}/score-variance", content=text,
                           headers={"content-type": "application/json"}), "the body")  # fmt: skip


def test_a_cancelled_stream_stops_drawing(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client goes away after the third line (the ASGI server's send raises OSError):
    the run stops there instead of drawing its 40 blocks."""
    import anyio
    from starlette.requests import ClientDisconnect

    from app.api import experiments as route
    from app.labs import experiments as labs

    app = make_client().app
    drawn: list[tuple[int, int]] = []

    def counting_steps(p: Any) -> Any:
        gen = labs.steps(p)
        while True:
            try:
                block = next(gen)
            except StopIteration as stop:
                return stop.value
            drawn.append(block)
            yield block

    monkeypatch.setattr(route, "steps", counting_steps)
    body = json.dumps({"d_ks": [32, 64, 128, 256], "draws": 200_000}).encode()
    lines: list[bytes] = []

    async def receive() -> dict[str, Any]:
        if not lines:
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep(60)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            lines.append(message["body"])
            if len(lines) >= 3:
                raise OSError("the client closed the connection")

    path = f"{BASE}/score-variance"
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
             "http_version": "1.1", "method": "POST", "scheme": "http", "path": path,
             "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"test"), (b"content-type", b"application/json"),
                         (b"accept", b"application/x-ndjson"),
                         (b"content-length", str(len(body)).encode())],
             "client": ("127.0.0.1", 5000), "server": ("test", 80), "state": {}}  # fmt: skip

    async def call() -> None:
        with pytest.raises(ClientDisconnect):  # Starlette's word for the OSError
            await app(scope, receive, send)

    # In a thread of its own: in a full run Playwright's asyncio loop holds the main thread.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, call).result()
    assert lines[0].startswith(b'{"progress":{"done":0,"total":40}}')
    assert 2 <= len(drawn) <= 4  # a block or so past the last line sent, not 40
