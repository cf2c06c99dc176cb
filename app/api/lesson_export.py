"""``POST /api/v1/lessons/export?format=html|scorm12|scorm2004``: a lesson (lesson JSON in
the body) as a file a teacher hands to a course site.

* ``html``: the lesson as ONE self-contained HTML file that works from ``file://``
  (``app.export.lesson_document.lesson_html``: the player, every figure and every computed
  answer inlined);
* ``scorm12`` / ``scorm2004``: a zip an LMS imports (``app.export.scorm``): the same file
  as the one SCO, with the adapter that reports completion and the score to the LMS.

The route is declared to the one runner (``app.http.runner``): the body read within the
lesson's size limit (413 past it, Content-Length or chunked), then in a worker thread
after admission the plan (``app.lessons.plans.plan_export``: 422 naming ``format``,
``mastery`` or the lesson's field, e.g. ``steps[2].question.row``; every step's state
planned and priced, the price scaled by what the file builds), then the file; an
identical request shares the file. The file name is the title's
slug (``app.export.scorm.lesson_slug``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.export.lesson_document import lesson_html
from app.export.scorm import DEFAULT_MASTERY, lesson_slug, scorm_package
from app.http.lesson_labs import lab_figure
from app.http.responses import POST_ERRORS, error_doc, settings_of
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.plan import Plan
from app.lessons.format import MAX_LESSON_BYTES, lesson_json
from app.lessons.plans import plan_export
from app.lessons.schema import lesson_schema

router = APIRouter(prefix="/api/v1", tags=["lessons"], route_class=LeanRoute)

FORMATS = {"html": None, "scorm12": "1.2", "scorm2004": "2004"}  # EXPORT_FORMATS' versions
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


def _file(request: Request, plan: Plan) -> Answer:
    """Build the file (in a worker thread, under the slot)."""
    lesson, fmt, mastery = plan.args
    settings = settings_of(request)
    html = lesson_html(lesson, settings=settings, lab_figure=lab_figure(settings))
    stem = lesson_slug(lesson.title)
    version = FORMATS[fmt]
    if version is None:
        body: bytes = html.encode("utf-8")
        media, name = "text/html; charset=utf-8", f"{stem}.html"
    else:
        pass_mark = DEFAULT_MASTERY if mastery is None else mastery
        body = scorm_package(lesson_json(lesson), html, version, mastery=pass_mark)  # type: ignore[arg-type]
        media, name = "application/zip", f"{stem}-{fmt}.zip"
    disposition = f'attachment; filename="{name}"'
    return Answer(body, media, (("content-disposition", disposition),))


@router.post(
    "/lessons/export",
    summary="Export a lesson: offline HTML or a SCORM package",
    responses={**POST_ERRORS, **_RESPONSES},
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": _body_schema()}}}},
)  # fmt: skip
@declare("file", plan=plan_export, work=_file, body=MAX_LESSON_BYTES, model="json",
         off_loop=True)  # fmt: skip
async def export_lesson(
    request: Request, format: FormatParam = "html", mastery: MasteryParam = None
) -> Response:
    """The lesson in the body as a file: `html` (one offline file, every figure and answer
    inside), `scorm12` or `scorm2004` (a package any LMS imports; it reports completion and
    the score, the share of questions answered right, through the LMS's SCORM API)."""
    raise NotImplementedError  # run by app.http.runner
