"""API v1 for lessons (issue 19): the built-in lessons, the lesson JSON Schema, and the
answers the product computes for any lesson. Validate, call ``app.lessons``, serialise.

* ``GET  /api/v1/lessons``              the built-ins: id, title, summary, counts
* ``GET  /api/v1/lessons/schema.json``  the lesson JSON Schema (draft 2020-12)
* ``GET  /api/v1/lessons/{lesson_id}``  one built-in as lesson JSON
* ``POST /api/v1/lessons/answers``      lesson JSON -> every question's computed answer

All four are declared to the one runner (``app.http.runner``), planned in
``app.lessons.plans``; an unknown id is a 404 from the path alone. The answers are priced
before any work: the lesson's price is the sum of its steps' states' prices (each as its
page prices it) and of the direction questions' changed states; over the budget, a 422
names ``steps`` and the costliest ones.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.convertors import Convertor, register_url_convertor

from app.http.lesson_labs import lab_figure
from app.http.responses import POST_ERRORS, JSONBytes, error_doc, settings_of, site_base
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.errors import problem
from app.inputs.plan import Plan
from app.lessons.answers import answer_plan
from app.lessons.builtin import builtin_ids, builtin_json, summaries
from app.lessons.format import MAX_LESSON_BYTES
from app.lessons.plans import (
    plan_answers,
    plan_builtin_json,
    plan_builtin_list,
    plan_schema,
)
from app.lessons.schema import lesson_schema
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["lessons"], route_class=LeanRoute)


class LessonIdConvertor(Convertor[str]):
    """A lesson id in ``/api/v1/lessons/{lesson_id}``: any segment but the names of the
    POST routes beside it (``answers``, ``export``), so that a GET there is a 405 whose
    ``Allow`` lists POST alone, not a lesson named "answers"."""

    regex = "(?!(?:answers|export)$)[^/]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("lesson_id", LessonIdConvertor())


class LessonSummary(BaseModel):
    id: str = Field(description="The lesson's id, as in /lessons/{id}.", examples=["why-scale"])
    title: str = Field(description="Plain text.", examples=["Why divide by √d_k"])
    summary: str = Field(description="One or two sentences, plain text.")
    steps: int = Field(description="How many steps.", examples=[8])
    questions: int = Field(description="How many steps ask a question.", examples=[4])


class LessonList(BaseModel):
    lessons: list[LessonSummary] = Field(description="The built-in lessons, in order.")


class Choice(BaseModel):
    id: str = Field(
        description='"k1".."kn" (keys, from 1), "up"/"down"/"same", "c1".."c6" (a '
        "teacher's own choices, from 1), or a lab section's own choice ids."
    )
    label: str = Field(description='What the page shows, e.g. "love (row 2)".')


class Misconception(BaseModel):
    answer: str = Field(description="The answer a common mistake gives.")
    why: str = Field(description="Which mistake, in one sentence.")


class QuestionAnswer(BaseModel):
    kind: str = Field(examples=["attends_most"])
    answer: str = Field(description="The answer, printed.", examples=["love (row 2)"])
    accept: dict[str, Any] = Field(
        description='What a browser compares without maths: {"choice"}, {"sequence"}, '
        '{"min", "max"} or {"cells": [[row, col], …]} (from 1, every tie).'
    )
    why: str = Field(
        description="One sentence, true for this state, from its numbers; for a teacher's "
        'own multiple_choice, their reason as written ("" when none).'
    )
    choices: list[Choice] | None = Field(None, description="For the choice kinds.")
    asks: str | None = Field(
        None,
        description="A lab section's own question (section_question): the lab's question "
        "with the section's numbers, shown under the prompt.",
    )
    misconception: Misconception | None = Field(None, description="Where a mistake differs.")


class LessonAnswers(BaseModel):
    steps: list[QuestionAnswer | None] = Field(
        description="One entry per step, in order: null for a step without a question."
    )


EXAMPLE = {
    "version": 1,
    "title": "Who does love attend to?",
    "steps": [{
        "title": "The weights",
        "text": "Row 2 of the weights belongs to love.",
        "state": {"page": "main", "query": "preset=i-love-llms", "figures": [6]},
        "question": {"kind": "attends_most", "prompt": "Which key does love weigh most?",
                     "row": 2},
    }],
}  # fmt: skip


def _openapi_schema() -> dict[str, Any]:
    schema = lesson_schema()
    for key in ("$schema", "$id"):
        schema.pop(key)
    return schema


def _list(_: Request, plan: Plan) -> Answer:
    return Answer(encode({"lessons": summaries()}))


def _schema(request: Request, plan: Plan) -> Answer:
    out = lesson_schema()
    # From the request (its Host, or the public URL): so the route is never cached.
    out["$id"] = f"{site_base(request)}/api/v1/lessons/schema.json"
    return Answer(encode(out), SCHEMA_JSON)


def _unknown(request: Request) -> None:
    """The 404 for an id no built-in lesson has (from the path, before any plan)."""
    lesson_id = request.path_params["lesson_id"]
    if lesson_id not in builtin_ids():
        msg = f"no built-in lesson {lesson_id[:60]!r}; the lessons are {', '.join(builtin_ids())}"
        raise HTTPException(404, [problem("lesson_id", msg, "not_found", ["path", "lesson_id"])])


def _lesson(_: Request, plan: Plan) -> Answer:
    return Answer(encode(builtin_json(plan.args)))


@router.get("/lessons", response_model=LessonList, summary="The built-in lessons")
@declare("json", plan=plan_builtin_list, work=_list)
async def lessons(request: Request) -> Response:
    """Every built-in lesson: id, title, summary and its numbers of steps and questions."""
    raise NotImplementedError  # run by app.http.runner


SCHEMA_JSON = "application/schema+json"


class SchemaJSON(JSONBytes):
    media_type = SCHEMA_JSON


@router.get(
    "/lessons/schema.json",
    summary="The lesson JSON Schema",
    response_class=SchemaJSON,
    responses={200: {"content": {SCHEMA_JSON: {"schema": {"type": "object"}}}}},
)
@declare("json", plan=plan_schema, work=_schema, cache=False)
async def schema(request: Request) -> Response:
    """The JSON Schema (draft 2020-12) of a version-1 lesson: what a lesson file, an
    ``l=`` link and the bodies of the lesson routes hold."""
    raise NotImplementedError  # run by app.http.runner


@router.get(
    "/lessons/{lesson_id:lesson_id}",
    summary="One built-in lesson",
    responses={
        200: {"content": {"application/json": {"schema": _openapi_schema()}}},
        404: error_doc("No built-in lesson has this id; the message lists the ids."),
    },
)
@declare("json", plan=plan_builtin_json, work=_lesson, check=_unknown)
async def lesson(lesson_id: str, request: Request) -> Response:
    """A built-in lesson as lesson JSON (the format of ``/api/v1/lessons/schema.json``)."""
    raise NotImplementedError  # run by app.http.runner


def _answers(request: Request, plan: Plan) -> Answer:
    # A lab section's own question is built by the lab, as its route builds it.
    built = lab_figure(settings_of(request))
    return Answer(encode({"steps": answer_plan(plan.args, built)}))


@router.post(
    "/lessons/answers",
    response_model=LessonAnswers,
    summary="Compute a lesson's answers",
    responses=POST_ERRORS,
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": _openapi_schema(), "examples": {"one-question": {
            "summary": "One question on the running example", "value": EXAMPLE}}}}}},
)  # fmt: skip
@declare("json", plan=plan_answers, work=_answers, body=MAX_LESSON_BYTES, model="json",
         off_loop=True)  # fmt: skip
async def answers(request: Request) -> Response:
    """Every question's answer, computed by the engine from its step's state (never typed
    by the author, so it is right for any numbers): the printed answer, what a browser
    accepts, a one-sentence why and, where a common mistake gives another answer, that
    mistake. Each state is checked and priced as its page would be."""
    raise NotImplementedError  # run by app.http.runner
