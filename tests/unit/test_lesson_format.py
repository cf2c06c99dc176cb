"""The lesson format (app.lessons.format, states, link): what is accepted, what is refused
and the field path each refusal names; text stays text."""

from __future__ import annotations

from typing import Any

import pytest
from lesson_helpers import asking, lesson, query, step

from app.figures.labs import get_lab
from app.http.lab_answer import Ask
from app.inputs.limits import CostError
from app.inputs.link import encode_body
from app.lessons.answers import answer_lesson
from app.lessons.format import (
    MAX_LESSON_BYTES,
    MAX_STEPS,
    LabState,
    LessonError,
    MainState,
    lesson_json,
    parse_lesson,
)
from app.lessons.link import MAX_LINK_CHARS, decode_lesson, encode_lesson
from app.lessons.states import plan_lesson
from app.settings import Settings

RAGGED = encode_body({"x": [[1, 2], [3]]})
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & &amp;'


def refused(raw: Any, settings: Settings | None = None) -> LessonError:
    with pytest.raises(LessonError) as caught:
        answer_lesson(raw, settings or Settings())
    return caught.value


def test_a_minimal_lesson_parses_into_its_parts() -> None:
    parsed = parse_lesson(asking({"kind": "attends_most", "row": 2}))
    assert parsed.title == "A lesson"
    assert parsed.questions == 1
    state = parsed.steps[0].state
    assert isinstance(state, MainState)
    assert state.figures == (6,)
    question = parsed.steps[0].question
    assert question is not None
    assert (question.kind, question.row, question.head) == ("attends_most", 2, 1)


def test_hostile_text_is_kept_exactly_as_text() -> None:
    raw = lesson(step({"kind": "attends_most", "row": 2}))
    raw["title"] = raw["summary"] = HOSTILE
    raw["steps"][0]["title"] = raw["steps"][0]["question"]["prompt"] = HOSTILE
    raw["steps"][0]["text"] = f"{HOSTILE}\nW^Q and √d_k stay ASCII notation."
    parsed = parse_lesson(raw)
    assert parsed.title == parsed.summary == parsed.steps[0].title == HOSTILE
    assert parsed.steps[0].text.startswith(HOSTILE + "\n")
    assert lesson_json(parsed) == raw | {"steps": [raw["steps"][0]]}
    assert decode_lesson(encode_lesson(parsed)) == parsed


def test_hostile_token_names_stay_text_in_answers() -> None:
    tokens = ["<b>I</b>", "<script>", "&lt;"]
    answers = answer_lesson(asking({"kind": "attends_most", "row": 2}, query(tokens=tokens)))
    first = answers[0]
    assert first is not None
    assert first["answer"] == "<script> (row 2)"
    assert first["choices"][0] == {"id": "k1", "label": "<b>I</b> (row 1)"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(version=2), "version"),
        (lambda r: r.update(version=True), "version"),
        (lambda r: r.update(id="Not An Id"), "id"),
        (lambda r: r.update(title=""), "title"),
        (lambda r: r.update(title="x" * 121), "title"),
        (lambda r: r.update(title="two\nlines"), "title"),
        (lambda r: r.update(summary="x" * 401), "summary"),
        (lambda r: r.update(steps=[]), "steps"),
        (lambda r: r.update(steps=[step()] * (MAX_STEPS + 1)), "steps"),
        (lambda r: r.update(extra=1), "extra"),
        (lambda r: r.pop("title"), "title"),
        (lambda r: r["steps"][0].update(text="x" * 2001), "steps[0].text"),
        (lambda r: r["steps"][0].update(text="right\u202eleft"), "steps[0].text"),
        (lambda r: r["steps"][0].update(colour="red"), "steps[0].colour"),
        (lambda r: r["steps"][0].update(state=[]), "steps[0].state"),
        (lambda r: r["steps"][0]["state"].update(page="other"), "steps[0].state.page"),
        (lambda r: r["steps"][0]["state"].update(figures=[]), "steps[0].state.figures"),
        (lambda r: r["steps"][0]["state"].update(figures=[1] * 7), "steps[0].state.figures"),
        (lambda r: r["steps"][0]["state"].update(figures=[6, 6]), "steps[0].state.figures"),
        (lambda r: r["steps"][0]["state"].update(figures=[14]), "steps[0].state.figures[0]"),
        (lambda r: r["steps"][0]["state"].update(figures=[True]), "steps[0].state.figures[0]"),
        (lambda r: r["steps"][0]["state"].update(query="scale=0"), "steps[0].state.query"),
        (lambda r: r["steps"][0]["state"].update(query="focus=1&focus=2"), "steps[0].state.query"),
        (lambda r: r["steps"][0]["state"].update(query="preset=nope"), "steps[0].state.query"),
        (lambda r: r["steps"][0]["state"].update(query="s=!!"), "steps[0].state.query"),
        (lambda r: r["steps"][0]["state"].update(query="focus=99"), "steps[0].state.query"),
        (lambda r: r["steps"][0]["question"].update(row=0), "steps[0].question.row"),
        (lambda r: r["steps"][0]["question"].update(row=2.5), "steps[0].question.row"),
        (lambda r: r["steps"][0]["question"].update(row=4), "steps[0].question.row"),
        (lambda r: r["steps"][0]["question"].update(head=2), "steps[0].question.head"),
        (lambda r: r["steps"][0]["question"].update(kind="guess"), "steps[0].question.kind"),
        (lambda r: r["steps"][0]["question"].update(stage="Q"), "steps[0].question.stage"),
        (lambda r: r["steps"][0]["question"].pop("row"), "steps[0].question.row"),
        (lambda r: r["steps"][0]["question"].update(prompt=""), "steps[0].question.prompt"),
    ],
)
def test_a_bad_field_is_named_by_its_path(change: Any, field: str) -> None:
    raw = asking({"kind": "attends_most", "row": 2})
    change(raw)
    assert refused(raw).field == field


@pytest.mark.parametrize(
    ("question", "field", "words"),
    [
        ({"kind": "cell_value", "stage": "X", "row": 1, "col": 1}, "stage", "one of Q, K"),
        ({"kind": "cell_value", "stage": "Q", "row": 1, "col": 5}, "col", "at most 4"),
        ({"kind": "cell_value", "stage": "Q", "row": 1, "col": 1, "tolerance": 0}, "tolerance", ""),
        ({"kind": "cell_value", "stage": "Q", "row": 1, "col": 1, "tolerance": True},
         "tolerance", ""),
        ({"kind": "click_cell", "stage": "weights", "which": "middle"}, "which", "max, min"),
        ({"kind": "direction", "quantity": "entropy", "row": 1, "change": "", "col": 1},
         "col", "only there"),
        ({"kind": "direction", "quantity": "weight", "row": 1, "change": ""}, "col", "required"),
        ({"kind": "direction", "quantity": "entropy", "row": 1, "change": "tokens=1"},
         "change", "unknown parameter 'tokens'"),
        ({"kind": "direction", "quantity": "entropy", "row": 3, "change": "preset=cross-attention"},
         "change", "row 3"),
        ({"kind": "order", "row": 1}, "row", "same weight"),
    ],
)  # fmt: skip
def test_a_bad_question_is_named_by_its_path(
    question: dict[str, Any], field: str, words: str
) -> None:
    error = refused(asking(question))
    assert error.field == f"steps[0].question.{field}"
    assert words in error.message


@pytest.mark.parametrize(
    ("state", "field", "words"),
    [
        ({"lab": "nope", "section": "x"}, "lab", "the labs are one-query"),
        ({"lab": "masks", "section": "nope"}, "section", "mask-kinds, mask-order"),
        ({"lab": "masks", "section": "mask-kinds", "query": "L=99"}, "query", "L: must be"),
        ({"lab": "masks", "section": "mask-kinds", "query": "scale=1"}, "query", "'scale'"),
        ({"lab": "one-query", "section": "two-maps", "query": "preset=nope"}, "query", "nope"),
        ({"lab": "one-query", "section": "two-maps", "query": "s=" + RAGGED},
         "query", "s: x: rows must all have the same length"),
        ({"lab": "why-scale", "section": "saturation", "query": "trials=100000"},
         "query", "trials"),
    ],
)  # fmt: skip
def test_a_lab_state_is_checked_as_its_page_reads_it(
    state: dict[str, Any], field: str, words: str
) -> None:
    raw = lesson({"title": "Lab", "state": {"page": "lab", **state}})
    error = refused(raw)
    assert error.field == f"steps[0].state.{field}"
    assert words in error.message


def test_a_lab_state_with_its_controls_is_priced() -> None:
    raw = lesson(
        {"title": "Lab", "state": {"page": "lab", "lab": "order", "section": "positional-encoding",
                                   "query": "T=128&d=512"}},
        {"title": "Lab", "state": {"page": "lab", "lab": "why-scale", "section": "saturation"}},
    )  # fmt: skip
    parsed = parse_lesson(raw)
    assert isinstance(parsed.steps[0].state, LabState)
    plan = plan_lesson(parsed, Settings())
    assert plan.steps[0].cost.cells > 128 * 512  # the drawn heatmap
    # Priced as the lab route prices the section (its drawing and its seeded runs).
    lab = get_lab("why-scale")
    assert lab is not None
    assert plan.steps[1].cost == Ask(lab, None, query={"figures": "saturation"}).price()
    assert plan.cost == plan.steps[0].cost + plan.steps[1].cost
    assert answer_lesson(parsed) == [None, None]


def test_questions_go_on_main_states_only() -> None:
    raw = lesson({"title": "Lab", "state": {"page": "lab", "lab": "masks", "section": "empty-row"},
                  "question": {"kind": "attends_most", "prompt": "?", "row": 1}})  # fmt: skip
    assert refused(raw).field == "steps[0].question"
    raw["steps"][0]["question"] = None  # null: no question
    assert answer_lesson(raw) == [None]


def test_the_price_is_the_sum_of_the_states_and_refused_over_the_budget() -> None:
    direction = {"kind": "direction", "quantity": "entropy", "row": 2, "change": query(scale=False)}
    raw = lesson(step(), *[step(direction)] * 4)
    plan = plan_lesson(parse_lesson(raw), Settings())
    first, second = plan.steps[:2]
    assert second.plan is not None
    assert second.change is not None
    assert second.cost == second.plan.cost + second.change.cost  # the changed state counts
    assert plan.cost == first.cost + second.cost + second.cost + second.cost + second.cost
    small = Settings(max_cells=plan.cost.cells - 1)
    with pytest.raises(CostError) as caught:
        answer_lesson(raw, small)
    assert caught.value.field == "steps"
    assert (
        "reduce the steps or their states' sizes (costliest: steps[1], steps[2], steps[3])"
        in caught.value.message
    )


def test_a_link_round_trips_and_refuses_what_is_not_a_lesson() -> None:
    raw = asking({"kind": "cell_value", "stage": "Z", "row": 2, "col": 1, "tolerance": 0.5})
    assert decode_lesson(encode_lesson(raw)) == parse_lesson(raw)
    assert lesson_json(parse_lesson(raw)) == raw
    with pytest.raises(LessonError, match="not valid base64url JSON") as caught:
        decode_lesson("%%%")
    assert caught.value.field == "l"
    with pytest.raises(LessonError, match="longer than"):
        decode_lesson("a" * (MAX_LINK_CHARS + 1))
    big = lesson(step())
    big["steps"][0]["text"] = "x" * 2000
    big["steps"] = [big["steps"][0]] * 34  # about 70 kB: a link under 100,000 characters
    with pytest.raises(LessonError, match=f"larger than {MAX_LESSON_BYTES:,} bytes"):
        decode_lesson(encode_lesson(big))
    with pytest.raises(LessonError) as caught:
        decode_lesson(encode_lesson({"version": 1}))
    assert caught.value.field == "title"


def test_whole_numbers_may_be_written_as_floats_like_json_schema_integers() -> None:
    raw = asking({"kind": "attends_most", "row": 2.0, "head": 1.0})
    parsed = parse_lesson(raw)
    assert parsed.steps[0].question is not None
    assert parsed.steps[0].question.row == 2


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda r: r["steps"][0]["state"].update(query="a=1&&=2"), "steps[0].state.query",
         "not a query string"),
        (lambda r: r["steps"][0]["state"].update(query="s=" + "A" * 20_001),
         "steps[0].state.query", "0 to 20000 characters"),
        (lambda r: r["steps"][0].update(question=[1]), "steps[0].question", "JSON object"),
        (lambda r: r["steps"][0].update(title=7), "steps[0].title", "must be a string"),
        (lambda r: r["steps"][0]["state"].update(figures="6"), "steps[0].state.figures", "list"),
    ],
)  # fmt: skip
def test_malformed_values_are_named(change: Any, field: str, words: str) -> None:
    raw = asking({"kind": "attends_most", "row": 2})
    change(raw)
    error = refused(raw)
    assert error.field == field
    assert words in error.message


def test_a_head_other_than_1_is_written_back() -> None:
    raw = asking({"kind": "attends_most", "row": 2, "head": 2}, "preset=two-heads")
    assert lesson_json(parse_lesson(raw))["steps"][0]["question"]["head"] == 2
    lab = lesson({"title": "Lab", "text": "", "state": {"page": "lab", "lab": "masks",
                                                        "section": "empty-row"}})  # fmt: skip
    assert lesson_json(parse_lesson(lab)) == lab
