"""A lesson step on a real model's head (app.lessons.model_state): the main page's model
link kept as the step's query, planned by running the model when the lesson is planned,
so the figures' state is that head's own (the body ``head_body`` makes) and a computed
question's answer is the model's: which key the tiny decoder's induction head weighs
most from the second "m" of a repeated run is the key after the first "m", as its own
attention says. MiniLM's too, when it is installed. Every refusal names the step's path
and the parameter; the forward passes are priced before any runs."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from lesson_helpers import lesson

from app.inputs.limits import CostError
from app.inputs.resolve import resolve_plan
from app.lessons.answers import answer_lesson
from app.lessons.format import LessonError, lesson_json, parse_lesson
from app.lessons.model_state import ModelPlan, page_query
from app.lessons.states import plan_lesson
from app.models import registry
from app.models.head_state import head_body
from app.settings import Settings
from app.web.lesson_player import player_steps

TEXT = "kqzfmbwd kqzfmbwd"  # the decoder's repeated run: [BOS] + 8 letters, twice
LINK = {"model": "tiny-decoder", "text": TEXT, "layer": "2", "head": "2"}


def on_head(question: dict[str, Any] | None = None, **changes: str) -> dict[str, Any]:
    step: dict[str, Any] = {"title": "A real head", "text": "",
                            "state": {"page": "main", "query": urlencode(LINK | changes),
                                      "figures": [6]}}  # fmt: skip
    if question is not None:
        step["question"] = {"prompt": "Which key?", **question}
    return lesson(step)


def weights(model: str, text: str, layer: int, head: int) -> np.ndarray:
    """The model's own attention weights of one head (0-based), from its forward pass."""
    return np.asarray(registry.trace(model, text).attentions[layer][head])


def test_the_step_is_the_heads_own_state_and_reopens_it() -> None:
    raw = on_head()
    parsed = parse_lesson(raw)
    assert lesson_json(parsed) == raw  # the link is kept as written, not its numbers
    plan = plan_lesson(parsed, Settings())
    step = plan.steps[0].plan
    assert isinstance(step, ModelPlan)
    assert step.link.body == head_body("tiny-decoder", TEXT, 1, 1)
    stages = resolve_plan(step).stages
    np.testing.assert_allclose(stages.heads[0].weights, weights("tiny-decoder", TEXT, 1, 1),
                               atol=1e-5)  # fmt: skip
    [shown] = player_steps(plan)
    assert shown["open"] == "/?" + urlencode(LINK)  # "Open in Attention Lab": that head
    assert shown["body"]["tokens"][:3] == ["[BOS]", "k", "q"]
    with_view = plan_lesson(parse_lesson(on_head(focus="14")), Settings()).steps[0].plan
    assert with_view is not None
    assert page_query(with_view) == urlencode(LINK) + "&focus=14"


def test_which_key_the_induction_head_weighs_most_is_the_models_answer() -> None:
    [answer] = answer_lesson(on_head({"kind": "attends_most", "row": 14}))  # the second m
    assert answer is not None
    w = weights("tiny-decoder", TEXT, 1, 1)
    best = int(np.argmax(w[13]))
    assert best == 6  # b, the token after the first m: what an induction head does
    assert answer["accept"] == {"choice": "k7"}
    assert answer["answer"] == "b (row 7)"
    assert answer["why"].endswith(f"{w[13, best]:.2f}.")
    # Another head of the same link: another answer, from that head's weights.
    [other] = answer_lesson(on_head({"kind": "attends_most", "row": 14}, layer="1", head="1"))
    assert other is not None
    assert other["accept"] == {
        "choice": f"k{int(np.argmax(weights('tiny-decoder', TEXT, 0, 0)[13])) + 1}"
    }


def test_order_and_click_cell_read_the_heads_weights() -> None:
    w = weights("tiny-decoder", TEXT, 1, 1)
    [order] = answer_lesson(on_head({"kind": "order", "row": 4}))
    assert order is not None
    assert order["accept"]["sequence"] == [f"k{j + 1}" for j in np.argsort(-w[3][:4])]
    [click] = answer_lesson(on_head({"kind": "click_cell", "stage": "weights", "which": "max"}))
    assert click is not None
    i, j = np.unravel_index(np.argmax(w), w.shape)
    assert [int(i) + 1, int(j) + 1] in click["accept"]["cells"]


@pytest.mark.skipif(not registry.installed("minilm"), reason="MiniLM is not installed here")
def test_minilm_heads_answer_from_minilm() -> None:
    link = {"model": "minilm", "text": "The cat sat because it was tired", "layer": "3",
            "head": "4"}  # fmt: skip
    raw = lesson({"title": "MiniLM", "state": {"page": "main", "query": urlencode(link),
                  "figures": [6]}, "question": {"kind": "attends_most", "prompt": "?",
                  "row": 6}})  # fmt: skip
    [answer] = answer_lesson(raw)
    assert answer is not None
    w = weights("minilm", link["text"], 2, 3)
    tokens = registry.trace("minilm", link["text"]).tokens
    assert tokens[5] == "it"  # row 6, after [CLS]
    assert answer["accept"] == {"choice": f"k{int(np.argmax(w[5])) + 1}"}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"model": "nope"}, "model: there is no model 'nope'; the models are minilm"),
        ({"layer": "3"}, "layer: must be a whole number from 1 to 2, not '3'"),
        ({"layer": "0"}, "layer: must be a whole number from 1 to 2"),
        ({"head": "5"}, "head: must be a whole number from 1 to 4"),
        ({"head": "1.0"}, "head: must be a whole number"),
        ({"text": ""}, "text: type a sentence"),
        ({"text": "abc123"}, "text: "),  # digits: not in the decoder's alphabet
        ({"text": "a" * 2001}, "text: 2,001 characters"),
        ({"preset": "i-love-llms"}, "preset: a model's head is the state"),
        ({"focus": "99"}, "focus"),
    ],
)
def test_a_bad_model_link_is_named(changes: dict[str, str], words: str) -> None:
    with pytest.raises(LessonError) as caught:
        answer_lesson(on_head({"kind": "attends_most", "row": 2}, **changes))
    assert caught.value.field == "steps[0].state.query"
    assert words in caught.value.message


def test_text_or_layer_without_a_model_is_named() -> None:
    raw = lesson({"title": "?", "state": {"page": "main", "query": "text=abc&layer=1",
                                          "figures": [6]}})  # fmt: skip
    with pytest.raises(LessonError) as caught:
        answer_lesson(raw)
    assert caught.value.message.startswith("text: opens a real model's head, with model")


def test_the_forward_passes_are_priced_before_any_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []
    monkeypatch.setattr("app.lessons.model_state.head_state.head_body",
                        lambda *a: ran.append(a[0]) or {})  # fmt: skip
    raw = on_head()
    raw["steps"] *= 20
    with pytest.raises(CostError) as caught:
        plan_lesson(parse_lesson(raw), Settings(max_cells=200_000))
    assert caught.value.field == "steps"
    assert "the model steps or their texts" in caught.value.message
    assert ran == []  # refused before any model ran
