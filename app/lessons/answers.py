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
answered as they wrote it, its ``why`` theirs ("" when they gave none).

A question with no single answer (two keys tied for the largest weight, a row whose keys
are all masked, a row beyond the state) is a ``LessonError`` naming the question's field.
Rows and columns count from 1 in questions and sentences, from 0 in the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.attention import Stages
from app.inputs.resolve import StateError, resolve_plan
from app.lessons import cells, choice, direction, own
from app.lessons.asked import Answer, Asked
from app.lessons.format import Lesson, LessonError, Question, parse_lesson
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


def answer_step(step_plan: StepPlan, question: Question | None, path: str) -> Answer | None:
    """One step's answer (None without a question)."""
    if question is None:
        return None
    if question.kind == "multiple_choice":  # the teacher's answer: nothing to run
        return own.multiple_choice(question)
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


def answer_plan(plan: LessonPlan) -> list[Answer | None]:
    """Every step's answer for a planned (checked and priced) lesson: the work."""
    return [
        answer_step(sp, step.question, f"steps[{n}]")
        for n, (sp, step) in enumerate(zip(plan.steps, plan.lesson.steps, strict=True))
    ]


def answer_lesson(
    lesson: Lesson | Mapping[str, Any], settings: Settings | None = None
) -> list[Answer | None]:
    """Every step's computed answer, in order (None for a step without a question).
    ``lesson``: a ``Lesson`` or its JSON; ``LessonError`` / ``CostError`` when refused."""
    parsed = lesson if isinstance(lesson, Lesson) else parse_lesson(lesson)
    return answer_plan(plan_lesson(parsed, settings or get_settings()))
