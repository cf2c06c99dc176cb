"""The lesson pages: ``GET /lessons`` (the built-in lessons and the editor),
``GET /lessons/{id}`` (a built-in lesson), ``GET /lessons/play?l=…`` (any lesson: ``l`` is
the lesson JSON encoded as ``s=`` encodes a state) and ``GET /lessons/edit`` (the editor).
``?mode=student`` (default) or ``?mode=present`` chooses how the player behaves.

A lesson page checks the lesson as the API does (``app.lessons``: the format, then every
step's state planned and priced as its own page would plan it; nothing runs) and hands
the player the lesson and each step's resolved state in ``<script id="lesson-state">``:
a main-page step as the body and view ``POST /api/v1/figures`` takes, a lab step as its
lab, section and query. The player asks the API for the figures and the answers. A bad
lesson, link or mode is an HTML error page naming the field (``steps[2].question.row``,
``l``, ``mode``), never a 500. Lesson text is printed as text by the templates.
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.http.pipeline import computes, priced
from app.http.responses import settings_of
from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.lessons.builtin import builtin_ids, get_builtin, summaries
from app.lessons.format import Lesson
from app.lessons.link import decode_lesson
from app.lessons.states import plan_lesson
from app.web.errors import html_error
from app.web.lesson_player import mode_of, player_context
from app.web.templating import templates

router = APIRouter(include_in_schema=False)


def _player(request: Request, lesson: Lesson, lesson_id: str | None) -> HTMLResponse:
    """The player page for ``lesson`` (checked and planned; nothing is built here)."""
    mode = mode_of(request)
    plan = plan_lesson(lesson, settings_of(request))
    # Planned (every state decoded, validated and priced) but not run: the page's script
    # asks the figures and answers routes, which admit and build.
    priced(request, Cost(0, 0))
    context = player_context(plan, lesson_id, mode)  # shared with the lesson embeds
    other = {k: v for k, v in request.query_params.items() if k != "mode"}
    if mode == "student":
        other["mode"] = "present"
    context["other_mode"] = "?" + urlencode(other)
    page: HTMLResponse = templates.TemplateResponse(request, "lessons/play.html", context)
    return page


@router.get("/lessons", response_class=HTMLResponse)
@computes
def index(request: Request) -> HTMLResponse:
    """The built-in lessons, how to play and present them, and the editor."""
    priced(request, Cost(0, 0))
    page: HTMLResponse = templates.TemplateResponse(
        request, "lessons/index.html", {"lessons": summaries()}
    )
    return page


@router.get("/lessons/play", response_class=HTMLResponse)
@computes
def play(request: Request) -> HTMLResponse:
    """Any lesson, from its link (``l=``)."""
    text = request.query_params.get("l")
    if not text:
        return html_error(request, 400, "l", "give the lesson as l= (the link the editor makes)")
    try:
        lesson = decode_lesson(text)
        return _player(request, lesson, None)
    except FieldError as exc:
        return html_error(request, 400 if exc.field in ("l", "mode") else 422, exc.field,
                          exc.message)  # fmt: skip


@router.get("/lessons/edit", response_class=HTMLResponse)
@computes
def edit(request: Request) -> HTMLResponse:
    """The lesson editor: steps collected with "Add to lesson", kept in this browser."""
    priced(request, Cost(0, 0))
    context = {"lessons": summaries()}
    page: HTMLResponse = templates.TemplateResponse(request, "lessons/edit.html", context)
    return page


@router.get("/lessons/{lesson_id}", response_class=HTMLResponse)
@computes
def builtin(lesson_id: str, request: Request) -> HTMLResponse:
    """A built-in lesson."""
    lesson = get_builtin(lesson_id)
    if lesson is None:
        ids = ", ".join(builtin_ids())
        return html_error(request, 404, "id", f"there is no lesson {lesson_id[:60]!r}; the "
                          f"built-in lessons are {ids}")  # fmt: skip
    try:
        return _player(request, lesson, lesson_id)
    except FieldError as exc:
        return html_error(request, 400 if exc.field == "mode" else 422, exc.field, exc.message)
