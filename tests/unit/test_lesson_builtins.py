"""The built-in lessons: each loads, validates against the parser and the published
schema, plans every state (main pages and lab sections) and computes every answer; each
keeps the shape the issue asks for; the schema and the validator agree on a corpus."""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import parse_qsl

import jsonschema_rs
import numpy as np
import pytest
from lesson_helpers import asking, lesson, step

from app.http.lesson_labs import lab_figure
from app.inputs.resolve import resolve_plan
from app.lessons.answers import answer_lesson
from app.lessons.builtin import ORDER, builtin_json, get_builtin, summaries
from app.lessons.format import LabState, LessonError, lesson_json, parse_lesson
from app.lessons.schema import lesson_schema
from app.lessons.section import asking_sections
from app.lessons.states import KEY_ROW_STAGES, plan_lesson
from app.models import registry
from app.settings import get_settings
from app.web.lesson_player import player_steps

# jsonschema_rs: the validator schemathesis itself uses (ECMA-style patterns).
VALIDATOR = jsonschema_rs.Draft202012Validator(lesson_schema())
# Builds a lab section, so a section's own question is answered by its lab.
BUILD = lab_figure(get_settings())


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    assert jsonschema_rs.meta.is_valid(lesson_schema())


@pytest.mark.parametrize("lesson_id", ORDER)
def test_a_builtin_validates_and_every_answer_is_computed(lesson_id: str) -> None:
    raw = builtin_json(lesson_id)
    assert raw is not None
    VALIDATOR.validate(raw)
    parsed = get_builtin(lesson_id)
    assert parsed == parse_lesson(raw)
    assert lesson_json(parsed) == raw  # the files are written in the canonical form
    answers = answer_lesson(parsed, lab_figure=BUILD)
    for s, a in zip(parsed.steps, answers, strict=True):
        assert (a is None) == (s.question is None)
        if a is not None:
            assert a["kind"] == s.question.kind  # type: ignore[union-attr]
            assert a["why"].endswith(".")
            assert "misconception" not in a or a["misconception"]["answer"] != a["answer"]


def kinds(lesson_id: str) -> list[str]:
    parsed = get_builtin(lesson_id)
    assert parsed is not None
    return [s.question.kind for s in parsed.steps if s.question is not None]


def test_the_builtins_have_the_shape_the_issue_asks_for() -> None:
    by_hand = get_builtin("attention-by-hand")
    assert by_hand is not None
    assert len(by_hand.steps) >= 8
    assert len(kinds("attention-by-hand")) >= 4
    assert len(set(kinds("attention-by-hand"))) >= 3
    shown = {n for s in by_hand.steps if not isinstance(s.state, LabState) for n in s.state.figures}
    assert shown == set(range(1, 14))  # a path through Figures 1–13
    assert len(kinds("why-scale")) >= 3
    assert "direction" in kinds("why-scale")
    assert len(kinds("masks-and-order")) >= 3
    for lesson_id in ORDER:
        parsed = get_builtin(lesson_id)
        assert parsed is not None
        assert any(isinstance(s.state, LabState) for s in parsed.steps)
    why = get_builtin("why-scale")
    assert why is not None
    labs = {(s.state.lab, s.state.section) for s in why.steps if isinstance(s.state, LabState)}
    assert {lab for lab, _ in labs} == {"why-scale"}
    masks = get_builtin("masks-and-order")
    assert masks is not None
    assert {s.state.lab for s in masks.steps if isinstance(s.state, LabState)} == {"masks", "order"}


def test_attention_today_asks_first_in_every_section_of_the_three_labs() -> None:
    today = get_builtin("attention-today")
    assert today is not None
    walked = []
    for s in today.steps:
        assert isinstance(s.state, LabState), s.title
        assert s.question is not None, s.title
        assert s.question.kind == "section_question", s.title
        walked.append(f"{s.state.lab}/{s.state.section}")
    new = [p for p in asking_sections() if p.split("/")[0] in {"flash", "generation", "rotary"}]
    assert len(new) == 10
    assert sorted(walked) == sorted(new)  # each section once, none of the others
    assert walked[0] == "generation/decode"  # decoding first: the cache is what the rest saves


def test_attention_today_asks_with_its_own_controls() -> None:
    # The cache step asks about Llama-2-70B, the sharing step about 8 heads sharing 2, and
    # the states are small enough to fit a 375 px step (the lab defaults' grids did not).
    today = get_builtin("attention-today")
    assert today is not None
    answers = answer_lesson(today, lab_figure=BUILD)
    by = {f"{s.state.lab}/{s.state.section}": a for s, a in zip(today.steps, answers, strict=True)
          if isinstance(s.state, LabState) and a is not None}  # fmt: skip
    per = 2 * 80 * 8 * 128 * 2  # 2 (K and V) x layers x kv_heads x d_head x bytes
    assert by["generation/cache"]["asks"].startswith("Llama-2-70B: 80 layers, 8 key/value")
    assert f"({per:,} bytes)" in by["generation/cache"]["answer"]
    assert by["generation/shared"]["accept"] == {"choice": str(8 // 2)}
    assert by["rotary/rotation"]["accept"] == {"choice": "same"}
    # N = 6, d = 4, M = 32: blocks of ceil(32 / 16) = 2, so 3 row tiles times 3 column tiles
    assert by["flash/tiles"]["accept"] == {"choice": str(3 * 3)}


def test_the_scaling_direction_question_is_answered_up() -> None:
    why = get_builtin("why-scale")
    assert why is not None
    answers = answer_lesson(why)
    entropy = next(a for a in answers if a is not None and a["kind"] == "direction")
    assert entropy["accept"] == {"choice": "up"}  # scaling on flattens love's weights


def test_the_summaries_count_steps_and_questions() -> None:
    listed = summaries()
    assert [s["id"] for s in listed] == list(ORDER)
    for s in listed:
        parsed = get_builtin(s["id"])
        assert parsed is not None
        assert (s["steps"], s["questions"]) == (len(parsed.steps), parsed.questions)
    assert get_builtin("nope") is None
    assert builtin_json("nope") is None


def _mutations() -> list[tuple[str, Any]]:
    """(name, lesson JSON) pairs, valid and invalid, on which schema and parser must agree."""
    base = asking({"kind": "direction", "quantity": "weight", "row": 1, "col": 1,
                   "change": "preset=causal"})  # fmt: skip
    cases: list[tuple[str, Any]] = [("base", base)]

    def mutate(name: str, fn: Any) -> None:
        raw = copy.deepcopy(base)
        fn(raw)
        cases.append((name, raw))

    mutate("no col", lambda r: r["steps"][0]["question"].pop("col"))
    mutate("entropy with col", lambda r: r["steps"][0]["question"].update(quantity="entropy"))
    mutate("version 2", lambda r: r.update(version=2))
    mutate("version true", lambda r: r.update(version=True))
    mutate("extra key", lambda r: r.update(author="me"))
    mutate("bad id", lambda r: r.update(id="UPPER"))
    mutate("good id", lambda r: r.update(id="my-lesson-1"))
    mutate("title newline", lambda r: r.update(title="a\nb"))
    mutate("text newline", lambda r: r["steps"][0].update(text="a\nb"))
    mutate("text bidi", lambda r: r["steps"][0].update(text="a\u202eb"))
    mutate("no steps", lambda r: r.update(steps=[]))
    mutate("41 steps", lambda r: r.update(steps=[step()] * 41))
    mutate("row 0", lambda r: r["steps"][0]["question"].update(row=0))
    mutate("row 2.0", lambda r: r["steps"][0]["question"].update(row=2.0))
    mutate("row string", lambda r: r["steps"][0]["question"].update(row="2"))
    mutate("head 0", lambda r: r["steps"][0]["question"].update(head=0))
    mutate("figure 0", lambda r: r["steps"][0]["state"].update(figures=[0]))
    mutate("figures twice", lambda r: r["steps"][0]["state"].update(figures=[3, 3]))
    mutate("no figures", lambda r: r["steps"][0]["state"].pop("figures"))
    mutate(
        "lab state",
        lambda r: r["steps"].append(
            {"title": "Lab", "state": {"page": "lab", "lab": "masks", "section": "empty-row"}}
        ),
    )
    mutate(
        "lab with question",
        lambda r: r["steps"][0].update(
            state={"page": "lab", "lab": "masks", "section": "empty-row"}
        ),
    )
    mutate(
        "lab unknown key",
        lambda r: r["steps"][0].update(
            state={"page": "lab", "lab": "masks", "section": "empty-row", "figures": [1]}
        ),
    )
    mutate("null question", lambda r: r["steps"][0].update(question=None))
    mutate("kind unknown", lambda r: r["steps"][0]["question"].update(kind="essay"))
    mutate("kind key of another", lambda r: r["steps"][0]["question"].update(stage="Q"))
    mutate(
        "tolerance on cell",
        lambda r: r["steps"][0].update(
            question={
                "kind": "cell_value",
                "prompt": "?",
                "stage": "Z",
                "row": 1,
                "col": 1,
                "tolerance": 1,
            }
        ),
    )
    mutate(
        "tolerance 0",
        lambda r: r["steps"][0].update(
            question={
                "kind": "cell_value",
                "prompt": "?",
                "stage": "Z",
                "row": 1,
                "col": 1,
                "tolerance": 0,
            }
        ),
    )
    mutate(
        "click without row",
        lambda r: r["steps"][0].update(
            question={"kind": "click_cell", "prompt": "?", "stage": "weights", "which": "max"}
        ),
    )
    mutate(
        "click bad which",
        lambda r: r["steps"][0].update(
            question={"kind": "click_cell", "prompt": "?", "stage": "weights", "which": "most"}
        ),
    )
    mutate("prompt long", lambda r: r["steps"][0]["question"].update(prompt="x" * 301))
    mutate("summary", lambda r: r.update(summary="<b>plain</b>"))
    mutate("summary null", lambda r: r.update(summary=None))
    mutate("id null", lambda r: r.update(id=None))
    mutate("text null", lambda r: r["steps"][0].update(text=None))
    return cases  # fmt: skip


@pytest.mark.parametrize(("name", "raw"), _mutations(), ids=[n for n, _ in _mutations()])
def test_the_schema_and_the_parser_agree(name: str, raw: Any) -> None:
    by_schema = VALIDATOR.is_valid(raw)
    try:
        parse_lesson(json.loads(json.dumps(raw)))
        by_parser = True
    except LessonError:
        by_parser = False
    assert by_schema == by_parser, name


def test_a_lesson_of_every_kind_is_schema_valid() -> None:
    raw = lesson(
        step({"kind": "attends_most", "row": 2}),
        step({"kind": "order", "row": 2, "head": 1}),
        step({"kind": "cell_value", "stage": "weights", "row": 2, "col": 2, "tolerance": 0.01}),
        step({"kind": "click_cell", "stage": "Q", "which": "min", "row": 1}),
        step({"kind": "direction", "quantity": "max_weight", "row": 2, "change": ""}),
    )
    VALIDATOR.validate(raw)
    assert len([a for a in answer_lesson(raw) if a is not None]) == 5


@pytest.mark.parametrize("lesson_id", ORDER)
def test_the_figures_outline_the_row_each_question_asks_about(lesson_id: str) -> None:
    # "Attention by hand" step 2 asked for q_1 while Figure 4 outlined row 2 (love).
    parsed = get_builtin(lesson_id)
    assert parsed is not None
    steps = player_steps(plan_lesson(parsed, get_settings()))
    asked = 0
    for s, shown in zip(parsed.steps, steps, strict=True):
        q = s.question
        if q is None or q.row is None or q.stage in KEY_ROW_STAGES or shown["kind"] != "main":
            continue
        asked += 1
        assert shown["view"]["focus"] == q.row - 1, s.title
        assert f"focus={q.row - 1}" in shown["open"] or q.row - 1 == 1  # 1: the default
    assert lesson_id != "attention-by-hand" or asked >= 3


def test_a_question_on_row_1_outlines_row_1_whatever_the_state_says() -> None:
    raw = asking({"kind": "cell_value", "stage": "Q", "row": 1, "col": 1},
                 q="preset=i-love-llms&focus=2")  # fmt: skip
    steps = player_steps(plan_lesson(parse_lesson(raw), get_settings()))
    assert steps[0]["view"]["focus"] == 0
    keys = asking({"kind": "cell_value", "stage": "K", "row": 3, "col": 1})
    steps = player_steps(plan_lesson(parse_lesson(keys), get_settings()))
    assert steps[0]["view"]["focus"] == 1  # a key row is not a query row: the default stays


@pytest.mark.parametrize("lesson_id", ORDER)
def test_no_step_gives_its_answer_away(lesson_id: str) -> None:
    # "Masks and order" step 1 asked which key the first token weighs most, under a causal
    # mask that leaves it one key: the text's hint ("it can see only one key") was the answer.
    parsed = get_builtin(lesson_id)
    assert parsed is not None
    plan = plan_lesson(parsed, get_settings())
    answers = answer_lesson(parsed, lab_figure=BUILD)
    for s, step_plan, a in zip(parsed.steps, plan.steps, answers, strict=True):
        if a is None:
            continue
        printed = a["answer"].split(":")[0]  # "up: 0.76 bits → 1.31 bits" says "up"
        # (a whole number such as 3 is a figure's number or an index as often as an answer)
        alone = rf"(?<![\w.]){re.escape(printed)}(?![\w.])"
        said = None if printed.isdigit() else re.search(alone, s.text)
        assert said is None, f"{s.title}: the text says {printed!r}"
        q = s.question
        assert q is not None
        if q.kind in ("attends_most", "order") and step_plan.plan is not None:
            allowed = resolve_plan(step_plan.plan).stages.allowed[q.row - 1]  # type: ignore[operator]
            assert allowed.sum() > 1, f"{s.title}: the mask leaves one key to choose"


def test_a_direction_step_carries_its_changed_state_for_the_reveal() -> None:
    parsed = get_builtin("why-scale")
    assert parsed is not None
    steps = player_steps(plan_lesson(parsed, get_settings()))
    for s, shown in zip(parsed.steps, steps, strict=True):
        q = s.question
        if q is None or q.kind != "direction":
            assert "after" not in shown, s.title
            continue
        after = shown["after"]
        assert after["body"] != shown["body"], s.title  # the change, drawn from the server
        assert after["figures"] == shown["figures"]
        assert q.row is not None
        assert after["view"]["focus"] == shown["view"]["focus"] == q.row - 1


def test_the_builtins_ask_a_teachers_own_question_and_one_on_a_real_head() -> None:
    """Issue 28 item 4 in the built-ins: a multiple-choice question as a teacher writes it,
    and a step on a real model's head, opening only a model shipped with the app (the tiny
    decoder's files are in app/models/data), so every built-in works with none installed."""
    masks = get_builtin("masks-and-order")
    assert masks is not None
    assert "multiple_choice" in kinds("masks-and-order")
    opened = []
    for lesson_id in ORDER:
        parsed = get_builtin(lesson_id)
        assert parsed is not None
        # Only a main-page state opens a model (a lab's query may have a control named
        # model, as the generation lab's cache section does: model=Llama-2-70B).
        for s in (s for s in parsed.steps if s.state.page == "main"):
            for query in (s.state.query, s.question and s.question.change):
                model = dict(parse_qsl(query or "")).get("model")
                if model is not None:
                    opened.append((lesson_id, model))
                    assert registry.MODELS[model].folder_in_repo is not None, (lesson_id, model)
    assert ("masks-and-order", "tiny-decoder") in opened
    # The head's question is the model's: the second m weighs b, after the first m, most.
    step = next(s for s in masks.steps if "model=" in getattr(s.state, "query", ""))
    [answer] = [a for s, a in zip(masks.steps, answer_lesson(masks), strict=True) if s is step]
    assert answer is not None
    w = registry.trace("tiny-decoder", "kqzfmbwd kqzfmbwd").attentions[1][1]
    assert answer["accept"] == {"choice": f"k{int(np.argmax(np.asarray(w)[13])) + 1}"}
