"""``POST /api/v1/lessons/export?format=html|scorm12|scorm2004``: a lesson (lesson JSON in
the body) as a file a teacher hands to a course site.

* ``html``: the lesson as ONE self-contained HTML file that works from ``file://``
  (``app.export.lesson_document.lesson_html``: the player, every figure and every computed
  answer inlined);
* ``scorm12`` / ``scorm2004``: a zip an LMS imports (``app.export.scorm``): the same file
  as the one SCO, with the adapter that reports completion and the score to the LMS.

The route joins the pipeline: the format is checked first (422 naming ``format``), the
body read and parsed as the lesson routes do (413 over the lesson's size limit, 422 naming
the lesson's field, e.g. ``steps[2].question.row``), every step's state planned and priced
(``app.lessons.states``), the price scaled by what the file builds (the figures in both
themes, and the answers), then built off the event loop. The file name is the title's
slug (``app.export.scorm.lesson_slug``).
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response

from app.export.lesson_document import lesson_html
from app.export.scorm import DEFAULT_MASTERY, lesson_slug, scorm_package
from app.http.lesson_labs import lab_figure
from app.http.pipeline import compute, computes, price
from app.http.responses import POST_ERRORS, error_doc, settings_of
from app.http.routing import LeanRoute
from app.inputs.errors import problem
from app.inputs.limits import Cost
from app.inputs.query import is_whole
from app.lessons.format import MAX_LESSON_BYTES, Lesson, lesson_json, parse_lesson
from app.lessons.schema import lesson_schema
from app.lessons.states import plan_lesson
from app.settings import Settings

router = APIRouter(prefix="/api/v1", tags=["lessons"], route_class=LeanRoute)

FORMATS = {"html": None, "scorm12": "1.2", "scorm2004": "2004"}
# The file builds each main-page step's figures in both themes and runs the engine once
# more for the answers: three times the states' numbers; the answer holds the figures
# twice, plus the player, the stylesheets and (with a chart) plotly.js.
BUILDS = 3
THEMES = 2
DOCUMENT_BYTES = 5_000_000
FormatParam = Annotated[
    str,
    Query(
        description="html: one offline HTML file (works from file://); scorm12 / scorm2004: "
        "a SCORM 1.2 / SCORM 2004 4th Edition package (zip) that reports completion and the "
        "score to the LMS.",
        json_schema_extra={"enum": list(FORMATS)},
    ),
]
MasteryParam = Annotated[
    str | None,
    Query(
        description="SCORM only: the pass mark, percent of the questions answered right "
        f"(0 … 100, default {DEFAULT_MASTERY}); the LMS's own pass mark wins when it sets one.",
        examples=["80"],
    ),
]


def _body_schema() -> dict[str, Any]:
    """The lesson JSON Schema without its document keys, for the OpenAPI request body."""
    schema = lesson_schema()
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    return schema


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"text/html": {}, "application/zip": {}},
        "description": "The file, as an attachment named after the lesson's title.",
    },
    413: error_doc("The lesson is larger than a lesson may be (64 KiB of JSON)."),
    422: error_doc(
        "A bad `format` or `mastery`, a bad lesson (`detail` names its field, e.g. "
        "`steps[2].question.row`), or steps over the cost budget (`steps`)."
    ),
    503: error_doc("Every heavy-work slot is busy; retry after `Retry-After` seconds."),
}


def _refuse(field: str, message: str, status: int = 422) -> HTTPException:
    return HTTPException(status, [problem(field, message, "value_error", ["query", field])])


def _mastery(raw: str | None) -> int:
    if raw is None:
        return DEFAULT_MASTERY
    if not is_whole(raw) or not 0 <= int(raw) <= 100:
        raise _refuse(
            "mastery", f"mastery must be a whole percentage from 0 to 100, got {raw[:20]!r}"
        )
    return int(raw)


def _lesson(raw: bytes) -> Lesson:
    """The body as a lesson: its size, its JSON, then the format (``LessonError`` names the
    field, answered 422 by the app's handler)."""
    if len(raw) > MAX_LESSON_BYTES:
        msg = f"a lesson is at most {MAX_LESSON_BYTES:,} bytes of JSON; this one has {len(raw):,}"
        raise HTTPException(413, [problem("body", msg, "too_large", ["body"])])
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        msg = f"the body is not valid JSON ({str(exc).split(':')[0][:80]})"
        raise HTTPException(422, [problem("body", msg, "json_invalid", ["body"])]) from None
    return parse_lesson(data)


def _file(lesson: Lesson, fmt: str, mastery: int, settings: Settings) -> Response:
    """Build the file (off the event loop when heavy)."""
    html = lesson_html(lesson, settings=settings, lab_figure=lab_figure(settings))
    stem = lesson_slug(lesson.title)
    version = FORMATS[fmt]
    if version is None:
        body: bytes = html.encode("utf-8")
        media, name = "text/html; charset=utf-8", f"{stem}.html"
    else:
        body = scorm_package(lesson_json(lesson), html, version, mastery=mastery)  # type: ignore[arg-type]
        media, name = "application/zip", f"{stem}-{fmt}.zip"
    disposition = f'attachment; filename="{name}"'
    return Response(body, media_type=media, headers={"content-disposition": disposition})


@router.post(
    "/lessons/export",
    summary="Export a lesson: offline HTML or a SCORM package",
    responses={**POST_ERRORS, **_RESPONSES},
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": _body_schema()}}}},
)  # fmt: skip
@computes
async def export_lesson(
    request: Request, format: FormatParam = "html", mastery: MasteryParam = None
) -> Response:
    """The lesson in the body as a file: `html` (one offline file, every figure and answer
    inside), `scorm12` or `scorm2004` (a package any LMS imports; it reports completion and
    the score, the share of questions answered right, through the LMS's SCORM API)."""
    if format not in FORMATS:
        raise _refuse("format", f"format must be one of {', '.join(FORMATS)}, got {format[:20]!r}")
    pass_mark = _mastery(mastery)
    settings = settings_of(request)
    lesson = _lesson(await request.body())
    plan = plan_lesson(lesson, settings)
    built = Cost(
        plan.cost.cells * BUILDS, plan.cost.response_bytes * THEMES + DOCUMENT_BYTES
    )  # fmt: skip
    cost = price(request, built, "the steps or their states' sizes", field="steps")
    # A lab section refused while it is built raises ControlError (a FieldError): the
    # app's handler answers 422 naming its key.
    return await compute(request, cost, _file, lesson, format, pass_mark, settings)
