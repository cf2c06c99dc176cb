"""/api/v1/export: JSON, CSV zip and NumPy script, by link state (GET) or body (POST)."""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.attention import run
from app.inputs.body import AttentionRequest
from app.inputs.link import encode_body
from app.presets import get_preset


def preset_body(name: str) -> dict[str, object]:
    found = get_preset(name)
    assert found is not None
    return found["body"]


def test_json_has_every_stage_and_no_infinity(client: TestClient) -> None:
    r = client.get("/api/v1/export?format=json&preset=causal")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    assert "Infinity" not in r.text
    assert "NaN" not in r.text
    data = r.json()
    names = list(data["matrices"])
    assert names == ["x", "w_q", "w_k", "w_v", "q", "k", "v", "scores", "scaled", "masked",
                     "weights", "output"]  # fmt: skip
    masked = data["matrices"]["masked"]
    assert masked["rows"] == ["I", "love", "LLMs"]
    assert masked["cols"] == ["I", "love", "LLMs"]
    assert masked["values"][0][1] is None  # blocked: −∞ -> null
    weights = np.array(data["matrices"]["weights"]["values"])
    assert weights[0, 1] == 0
    assert np.allclose(weights.sum(axis=1), 1)
    stages = run(AttentionRequest.model_validate(preset_body("causal")).to_input())
    assert np.array_equal(weights, stages.head.weights)
    assert data["state"] == preset_body("causal")


def test_two_heads_lists_heads_concat_and_w_o(client: TestClient) -> None:
    data = client.get("/api/v1/export?format=json&preset=two-heads").json()
    names = set(data["matrices"])
    for h in (1, 2):
        assert {f"head{h}_{n}" for n in ("q", "weights", "output", "masked")} <= names
    assert {"concat", "w_o", "output"} <= names
    assert data["divisors"] == [math.sqrt(2), math.sqrt(2)]


def test_csv_zip_one_file_per_matrix(client: TestClient) -> None:
    r = client.get("/api/v1/export?format=csv&preset=causal")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/zip"
    assert 'filename="attention-lab-causal.zip"' in r.headers["content-disposition"]
    zf = zipfile.ZipFile(io.BytesIO(r.content))
    names = zf.namelist()
    assert names[:2] == ["README.txt", "state.json"]
    assert "10_masked.csv" in names
    assert "11_weights.csv" in names
    rows = list(csv.reader(io.StringIO(zf.read("10_masked.csv").decode())))
    assert rows[0][1:] == ["I", "love", "LLMs"]
    assert [r[0] for r in rows[1:]] == ["I", "love", "LLMs"]
    assert rows[1][2] == "-inf"
    assert rows[1][3] == "-inf"
    assert rows[2][1:3] == ["1", "2.5"]  # love: scores 2, 5 halved; whole numbers bare
    weights = np.array([[float(v) for v in r[1:]] for r in list(csv.reader(
        io.StringIO(zf.read("11_weights.csv").decode())))[1:]])  # fmt: skip
    stages = run(AttentionRequest.model_validate(preset_body("causal")).to_input())
    assert np.array_equal(weights, stages.head.weights)  # full precision round-trips
    assert json.loads(zf.read("state.json")) == preset_body("causal")
    assert "-inf" in zf.read("README.txt").decode()
    # deterministic bytes for the same state
    assert client.get("/api/v1/export?format=csv&preset=causal").content == r.content


def test_numpy_format_is_python(client: TestClient) -> None:
    r = client.get("/api/v1/export?format=numpy&preset=cross-attention")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/x-python")
    compile(r.text, "<snippet>", "exec")
    assert "S = np.array" in r.text
    assert "S @ W_K" in r.text


@pytest.mark.parametrize("fmt", ["json", "csv", "numpy"])
def test_get_by_s_equals_post_body(client: TestClient, fmt: str) -> None:
    body = {**preset_body("two-heads"), "mask": "causal", "tokens": ["a", "b", "c"]}
    got = client.get(f"/api/v1/export?format={fmt}&s={encode_body(body)}&head=1&row=focus")
    posted = client.post(f"/api/v1/export?format={fmt}&head=1&row=focus", json=body)
    assert got.status_code == posted.status_code == 200
    if fmt == "json":
        assert got.json()["matrices"] == posted.json()["matrices"]
    elif fmt == "numpy":
        assert got.text.splitlines()[1:] == posted.text.splitlines()[1:]  # titles may differ
    else:  # state.json echoes the body as sent (GET) or as validated (POST)
        a, b = (zipfile.ZipFile(io.BytesIO(r.content)) for r in (got, posted))
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            if name != "state.json":
                assert a.read(name) == b.read(name), name


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("format=xml&preset=causal", "format"),
        ("format=json&preset=nope", "preset"),
        ("format=json&s=%%%", "s"),
        (f"format=json&s={encode_body({'x': [[1, 2], [3]]})}", "s"),
        (f"format=json&s={encode_body({'x': [[1]], 'w_q': [[1, 2]], 'w_k': [[1]], 'w_v': [[1]]})}",
         "s"),
        ("format=numpy&focus=9", "focus"),
        ("format=numpy&head=1", "head"),
        ("format=json&stretch=0", "stretch"),
        ("format=json&row=middle", "row"),
    ],
)  # fmt: skip
def test_bad_get_names_the_parameter(client: TestClient, query: str, field: str) -> None:
    r = client.get(f"/api/v1/export?{query}")
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field


def test_bad_post_names_the_field(client: TestClient) -> None:
    r = client.post("/api/v1/export?format=csv", json={**preset_body("i-love-llms"), "heads": 3})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "heads"
    r = client.post("/api/v1/export?format=csv&focus=3", json=preset_body("i-love-llms"))
    assert r.json()["detail"][0]["field"] == "focus"
