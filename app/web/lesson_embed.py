"""``GET /embed/lesson/{id}`` (a built-in lesson) and ``GET /embed/lesson?l=…`` (any lesson):
a whole lesson for an iframe, without the site around it (``templates/embed_lesson.html``).

Declared to the one runner (``app.http.runner``) as an embed: the lesson is checked as
its page checks it, in a worker thread after admission (``app.lessons.plans``: the
format, then every step's state planned and priced; nothing runs here) and handed to
the same player as ``/lessons/{id}`` in ``#lesson-state`` (``app.web.lesson_player``);
the player asks the API for figures and answers as on the page. Options:
``mode=student|present`` (the page's), ``height=`` (``app.inputs.frame``: a fixed height
that scrolls inside; absent, the embed posts its height to the host at every change, as
the figure embeds do). An unknown lesson is an HTML 404 naming ``id``; a bad link, mode
or height a 400, and a bad lesson a 422, each naming the field (``l``, ``mode``,
``height``, ``steps[2].question.row``), never a 500.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.errors import FieldError
from app.inputs.frame import frame_options
from app.inputs.plan import Plan
from app.lessons.plans import plan_builtin_page, plan_link_page
from app.web.errors import embed_error_page, html_answer
from app.web.lesson_player import player_context
from app.web.templating import templates
from app.wire import json_block

router = APIRouter(include_in_schema=False)

# Parameters whose error is the URL's (400); any other field is the lesson's (422).
URL_FIELDS = ("l", "mode", "height", "autoplay")


def _refused(request: Request, exc: FieldError) -> Response:
    status = getattr(exc, "status", None) or (400 if exc.field in URL_FIELDS else 422)
    return embed_error_page(request, status, exc.field, exc.message, thing="lesson")


def _embed(request: Request, plan: Plan) -> Answer:
    """The embed for a planned lesson (in a worker thread; nothing is built here: the
    player asks the figures and answers routes, which admit and build)."""
    lesson_plan, lesson_id, mode = plan.args
    frame = frame_options(request.query_params)
    if lesson_id is None:
        page = f"/lessons/play?l={quote(request.query_params['l'], safe='')}"
    else:
        page = f"/lessons/{lesson_id}"
    context = player_context(lesson_plan, lesson_id, mode)
    context.update(
        open_url=page
        + (("&" if "?" in page else "?") + "mode=present" if mode == "present" else ""),
        open_title=lesson_plan.lesson.title,
        step_link=True,  # the player keeps "Open in Attention Lab" at the step shown
        data=Markup(json_block({"lesson": lesson_id, "height": frame.height})),
    )
    return html_answer(templates.TemplateResponse(request, "embed_lesson.html", context))


@router.get("/embed/lesson", response_class=HTMLResponse)
@declare("embed", plan=plan_link_page, work=_embed, off_loop=True, errors=_refused)
def embed_link(request: Request) -> Response:
    """Any lesson, from its link (``l=``, as /lessons/play takes it)."""
    raise NotImplementedError  # run by app.http.runner


@router.get("/embed/lesson/{lesson_id}", response_class=HTMLResponse)
@declare("embed", plan=plan_builtin_page, work=_embed, off_loop=True, errors=_refused)
def embed_builtin(lesson_id: str, request: Request) -> Response:
    """A built-in lesson by its id."""
    raise NotImplementedError  # run by app.http.runner
