"""A lab section's own question in a lesson (``section_question``, app.lessons.section):
the lab computes it from the section's controls, so the lesson's answer is the lab's (for
A2, the key with the largest dot product with q, checked here with numpy); a section
that asks nothing, a main-page state, or no lab builder is refused naming the field; the
schema agrees; every section that declares ``asks`` builds its question and no other does."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import numpy as np
import pytest
from lesson_helpers import lesson, step

from app.figures.labs import LABS
from app.http.lesson_labs import lab_figure
from app.lessons.answers import answer_lesson
from app.lessons.format import LessonError
from app.lessons.kinds import LAB_KINDS
from app.lessons.schema import lesson_schema
from app.lessons.section import asking_sections
from app.settings import Settings

BUILD = lab_figure(Settings())
KEYS = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])  # A2's fixed keys (= values)
VALIDATOR = jsonschema_rs.Draft202012Validator(lesson_schema())


def asking(query: str = "", section: str = "alignment", lab: str = "one-query") -> dict[str, Any]:
    return lesson({"title": "A2", "state": {"page": "lab", "lab": lab, "section": section,
                   "query": query}, "question": {"kind": "section_question",
                   "prompt": "Decide first."}})  # fmt: skip


@pytest.mark.parametrize(("q", "scale"), [((1, 0), True), ((-1, 0.5), True), ((0.2, 1.5), False)])
def test_the_answer_is_the_labs_for_the_sections_controls(
    q: tuple[float, float], scale: bool
) -> None:
    query = f"alignment.q={q[0]},{q[1]}" + ("" if scale else "&alignment.scale=0")
    raw = asking(query)
    VALIDATOR.validate(raw)
    [answer] = answer_lesson(raw, lab_figure=BUILD)
    assert answer is not None
    best = int(np.argmax(KEYS @ np.array(q)))  # softmax keeps the order of the scores
    assert answer["accept"] == {"choice": f"k_{best + 1}"}
    assert answer["answer"].startswith(f"k_{best + 1} = ")
    assert answer["asks"].startswith(f"With q = ({q[0]:g}".replace("-", "−"))
    reveal = BUILD("one-query", "alignment", {"alignment.q": f"{q[0]},{q[1]}"} |
                   ({} if scale else {"alignment.scale": "0"}), "light")["reveal"]  # fmt: skip
    assert answer["why"] == reveal["why"]  # the lab's own words
    assert [c["id"] for c in answer["choices"]] == [v for v, _ in reveal["choices"]]


def test_a_tie_is_the_labs_tie() -> None:
    [answer] = answer_lesson(asking("alignment.q=1,1"), lab_figure=BUILD)  # k_1 and k_2 tie
    assert answer is not None
    assert answer["accept"] == {"choice": "tie"}


def test_a_section_that_asks_nothing_is_named() -> None:
    with pytest.raises(LessonError) as caught:
        answer_lesson(asking(lab="masks", section="empty-row"), lab_figure=BUILD)
    assert caught.value.field == "steps[0].question.kind"
    assert "asks no question of its own; the sections that do: one-query/alignment" in (
        caught.value.message
    )


def test_only_a_lab_section_asks_it_and_only_with_a_builder() -> None:
    assert "section_question" in LAB_KINDS
    main = lesson(step({"kind": "section_question"}))
    assert not VALIDATOR.is_valid(main)
    with pytest.raises(LessonError) as caught:
        answer_lesson(main)
    assert caught.value.field == "steps[0].question"
    assert "does not go on a main-page state" in caught.value.message
    with pytest.raises(LessonError) as caught:
        answer_lesson(asking())  # no lab builder handed in
    assert caught.value.field == "steps[0].question.kind"
    extra = asking()
    extra["steps"][0]["question"]["row"] = 1
    assert not VALIDATOR.is_valid(extra)
    with pytest.raises(LessonError) as caught:
        answer_lesson(extra, lab_figure=BUILD)
    assert caught.value.field == "steps[0].question.row"


def test_every_section_that_declares_a_question_builds_one_and_no_other() -> None:
    seen = []
    for lab in LABS:
        if lab.status != "ready":
            continue
        for fig in lab.figures:
            reveal = BUILD(lab.id, fig.name, {}, "light").get("reveal")
            assert bool(reveal) == fig.asks, (lab.id, fig.name)
            if reveal:
                seen.append(f"{lab.id}/{fig.name}")
                assert {"question", "choices", "correct", "correct_label", "why"} <= set(reveal)
                assert reveal["correct"] in [v for v, _ in reveal["choices"]]
    assert seen == asking_sections() != []
