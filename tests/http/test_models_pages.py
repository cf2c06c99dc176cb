"""The model pages (/models, /models/{id}, heads.json) and the main page opened on a
model's head (/?model=…&text=…&layer=…&head=…), on small random models patched in
(tests/http/model_fake.py): installed or not, bad sentences, bad layer/head, and Figure 6's
weights equal the model's own attention for that head."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from api_helpers import MakeClient, strict_json
from fastapi.testclient import TestClient
from model_fake import DECODER, ENCODER, MISSING, install

from app.figures import fmt
from app.figures.model_heads import CODE_BASE
from app.models.errors import ModelError, ModelInputError
from app.web import model_views

HTML = {"accept": "text/html"}


@pytest.fixture(scope="module")
def fake_client(make_client: MakeClient) -> Iterator[TestClient]:
    with pytest.MonkeyPatch.context() as mp:
        install(mp)
        with make_client() as c:
            yield c


def initial(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="initial-state">(.*?)</script>', page)
    assert found
    return dict(json.loads(found.group(1)))


def test_index_lists_models_and_how_to_install_the_missing_one(fake_client: TestClient) -> None:
    page = fake_client.get("/models").text
    for spec in (ENCODER, DECODER, MISSING):
        assert spec.name in page
    assert "attention-lab models install fake-missing" in page
    assert "attention-lab models install fake-encoder" not in page
    assert 'href="/models"' in fake_client.get("/labs").text
    assert 'href="/models"' in fake_client.get("/").text


def test_not_installed_page_says_how_and_draws_nothing(fake_client: TestClient) -> None:
    r = fake_client.get("/models/fake-missing")
    assert r.status_code == 200
    assert "<code>attention-lab models install fake-missing</code>" in r.text
    assert "model_page.js" not in r.text
    assert 'id="head-grid"' not in r.text
    j = fake_client.get("/models/fake-missing/heads.json", params={"text": "hi"})
    assert j.status_code == 404
    detail = j.json()["detail"][0]
    assert detail["field"] == "model"
    assert "attention-lab models install fake-missing" in detail["msg"]


def test_unknown_model_is_404_naming_model(fake_client: TestClient) -> None:
    r = fake_client.get("/models/nope", headers=HTML)
    assert r.status_code == 404
    assert "<code>model</code>" in r.text
    assert fake_client.get("/models/nope/heads.json?text=a").json()["detail"][0]["field"] == "model"


def test_page_opens_on_the_links_sentence_or_says_why_not(fake_client: TestClient) -> None:
    state = initial(fake_client.get("/models/fake-encoder", params={"text": "Hello there"}).text)
    assert state["text"] == "Hello there"
    assert state["problem"] is None
    assert (state["layers"], state["heads"]) == (2, 3)
    long = "word " * 20  # 40 pieces + 2 specials: past the limit of 12 tokens
    state = initial(fake_client.get("/models/fake-encoder", params={"text": long}).text)
    assert state["text"] == "I love LLMs"
    assert "text:" in state["problem"]
    assert "limit of 12" in state["problem"]


@pytest.mark.parametrize(
    ("text", "words"),
    [("", "empty"), ("word " * 20, "limit of 12"), ("x" * 2001, "limit of 2,000")],
)
def test_bad_text_is_422_naming_text(fake_client: TestClient, text: str, words: str) -> None:
    r = fake_client.get("/models/fake-encoder/heads.json", params={"text": text})
    assert r.status_code == 422
    detail = r.json()["detail"][0]
    assert detail["field"] == "text"
    assert words in detail["msg"]


def test_a_text_the_model_cannot_read_is_422_naming_text(fake_client: TestClient) -> None:
    r = fake_client.get("/models/fake-decoder/heads.json", params={"text": "ab1"})
    assert r.status_code == 422
    assert r.json()["detail"][0] == {**r.json()["detail"][0], "field": "text",
                                     "msg": "the fake decoder reads no digits"}  # fmt: skip


@pytest.mark.parametrize(
    ("query", "field"), [("theme=blue", "theme"), ("hide_special=yes", "hide_special")]
)
def test_bad_options_are_422_naming_them(fake_client: TestClient, query: str, field: str) -> None:
    r = fake_client.get(f"/models/fake-encoder/heads.json?text=hi&{query}")
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == field


def test_heads_json_has_every_head_with_its_summary_and_link(fake_client: TestClient) -> None:
    r = fake_client.get("/models/fake-encoder/heads.json", params={"text": "I love LLMs"})
    data = strict_json(r.text)
    assert data["tokens"] == ["[CLS]", "i", "lov", "##e", "llm", "##s", "[SEP]"]
    assert data["special"] == [True, False, False, False, False, False, True]
    minis = data["minis"]
    assert minis["shape"] == [7, 7]
    assert len(minis["codes"]) == 2
    assert all(len(row) == 3 and all(len(c) == 49 for c in row) for row in minis["codes"])
    assert minis["domains"][1][2] == [0.0, 1.0]
    trace = install_model().trace("I love LLMs")
    assert (data["selected"]["layer"], data["selected"]["head"]) == (0, 0)
    assert np.allclose(data["selected"]["grid"]["values"], trace.attentions[0, 0], atol=1e-6)
    picked = fake_client.get(
        "/models/fake-encoder/heads.json", params={"text": "I love LLMs", "layer": 1, "head": 2}
    ).json()["selected"]
    one = fake_client.get(
        "/models/fake-encoder/head.json", params={"text": "I love LLMs", "layer": 1, "head": 2}
    ).json()
    assert one == picked
    grid = one["grid"]
    assert grid["grid"] == "weights-l2h3"
    assert np.allclose(grid["values"], trace.attentions[1, 2], atol=1e-6)
    assert grid["text"][2][3] == fmt.weight(float(grid["values"][2][3]))
    # the small map's colours are the full grid's, one character per cell
    codes = [ord(c) - CODE_BASE for c in minis["codes"][1][2]]
    assert codes == [k for row in grid["color"] for k in row]
    assert grid["domain"] == [0.0, 1.0]
    assert grid["masked"] is None
    s = data["summaries"][1][2]
    assert s["label"] == "L2 H3"
    assert s["spoken"].startswith("Layer 2, head 3: ")
    assert s["spoken"].endswith(
        f"entropy {s['entropy_text']} nats, {s['sink_text']} of its weight on the first token"
    )
    assert s["sink"] == pytest.approx(trace.attentions[1, 2][:, 0].mean(), abs=1e-6)
    assert (s["kv_head"], s["group"]) == (None, None)  # one key/value head per query head
    assert s["open"] == "model=fake-encoder&text=I+love+LLMs&layer=2&head=3"


@pytest.mark.parametrize("route", ["heads.json", "head.json"])
@pytest.mark.parametrize(
    ("layer", "head", "field"), [(2, 0, "layer"), (0, 3, "head"), (-1, 0, "layer")]
)
def test_head_out_of_range_is_422_naming_it(
    fake_client: TestClient, route: str, layer: int, head: int, field: str
) -> None:
    r = fake_client.get(
        f"/models/fake-encoder/{route}", params={"text": "hi", "layer": layer, "head": head}
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == field


def test_head_json_of_missing_model_is_404(fake_client: TestClient) -> None:
    assert fake_client.get("/models/nope/head.json", params={"text": "hi"}).status_code == 404


def install_model() -> Any:
    from model_fake import MODELS

    return MODELS[ENCODER.id]


def test_hiding_special_tokens_greys_them_and_keeps_the_numbers(fake_client: TestClient) -> None:
    url = "/models/fake-encoder/heads.json"
    shown = fake_client.get(url, params={"text": "I love LLMs"}).json()
    hidden = fake_client.get(url, params={"text": "I love LLMs", "hide_special": "1"}).json()
    assert hidden["hide_special"] is True
    a, b = shown["selected"]["grid"], hidden["selected"]["grid"]
    assert a["values"] == b["values"]  # never renormalised
    grey = len(b["palette"]) - 1
    assert all(b["color"][0][j] == grey for j in range(7))  # [CLS]'s row
    assert all(b["color"][i][6] == grey for i in range(7))  # [SEP]'s column
    inner = np.array(a["values"])[1:6, 1:6]
    assert b["domain"][1] >= inner.max()
    assert b["domain"][1] <= 1.0
    assert hidden["minis"]["domains"][0][0] == b["domain"]
    assert hidden["minis"]["codes"][0][0][:7] == chr(CODE_BASE + grey) * 7


def test_decoder_heads_are_masked(fake_client: TestClient) -> None:
    data = fake_client.get(
        "/models/fake-decoder/heads.json", params={"text": "abcab", "head": 1}
    ).json()
    grid = data["selected"]["grid"]
    assert data["minis"]["masked"] == grid["masked"]
    assert data["minis"]["codes"][0][1][4] == chr(CODE_BASE - 1)
    assert data["causal"] is True
    assert grid["masked"] == np.triu(np.ones((5, 5), bool), 1).tolist()
    assert grid["color"][0][4] == -1
    assert grid["values"][0][4] == 0


def test_model_link_opens_the_head_and_figure_6_is_its_attention(fake_client: TestClient) -> None:
    query = {"model": "fake-encoder", "text": "I love LLMs", "layer": "2", "head": "3"}
    page = fake_client.get("/", params=query).text
    state = initial(page)
    assert state["error"] is None
    assert state["model_link"]["query"] == "model=fake-encoder&text=I+love+LLMs&layer=2&head=3"
    assert "biases are\n        folded in as a column of ones on X" in page
    assert 'href="/models/fake-encoder?text=I+love+LLMs"' in page
    body = state["body"]
    assert len(body["x"][0]) == ENCODER.d_model + 1
    assert len(body["w_q"]) == ENCODER.d_model + 1
    answer = fake_client.post("/api/v1/figures?draw=grids", json={**body, "view": {"figures": [6]}})
    weights = answer.json()["grids"]["weights"]
    expected = install_model().trace("I love LLMs").attentions[1, 2]
    assert np.allclose(weights["values"], expected, rtol=1e-5, atol=1e-6)


def test_decoder_link_carries_the_causal_mask(fake_client: TestClient) -> None:
    query = {"model": "fake-decoder", "text": "abcab", "layer": "1", "head": "2"}
    state = initial(fake_client.get("/", params=query).text)
    assert state["body"]["mask"] == "causal"
    assert state["model_link"]["causal"] is True


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ({"model": "nope", "text": "hi", "layer": "1", "head": "1"}, "model"),
        ({"model": "fake-missing", "text": "hi", "layer": "1", "head": "1"}, "model"),
        ({"model": "fake-encoder", "text": "hi", "layer": "3", "head": "1"}, "layer"),
        ({"model": "fake-encoder", "text": "hi", "layer": "1", "head": "0"}, "head"),
        ({"model": "fake-encoder", "text": "hi", "layer": "1"}, "head"),
        ({"model": "fake-encoder", "text": "", "layer": "1", "head": "1"}, "text"),
        ({"model": "fake-encoder", "text": "hi", "layer": "1", "head": "1", "focus": "x"}, "focus"),
    ],
)
def test_bad_model_links_open_the_running_example_naming_the_parameter(
    fake_client: TestClient, query: dict[str, str], param: str
) -> None:
    r = fake_client.get("/", params=query)
    assert r.status_code == 200
    state = initial(r.text)
    assert state["model_link"] is None
    assert state["preset_id"] == "i-love-llms"
    assert f"({param}: " in state["error"]


@pytest.mark.parametrize(
    ("error", "param"),
    [(ModelInputError("layer", "out of range"), "layer"), (ModelError("weights differ"), "model")],
)
def test_a_model_refusing_the_head_names_the_parameter(
    fake_client: TestClient, monkeypatch: pytest.MonkeyPatch, error: Exception, param: str
) -> None:
    def refuse(*_: Any) -> Any:
        raise error

    monkeypatch.setattr(model_views, "head_body", refuse)
    query = {"model": "fake-encoder", "text": "hi", "layer": "1", "head": "1"}
    state = initial(fake_client.get("/", params=query).text)
    assert f"({param}: " in state["error"]
