"""Lesson steps on a real model's head through HTTP (the tiny decoder, always installed):
POST /api/v1/lessons/answers computes a question from the head's own weights, a bad link
is a 422 naming the step's query and the parameter (a model not installed too), the
lesson page hands the player that head's state with its own link to reopen it, and the
offline file draws it; forty model steps at the longest text are answered, over the budget
refused before any model runs, and thirty clients on eight heads each get their own."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx2 as httpx
import numpy as np
import pytest
from api_helpers import assert_error, strict_json
from fastapi.testclient import TestClient

from app.lessons.format import parse_lesson
from app.lessons.link import encode_lesson
from app.models import registry

ANSWERS = "/api/v1/lessons/answers"
TEXT = "kqzfmbwd kqzfmbwd"
LINK = {"model": "tiny-decoder", "text": TEXT, "layer": "2", "head": "2"}


def on_head(**changes: str) -> dict[str, Any]:
    return {"version": 1, "title": "A real head", "steps": [{
        "title": "Layer 2, head 2", "text": "",
        "state": {"page": "main", "query": urlencode(LINK | changes), "figures": [6]},
        "question": {"kind": "attends_most", "prompt": "Which key does m weigh most?",
                     "row": 14}}]}  # fmt: skip


def test_the_answer_is_computed_from_the_heads_weights(client: TestClient) -> None:
    r = client.post(ANSWERS, json=on_head())
    assert r.status_code == 200, r.text
    [answer] = strict_json(r.text)["steps"]
    w = np.asarray(registry.trace("tiny-decoder", TEXT).attentions[1][1])
    assert answer["accept"] == {"choice": f"k{int(np.argmax(w[13])) + 1}"} == {"choice": "k7"}


@pytest.mark.parametrize(
    ("changes", "words"),
    [({"model": "nope"}, "model: there is no model"), ({"layer": "9"}, "layer:"),
     ({"head": "-1"}, "head:"), ({"text": "1"}, "text:"), ({"s": "abc"}, "s:")],
)  # fmt: skip
def test_a_bad_link_is_a_422_naming_it(
    client: TestClient, changes: dict[str, str], words: str
) -> None:
    detail = assert_error(client.post(ANSWERS, json=on_head(**changes)), "steps[0].state.query")
    assert words in detail[0]["msg"]


def test_a_model_not_installed_is_named(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.lessons.model_state.registry.installed", lambda _: False)
    asked = on_head(text="abab")  # not an answer the cache holds
    detail = assert_error(client.post(ANSWERS, json=asked), "steps[0].state.query")
    assert "is not installed here; install it with" in detail[0]["msg"]


def player_state(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="lesson-state">(.*?)</script>', html,
                      re.S)  # fmt: skip
    assert found is not None
    state: dict[str, Any] = json.loads(found.group(1))
    return state


def test_the_lesson_page_hands_over_the_head_and_its_link(client: TestClient) -> None:
    link = encode_lesson(parse_lesson(on_head(focus="13")))
    r = client.get(f"/lessons/play?l={link}")
    assert r.status_code == 200, r.text[:300]
    [step] = player_state(r.text)["steps"]
    assert step["open"] == "/?" + urlencode(LINK) + "&focus=13"
    assert step["body"]["tokens"] == list(registry.trace("tiny-decoder", TEXT).tokens)
    assert step["view"]["focus"] == 13  # the asked row, from 0


def test_the_offline_file_draws_the_head(client: TestClient) -> None:
    r = client.post("/api/v1/lessons/export", json=on_head())
    assert r.status_code == 200, r.text[:300]
    assert '"accept":{"choice":"k7"}' in r.text
    assert "[BOS]" in r.text  # the head's tokens, in its inlined figures


def forty_heads() -> dict[str, Any]:
    """Forty decoder steps at its longest text (40 letters), each another head or length."""
    letters = ("kqzfmbwd" * 5)[:40]
    steps = []
    for i in range(40):
        link = {"model": "tiny-decoder", "text": letters[: 40 - i % 5], "layer": str(1 + i % 2),
                "head": str(1 + i % 4)}  # fmt: skip
        steps.append({"title": f"Step {i + 1}", "state": {"page": "main", "query": urlencode(link),
                      "figures": [6]}, "question": {"kind": "attends_most", "prompt": "?",
                      "row": 30}})  # fmt: skip
    return {"version": 1, "title": "Forty heads", "steps": steps}


def test_forty_model_steps_at_the_longest_text_are_answered(client: TestClient) -> None:
    r = client.post(ANSWERS, json=forty_heads())
    assert r.status_code == 200, r.text[:300]
    got = strict_json(r.text)["steps"]
    for step, answer in zip(forty_heads()["steps"], got, strict=True):
        link = dict(x.split("=") for x in step["state"]["query"].split("&"))
        w = registry.trace("tiny-decoder", link["text"]).attentions
        row = np.asarray(w[int(link["layer"]) - 1][int(link["head"]) - 1])[29]
        assert answer["accept"] == {"choice": f"k{int(np.argmax(row)) + 1}"}


def test_model_steps_over_the_budget_are_refused_before_any_runs(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[Any] = []
    monkeypatch.setattr("app.lessons.model_state.head_state.head_body",
                        lambda *a: ran.append(a) or {})  # fmt: skip
    with make_client(max_cells=100_000) as small:
        detail = assert_error(small.post(ANSWERS, json=forty_heads()), "steps")
    assert "reduce the model steps or their texts" in detail[0]["msg"]
    assert ran == []


@pytest.mark.slow
def test_thirty_clients_on_eight_heads_each_get_their_heads_answer(
    make_client: Callable[..., TestClient], run_async: Callable[..., Any]
) -> None:
    app = make_client().app
    heads = [(layer, head) for layer in ("1", "2") for head in ("1", "2", "3", "4")]

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            bodies = [on_head(layer=heads[n % 8][0], head=heads[n % 8][1]) for n in range(30)]
            return list(await asyncio.gather(*(c.post(ANSWERS, json=b) for b in bodies)))

    answers = run_async(run)
    assert [a.status_code for a in answers] == [200] * 30
    trace = registry.trace("tiny-decoder", TEXT).attentions
    for n, answer in enumerate(answers):
        layer, head = (int(x) - 1 for x in heads[n % 8])
        best = int(np.argmax(np.asarray(trace[layer][head])[13]))
        assert answer.json()["steps"][0]["accept"] == {"choice": f"k{best + 1}"}


def on_head_direction(change: str) -> dict[str, Any]:
    lesson = on_head()
    lesson["steps"][0]["question"] = {
        "kind": "direction", "prompt": "Which way?", "quantity": "entropy", "row": 14,
        "change": change,
    }  # fmt: skip
    return lesson


def entropy_bits(weights: Any) -> float:
    p = np.asarray(weights, dtype=float)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


@pytest.mark.parametrize(
    ("switch", "body"),
    [({"scale": "0"}, {"scale": False}), ({"mask": "none"}, {"mask": "none"})],
)  # fmt: skip
def test_a_direction_question_switches_the_heads_scaling_or_mask_in_its_link(
    client: TestClient, switch: dict[str, str], body: dict[str, Any]
) -> None:
    """The changed state is the head's own link with the switch (a few bytes): as s= the
    decoder's head is 111 kB, over the lesson's 64 KiB. The answer runs both states."""
    change = urlencode(LINK | switch)
    r = client.post(ANSWERS, json=on_head_direction(change))
    assert r.status_code == 200, r.text
    [answer] = strict_json(r.text)["steps"]
    head = client.post("/api/v1/models/tiny-decoder/head",
                       json={"text": TEXT, "layer": 1, "head": 1}).json()["body"]  # fmt: skip
    before = client.post("/api/v1/attention", json=head).json()["weights"][13]
    after = client.post("/api/v1/attention", json=head | body).json()["weights"][13]
    was, now = entropy_bits(before), entropy_bits(after)
    assert abs(was - now) > 0.05  # a direction, not a tie
    assert answer["accept"] == {"choice": "up" if now > was else "down"}
    link = encode_lesson(parse_lesson(on_head_direction(change)))
    page = client.get(f"/lessons/play?l={link}")
    assert page.status_code == 200, page.text[:300]
    [step] = player_state(page.text)["steps"]
    assert {k: step["after"]["body"][k] for k in body} == body  # the reveal draws it
    assert step["after"]["body"]["x"] == step["body"]["x"]


@pytest.mark.parametrize(
    ("change", "words"),
    [(urlencode(LINK | {"scale": "off"}), "scale: must be 1 or 0, not 'off'"),
     (urlencode(LINK | {"mask": "alibi"}), "mask: must be none or causal"),
     ("preset=causal&scale=0", "scale: switches a real model's head, with model")],
)  # fmt: skip
def test_a_bad_switch_is_a_422_naming_it(client: TestClient, change: str, words: str) -> None:
    detail = assert_error(client.post(ANSWERS, json=on_head_direction(change)),
                          "steps[0].question.change")  # fmt: skip
    assert words in detail[0]["msg"]


def test_a_steps_own_state_takes_no_switch(client: TestClient) -> None:
    lesson = on_head(scale="0")
    detail = assert_error(client.post(ANSWERS, json=lesson), "steps[0].state.query")
    assert "unknown parameter 'scale'" in detail[0]["msg"]
