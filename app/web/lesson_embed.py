"""``GET /embed/lesson/{id}`` (a built-in lesson) and ``GET /embed/lesson?l=…`` (any lesson):
a whole lesson for an iframe, without the site around it (``templates/embed_lesson.html``).

The lesson is checked as its page checks it (``app.lessons``: the format, then every
step's state planned and priced; nothing runs here) and handed to the same player as
``/lessons/{id}`` in ``#lesson-state`` (``app.web.lesson_player``); the player asks the API
for figures and answers as on the page. Options: ``mode=student|present`` (the page's),
``height=`` (``app.inputs.frame``: a fixed height that scrolls inside; absent, the embed
posts its height to the host at every change, as the figure embeds do). An unknown lesson
is an HTML 404 naming ``id``; a bad link, mode or height a 400, and a bad lesson a 422,
each naming the field (``l``, ``mode``, ``height``, ``steps[2].question.row``), never a 500.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from app.http.pipeline import computes, priced
from app.http.responses import settings_of
from app.inputs.errors import FieldError
from app.inputs.frame import frame_options
from app.inputs.limits import Cost
from app.lessons.builtin import builtin_ids, get_builtin
from app.lessons.format import Lesson
from app.lessons.link import decode_lesson
from app.lessons.states import plan_lesson
from app.web.errors import embed_error_page
from app.web.lesson_player import mode_of, player_context
from app.web.templating import templates
from app.wire import json_block

router = APIRouter(include_in_schema=False)

# Parameters whose error is the URL's (400); any other field is the lesson's (422).
URL_FIELDS = ("l", "mode", "height", "autoplay")


def _refused(request: Request, exc: FieldError) -> Response:
    status = 400 if exc.field in URL_FIELDS else 422
    return embed_error_page(request, status, exc.field, exc.message, thing="lesson")


@router.get("/embed/lesson", response_class=HTMLResponse)
@computes
def embed_link(request: Request) -> Response:
    """Any lesson, from its link (``l=``, as /lessons/play takes it)."""
    text = request.query_params.get("l")
    if not text:
        return embed_error_page(request, 400, "l", "give the lesson as l= (the link the "
                                "lesson editor makes)", thing="lesson")  # fmt: skip
    try:
        lesson = decode_lesson(text)
    except FieldError as exc:
        return _refused(request, exc)
    return _embed(request, lesson, None, f"/lessons/play?l={quote(text, safe='')}")


@router.get("/embed/lesson/{lesson_id}", response_class=HTMLResponse)
@computes
def embed_builtin(lesson_id: str, request: Request) -> Response:
    """A built-in lesson by its id."""
    lesson = get_builtin(lesson_id)
    if lesson is None:
        ids = ", ".join(builtin_ids())
        return embed_error_page(request, 404, "id", f"there is no lesson {lesson_id[:60]!r}; "
                                f"the built-in lessons are {ids}", thing="lesson")  # fmt: skip
    return _embed(request, lesson, lesson_id, f"/lessons/{lesson_id}")


def _embed(request: Request, lesson: Lesson, lesson_id: str | None, page: str) -> Response:
    try:
        mode = mode_of(request)
        frame = frame_options(request.query_params)
        plan = plan_lesson(lesson, settings_of(request))
    except FieldError as exc:
        return _refused(request, exc)
    # Planned (every state checked and priced) but not run: the player asks the figures
    # and answers routes, which admit and build.
    priced(request, Cost(0, 0))
    context = player_context(plan, lesson_id, mode)
    context.update(
        open_url=page
        + (("&" if "?" in page else "?") + "mode=present" if mode == "present" else ""),
        open_title=lesson.title,
        data=Markup(json_block({"lesson": lesson_id, "height": frame.height})),
    )
    out: Response = templates.TemplateResponse(request, "embed_lesson.html", context)
    return out
