"""Lesson steps on a real model's head through HTTP (the tiny decoder, always installed):
POST /api/v1/lessons/answers computes a question from the head's own weights, a bad link
is a 422 naming the step's query and the parameter (a model not installed too), the
lesson page hands the player that head's state with its own link to reopen it, and the
offline file draws it."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

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
