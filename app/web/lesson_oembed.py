"""The oEmbed answer for a lesson URL: a built-in lesson's page (``/lessons/{id}``) or embed
(``/embed/lesson/{id}``), or any lesson's link (``/lessons/play?l=…``,
``/embed/lesson?l=…``). ``app.web.embed``'s ``/oembed`` asks ``parse_lesson_url`` first and
hands a lesson URL here. The answer's ``html`` is the lesson's iframe
(``app.web.lesson_snippets``), at the step the URL names (``step=N``, from 1, read as the
player reads it; one the lesson does not have is left out, as the player ignores it),
so a page's discovery link, which carries its address, embeds the step a learner shared;
nothing is built: the lesson is decoded, validated and its
states planned and priced as the embed would (a bad lesson is a 404 naming ``url``, as for
the figures)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, urlsplit

from fastapi import Request
from fastapi.responses import JSONResponse

from app.http.pipeline import priced
from app.http.responses import settings_of
from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.lessons.builtin import builtin_ids, get_builtin
from app.lessons.format import Lesson
from app.lessons.link import decode_lesson
from app.lessons.states import plan_lesson
from app.web.lesson_snippets import LESSON_HEIGHT, step_query
from app.web.oembed import OEmbedError, oembed_error, oembed_response, path_on_site

LESSON_WIDTH = 800

# (lesson id or None, the l= text or None, the step= text or None) of a lesson URL.
LessonTarget = tuple[str | None, str | None, str | None]
# A step as the player reads it (static/js/lessons/player_core.js linkedStep): from 1, no
# sign, no leading zero, at most four digits.
STEP_TEXT = re.compile(r"[1-9][0-9]{0,3}")


def linked_step(text: str | None, steps: int) -> int | None:
    """The step (from 1) a lesson URL's ``step=`` names, as the player reads it; None for
    none, or for one the lesson does not have (the player then ignores it too)."""
    if text is None or not STEP_TEXT.fullmatch(text):
        return None
    return int(text) if int(text) <= steps else None


def parse_lesson_url(url: str, base_url: str) -> LessonTarget | None:
    """The lesson a URL of this site names, or None when it names no lesson (then the
    figure and lab URLs are tried); OEmbedError for a lesson URL of another site."""
    parts, base = urlsplit(url), urlsplit(base_url)
    path = path_on_site(parts.path, base.path) or ""
    query = dict(parse_qsl(parts.query))
    target: LessonTarget | None = None
    if path in ("/lessons/play", "/embed/lesson"):
        target = None, query.get("l", ""), query.get("step")
    for prefix in ("/lessons/", "/embed/lesson/"):
        rest = path.removeprefix(prefix)
        if rest != path and rest and "/" not in rest and rest not in ("play", "edit"):
            target = rest, None, query.get("step")
    if target is not None and (
        parts.scheme not in {"http", "https"} or parts.netloc.lower() != base.netloc.lower()
    ):
        site = base.netloc + base.path.rstrip("/")
        raise OEmbedError(404, "url", f"only URLs of this site ({site}) can be embedded")
    return target


def _lesson(target: LessonTarget) -> tuple[Lesson, str | None]:
    lesson_id, link, _ = target
    if lesson_id is not None:
        found = get_builtin(lesson_id)
        if found is None:
            ids = ", ".join(builtin_ids())
            raise OEmbedError(404, "url", f"there is no lesson {lesson_id[:60]!r}; the "
                              f"built-in lessons are {ids}")  # fmt: skip
        return found, lesson_id
    if not link:
        raise OEmbedError(404, "url", "a lesson link needs its lesson as l=")
    try:
        return decode_lesson(link), None
    except FieldError as exc:
        raise OEmbedError(404, "url", f"the URL's lesson: {exc.field}: {exc.message}") from None


def lesson_oembed(
    request: Request, target: LessonTarget, *, base: str, bounds: tuple[int | None, int | None]
) -> JSONResponse:
    """The oEmbed ``rich`` answer for the lesson ``target`` names: the iframe of its embed,
    the built-in's by id, any other by the same ``l=`` text."""
    try:
        lesson, builtin_id = _lesson(target)
        try:
            plan_lesson(lesson, settings_of(request))
        except FieldError as exc:
            raise OEmbedError(404, "url", f"the URL's lesson: {exc.field}: {exc.message}") from None
    except OEmbedError as exc:
        return oembed_error(exc)
    priced(request, Cost(0, 0))  # checked and priced from the shapes; nothing is built
    link = quote(target[1] or "", safe="")
    path = f"/embed/lesson/{builtin_id}" if builtin_id else f"/embed/lesson?l={link}"
    step = linked_step(target[2], len(lesson.steps))
    if step is not None:  # a link that names its step embeds that step (the player's step=)
        path = step_query(path, step)
    answer = oembed_response(
        src=base + path, title=f"Attention Lab lesson: {lesson.title}",
        size=(LESSON_WIDTH, LESSON_HEIGHT), provider_url=base + "/",
        maxwidth=bounds[0], maxheight=bounds[1],
    )  # fmt: skip
    return JSONResponse(answer)
