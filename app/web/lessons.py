"""The lesson pages: ``GET /lessons`` (the built-in lessons and the editor),
``GET /lessons/{id}`` (a built-in lesson), ``GET /lessons/play?l=…`` (any lesson: ``l`` is
the lesson JSON encoded as ``s=`` encodes a state) and ``GET /lessons/edit`` (the editor).
``?mode=student`` (default) or ``?mode=present`` chooses how the player behaves.

A lesson page is declared to the one runner (``app.http.runner``): in a worker thread,
after admission, it checks the lesson as the API does (``app.lessons.plans``: the format,
then every step's state planned and priced as its own page would plan it; nothing runs),
is priced by what it prints, rendered, and shared with identical requests; it hands
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
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.limits import Cost
from app.inputs.plan import Plan
from app.lessons.builtin import summaries
from app.lessons.plans import plan_builtin_page, plan_link_page
from app.web.errors import html_answer, page_error
from app.web.lesson_player import player_context
from app.web.templating import templates

router = APIRouter(include_in_schema=False)


def _player(request: Request, plan: Plan) -> Answer:
    """The player page for a planned lesson (every state checked; nothing is built here:
    the page's script asks the figures and answers routes, which admit and build)."""
    lesson_plan, lesson_id, mode = plan.args
    context = player_context(lesson_plan, lesson_id, mode)  # shared with the lesson embeds
    other = {k: v for k, v in request.query_params.items() if k != "mode"}
    if mode == "student":
        other["mode"] = "present"
    context["other_mode"] = "?" + urlencode(other)
    return html_answer(templates.TemplateResponse(request, "lessons/play.html", context))


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
@declare("page", plan=plan_link_page, work=_player, off_loop=True, errors=page_error)
def play(request: Request) -> HTMLResponse:
    """Any lesson, from its link (``l=``)."""
    raise NotImplementedError  # run by app.http.runner


@router.get("/lessons/edit", response_class=HTMLResponse)
@computes
def edit(request: Request) -> HTMLResponse:
    """The lesson editor: steps collected with "Add to lesson", kept in this browser."""
    priced(request, Cost(0, 0))
    context = {"lessons": summaries()}
    page: HTMLResponse = templates.TemplateResponse(request, "lessons/edit.html", context)
    return page


@router.get("/lessons/{lesson_id}", response_class=HTMLResponse)
@declare("page", plan=plan_builtin_page, work=_player, off_loop=True, errors=page_error)
def builtin(lesson_id: str, request: Request) -> HTMLResponse:
    """A built-in lesson."""
    raise NotImplementedError  # run by app.http.runner
