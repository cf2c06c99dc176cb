"""A teacher's own multiple-choice question (``multiple_choice``, app.lessons.own): what is
accepted, every refusal naming its field, the answer as the teacher wrote it, on a
main-page step and on a lab section, and the schema agreeing with the validator."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema_rs
import pytest
from lesson_helpers import lesson, step

from app.lessons.answers import answer_lesson
from app.lessons.format import LessonError, lesson_json, parse_lesson
from app.lessons.kinds import LAB_KINDS
from app.lessons.link import decode_lesson, encode_lesson
from app.lessons.schema import lesson_schema

OWN = {"kind": "multiple_choice", "prompt": "What does softmax do to a row?",
       "choices": ["Sorts it", "Makes it sum to 1", "Masks it"], "right": 2,
       "why": "Each weight is its exponential's share of the row's total."}  # fmt: skip
LAB = {"page": "lab", "lab": "masks", "section": "empty-row"}
VALIDATOR = jsonschema_rs.Draft202012Validator(lesson_schema())


def own(**changes: Any) -> dict[str, Any]:
    question = copy.deepcopy(OWN) | changes
    state = {"page": "main", "query": "preset=i-love-llms", "figures": [6]}
    return lesson({"title": "Yours", "text": "", "state": state, "question": question})


def refused(raw: Any) -> LessonError:
    with pytest.raises(LessonError) as caught:
        answer_lesson(raw)
    assert not VALIDATOR.is_valid(raw) or caught.value.field.endswith("right"), (
        "the schema refuses what the validator refuses (but a right choice past the list,"
        " which only the list's length tells)"
    )
    return caught.value


def test_the_answer_is_the_teachers_as_written() -> None:
    [answer] = answer_lesson(own())
    assert answer == {
        "kind": "multiple_choice",
        "answer": "Makes it sum to 1",
        "accept": {"choice": "c2"},
        "why": "Each weight is its exponential's share of the row's total.",
        "choices": [{"id": "c1", "label": "Sorts it"}, {"id": "c2", "label": "Makes it sum to 1"},
                    {"id": "c3", "label": "Masks it"}],
    }  # fmt: skip
    raw = own()
    del raw["steps"][0]["question"]["why"]
    [answer] = answer_lesson(raw)
    assert answer is not None
    assert answer["why"] == ""  # no reason invented for the teacher


def test_it_round_trips_and_validates() -> None:
    raw = own()
    VALIDATOR.validate(raw)
    parsed = parse_lesson(raw)
    question = parsed.steps[0].question
    assert question is not None
    assert question.choices == ("Sorts it", "Makes it sum to 1", "Masks it")
    assert lesson_json(parsed) == raw
    assert decode_lesson(encode_lesson(parsed)) == parsed


def test_a_lab_section_may_ask_it_and_only_it() -> None:
    assert LAB_KINDS == ("multiple_choice", "section_question")
    raw = lesson({"title": "Lab", "state": LAB, "question": OWN})
    VALIDATOR.validate(raw)
    [answer] = answer_lesson(raw)
    assert answer is not None
    assert answer["accept"] == {"choice": "c2"}
    computed = lesson({"title": "Lab", "state": LAB,
                       "question": {"kind": "attends_most", "prompt": "?", "row": 1}})  # fmt: skip
    error = refused(computed)
    assert error.field == "steps[0].question"
    assert "a lab section may ask multiple_choice" in error.message


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"choices": ["Only one"]}, "choices", "2 to 6 choices"),
        ({"choices": [f"c{n}" for n in range(7)]}, "choices", "2 to 6 choices"),
        ({"choices": "Yes, No"}, "choices", "a list"),
        ({"choices": ["Yes", ""], "right": 1}, "choices[1]", "1 to 120 characters"),
        ({"choices": ["Yes", "   "], "right": 1}, "choices[1]", "blank"),
        ({"choices": ["Yes", "No "], "right": 1}, "choices[1]", "end with a space"),
        ({"choices": ["Yes", "No", "Yes"]}, "choices[2]", "the same as choice 1"),
        ({"choices": ["Yes", "x" * 121]}, "choices[1]", "1 to 120 characters, not 121"),
        ({"choices": ["Yes", "two\nlines"]}, "choices[1]", "one line"),
        ({"choices": ["Yes", 2]}, "choices[1]", "a string"),
        ({"right": 4}, "right", "from 1 to 3"),
        ({"right": 0}, "right", "from 1 to 3"),
        ({"right": True}, "right", "whole number"),
        ({"right": "2"}, "right", "whole number"),
        ({"why": "x" * 601}, "why", "0 to 600 characters"),
        ({"prompt": ""}, "prompt", "1 to 300"),
        ({"prompt": "x" * 301}, "prompt", "1 to 300"),
        ({"head": 2}, "head", "unknown field"),  # it reads no head
        ({"row": 1}, "row", "unknown field"),
    ],
)
def test_each_refusal_names_its_field(changes: dict[str, Any], field: str, words: str) -> None:
    error = refused(own(**changes))
    assert error.field == f"steps[0].question.{field}"
    assert words in error.message


@pytest.mark.parametrize("key", ["choices", "right"])
def test_choices_and_the_right_one_are_required(key: str) -> None:
    raw = own()
    del raw["steps"][0]["question"][key]
    error = refused(raw)
    assert (error.field, error.message) == (f"steps[0].question.{key}", "is required")


def test_six_choices_of_120_characters_fit() -> None:
    choices = [str(n) * 120 for n in range(1, 7)]
    raw = own(choices=choices, right=6, why="w" * 600)
    VALIDATOR.validate(raw)
    [answer] = answer_lesson(raw)
    assert answer is not None
    assert answer["answer"] == "6" * 120
    assert [c["id"] for c in answer["choices"]] == ["c1", "c2", "c3", "c4", "c5", "c6"]


def test_it_sits_beside_computed_questions() -> None:
    raw = own()
    raw["steps"].append(step({"kind": "attends_most", "row": 2}))
    answers = answer_lesson(raw)
    assert [a["kind"] for a in answers if a] == ["multiple_choice", "attends_most"]
