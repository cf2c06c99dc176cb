"""``POST /api/v1/short-links`` (store a page state or a lesson, answer its short link) and
``GET /api/v1/short-links/{id}`` (what a short link holds), declared to the one runner.

A creation is refused, in this order: past the client's rate (``check``, before the body
is read: 429 with ``Retry-After``, ``Settings.short_link_rate`` a minute per client per
worker); a body over ``BODY_BYTES`` (413 before it is read); a body that is not exactly
one of ``state`` or ``lesson`` (422 naming the field); a content over
``Settings.short_link_max_bytes`` (413 naming it); a state or lesson the pages would
refuse (422 naming ``state`` or ``lesson.<path>``). Then it is stored by its hash
(``app.store.short_links``: same content, same id) in a worker thread (``off_loop``: the
database is never called on the event loop) and answered 201 with ``Location``. A
database that cannot be reached is a 503 naming ``database``.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError

from app.http.body import body_doc
from app.http.rate import Rate
from app.http.responses import POST_ERRORS, error_doc, site_base
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.errors import FieldError, error_detail
from app.inputs.limits import Cost
from app.inputs.plan import Ask, Plan
from app.inputs.short_link import (
    BODY_BYTES,
    ShortLinkRequest,
    ShortLinkResponse,
    check_size,
    check_state,
)
from app.lessons.format import LessonError, lesson_json, parse_lesson
from app.store import short_links
from app.store.database import database_for
from app.store.short_links import CollisionError, Kind

log = logging.getLogger("attention_lab.short_links")
router = APIRouter(prefix="/api/v1", tags=["short links"], route_class=LeanRoute)

KINDS: dict[Kind, tuple[str, str]] = {"s": ("state", "/s/"), "l": ("lesson", "/l/")}
ANSWER = Cost(0, 512)
EXAMPLES = {
    "state": {"summary": "The causal preset, Figure 7", "value": {"state": "preset=causal&fig=7"}},
}
CREATE_ERRORS: dict[int | str, dict[str, Any]] = {
    **POST_ERRORS,
    409: error_doc("Another content already has this short id (a hash collision)."),
    429: error_doc("This client created too many short links this minute; retry after "
                   "the seconds in `Retry-After`."),
}  # fmt: skip


READ_ERRORS: dict[int | str, dict[str, Any]] = {
    404: error_doc("No short link has this id."),
    422: error_doc("The id is not 16 base64url characters."),
}


def _error(status: int, field: str, message: str, kind: str, headers: Any = None) -> Answer:
    body = orjson.dumps(error_detail(field, message, kind))
    return Answer(body, status=status, headers=tuple((headers or {}).items()))


def _rate(request: Request) -> Rate:
    state = request.app.state
    rate: Rate | None = getattr(state, "short_link_rate", None)
    if rate is None:  # one bucket set per app (a race here only makes a second, once)
        rate = state.short_link_rate = Rate(state.settings.short_link_rate)
    return rate


def _check_rate(request: Request) -> Response | None:
    client = request.client.host if request.client else ""
    wait = _rate(request).take(client)
    if not wait:
        return None
    message = f"too many short links from this client; try again in {wait} s"
    return JSONResponse(error_detail("client", message, "rate_limited"), 429,
                        headers={"Retry-After": str(wait)})  # fmt: skip


def plan_create(ask: Ask) -> Plan:
    """What to store: (kind, content), checked and canonical."""
    body: ShortLinkRequest = ask.data
    given = [name for name in ("state", "lesson") if getattr(body, name) is not None]
    if len(given) != 1:
        raise FieldError("body", "give exactly one of state or lesson")
    if body.state is not None:
        return Plan(ANSWER, "state", ("s", check_state(body.state, ask.settings)))
    try:
        lesson = parse_lesson(body.lesson)
    except LessonError as exc:
        raise FieldError(f"lesson.{exc.field}", exc.message) from None
    # The lesson as the app writes it: the same lesson in any key order is one content.
    content = orjson.dumps(lesson_json(lesson)).decode()
    check_size("lesson", content, ask.settings)
    return Plan(ANSWER, "lesson", ("l", content))


def link_json(request: Request, kind: Kind, link: str, content: str) -> dict[str, Any]:
    name, prefix = KINDS[kind]
    path = f"{prefix}{link}"
    return {"id": link, "kind": name, "path": path, "url": f"{site_base(request)}{path}",
            "bytes": len(content.encode())}  # fmt: skip


def _create(request: Request, plan: Plan) -> Answer:
    kind, content = plan.args
    try:
        db = database_for(request.app.state, request.app.state.settings)
        link = short_links.put(db, kind, content)
    except CollisionError as exc:
        return _error(409, plan.reduce, str(exc), "collision")
    except (SQLAlchemyError, OSError):  # no server, or a data dir it cannot write
        log.exception("short links: the database cannot be opened")
        return _error(503, "database", "the database cannot be reached; try again later",
                      "database", {"Retry-After": "5"})  # fmt: skip
    found = link_json(request, kind, link, content)
    headers = (("location", found["url"]),)
    return Answer(orjson.dumps(found), status=201, headers=headers)


@router.post(
    "/short-links",
    status_code=201,
    response_model=ShortLinkResponse,
    summary="Store a page state or a lesson; answer its short link",
    responses=CREATE_ERRORS,
    openapi_extra=body_doc(ShortLinkRequest, EXAMPLES),
)
@declare("json", plan=plan_create, work=_create, body=BODY_BYTES, model=ShortLinkRequest,
         off_loop=True, check=_check_rate)  # fmt: skip
async def create_short_link(request: Request) -> Response:
    """Stores a main-page state (its link's query string) or a lesson (its JSON) under
    its content hash and answers the short link: /s/{id} opens the page on the state,
    /l/{id} plays the lesson. The same content always gets the same id; a stored link
    never changes. Bounded in size (`short_link_max_bytes`) and in creations a minute per
    client (`short_link_rate`: 429 with Retry-After past it)."""
    raise NotImplementedError  # run by app.http.runner


def plan_read(ask: Ask) -> Plan:
    link = ask.path["link_id"]
    if not short_links.is_short_id(link):
        raise FieldError("link_id", "must be 16 characters of A-Z, a-z, 0-9, - and _",
                         ["path", "link_id"])  # fmt: skip
    return Plan(ANSWER, "link_id", link)


def _read(request: Request, plan: Plan) -> Answer:
    try:
        db = database_for(request.app.state, request.app.state.settings)
        for kind in KINDS:
            content = short_links.get(db, kind, plan.args)
            if content is not None:
                found = link_json(request, kind, plan.args, content)
                value = orjson.loads(content) if kind == "l" else content
                return Answer(orjson.dumps({**found, KINDS[kind][0]: value}))
    except (SQLAlchemyError, OSError):  # no server, or a data dir it cannot write
        log.exception("short links: the database cannot be opened")
        return _error(503, "database", "the database cannot be reached; try again later",
                      "database", {"Retry-After": "5"})  # fmt: skip
    return _error(404, "link_id", "there is no short link with this id", "not_found")


@router.get(
    "/short-links/{link_id}",
    summary="What a short link holds",
    responses=READ_ERRORS,
)
@declare("json", plan=plan_read, work=_read, off_loop=True, cache=False)
async def read_short_link(request: Request, link_id: str) -> Response:
    """The stored content of a short link: `state` (a query string) or `lesson` (its
    JSON), with its id, kind, path and url."""
    raise NotImplementedError  # run by app.http.runner
