"""Each question's answer, computed by the engine from its step's state: never typed.

``answer_lesson(lesson)`` plans every state as its page would (``app.lessons.states``:
checked and priced, the lesson refused when over the budget), runs each question's state
(``app.inputs.resolve.resolve_plan``: the one path of links) and reads the stage the
question names. Each answer is a dict (the contract of issue 19):

* ``kind``, ``answer`` (printed, e.g. "love (row 2)"), ``why`` (one sentence, true for
  that state, built from its numbers);
* ``accept``: what the browser compares without maths (``{"choice"}``, ``{"sequence"}``,
  ``{"min", "max"}``, ``{"cells"}``: 1-based, every tie);
* ``choices`` for the choice kinds, and ``misconception`` (``{"answer", "why"}``) where a
  common mistake (``app.lessons.mistakes``) gives a different answer.

The one answer not computed is a teacher's ``multiple_choice`` (``app.lessons.own``):
answered as they wrote it, its ``why`` theirs ("" when they gave none). A lab section's
own question (``section_question``, ``app.lessons.section``) is computed by the lab, built
by the ``lab_figure`` the caller hands in; its answer adds ``asks``, the lab's question
with the section's numbers.

A question with no single answer (two keys tied for the largest weight, a row whose keys
are all masked, a row beyond the state) is a ``LessonError`` naming the question's field.
Rows and columns count from 1 in questions and sentences, from 0 in the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.attention import Stages
from app.inputs.resolve import StateError, resolve_plan
from app.lessons import cells, choice, direction, own, section
from app.lessons.asked import Answer, Asked
from app.lessons.format import LabState, Lesson, LessonError, Question, Step, parse_lesson
from app.lessons.section import LabBuilder
from app.lessons.states import LessonPlan, StepPlan, plan_lesson
from app.settings import Settings, get_settings


def _run(plan: Any, path: str) -> Stages:
    try:
        return resolve_plan(plan).stages
    except StateError as exc:
        raise LessonError(path, f"{exc.param}: {exc.message}") from None


def asked(question: Question, plan: Any, path: str) -> Asked:
    stages = _run(plan, f"{path}.state.query")
    if question.head > len(stages.heads):
        raise LessonError(
            f"{path}.question.head", f"must be at most {len(stages.heads)}: the state's heads"
        )
    return Asked(question, stages, stages.heads[question.head - 1], f"{path}.question")


def answer_step(
    step_plan: StepPlan, step: Step, path: str, lab_figure: LabBuilder | None = None
) -> Answer | None:
    """One step's answer (None without a question); ``lab_figure`` builds a lab section
    whose own question the step asks."""
    question = step.question
    if question is None:
        return None
    if question.kind == "multiple_choice":  # the teacher's answer: nothing to run
        return own.multiple_choice(question)
    if question.kind == "section_question":
        assert isinstance(step.state, LabState)
        return section.section_question(step.state, path, lab_figure)
    a = asked(question, step_plan.plan, path)
    if question.kind == "attends_most":
        return choice.attends_most(a)
    if question.kind == "order":
        return choice.order(a)
    if question.kind == "cell_value":
        return cells.cell_value(a)
    if question.kind == "click_cell":
        return cells.click_cell(a)
    changed = _run(step_plan.change, f"{path}.question.change")
    return direction.direction(a, changed, step_plan)


def answer_plan(plan: LessonPlan, lab_figure: LabBuilder | None = None) -> list[Answer | None]:
    """Every step's answer for a planned (checked and priced) lesson: the work."""
    return [
        answer_step(sp, step, f"steps[{n}]", lab_figure)
        for n, (sp, step) in enumerate(zip(plan.steps, plan.lesson.steps, strict=True))
    ]


def answer_lesson(
    lesson: Lesson | Mapping[str, Any],
    settings: Settings | None = None,
    lab_figure: LabBuilder | None = None,
) -> list[Answer | None]:
    """Every step's computed answer, in order (None for a step without a question).
    ``lesson``: a ``Lesson`` or its JSON; ``LessonError`` / ``CostError`` when refused."""
    parsed = lesson if isinstance(lesson, Lesson) else parse_lesson(lesson)
    return answer_plan(plan_lesson(parsed, settings or get_settings()), lab_figure)
