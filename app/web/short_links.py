"""``GET /s/{id}`` (the main page on a stored state), ``GET /e/{id}`` (the embed of the
figure that state names) and ``GET /l/{id}`` (the player on a stored lesson): short links
made by ``POST /api/v1/short-links`` (``app.api.short_links``), declared to the one runner.

Each answers a redirect (302) to the self-contained link the content stands for:
``/?<state>`` (with ``#fig-N`` when the state names a figure, so the page scrolls to it as
the long link does), ``/embed/N?<state>`` (an iframe follows it; a state that names no
figure has no embed: 404) and ``/lessons/play?l=<lesson>`` (a ``mode`` given to the short link is
passed on). So everything the long link does, the short one does, and the long links keep
working as they always have. The database is read in a worker thread (``off_loop``). An
id that is not stored is a 404 page naming ``link_id``; a database that cannot be reached,
a 503 page.
"""

from __future__ import annotations

import logging
from urllib.parse import parse_qsl, urlencode

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.exc import SQLAlchemyError

from app.http.responses import site_base
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.inputs.link import FIGURE_KEY
from app.inputs.plan import Ask, Plan
from app.lessons.link import encode_lesson
from app.store import short_links
from app.store.database import database_for
from app.store.short_links import Kind
from app.web.errors import page_error

log = logging.getLogger("attention_lab.short_links")
router = APIRouter(route_class=LeanRoute, include_in_schema=False)

LESSON_MODES = ("student", "present")


class NotStoredError(FieldError):
    """A short link this server does not hold (404), or cannot read now (503)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__("link_id", message, ["path", "link_id"])
        self.status = status


def _plan(ask: Ask) -> Plan:
    link = ask.path["link_id"]
    if not short_links.is_short_id(link):
        raise NotStoredError("a short link's id is 16 characters of A-Z, a-z, 0-9, - and _", 404)
    mode = ask.query.get("mode", "")
    return Plan(Cost(0, 0), "link_id", (link, mode if mode in LESSON_MODES else ""))


def _content(request: Request, kind: Kind, link: str) -> str:
    try:
        db = database_for(request.app.state, request.app.state.settings)
        content = short_links.get(db, kind, link)
    except (SQLAlchemyError, OSError):  # no server, or a data dir it cannot write
        log.exception("short links: the database cannot be opened")
        raise NotStoredError("the database cannot be reached; try again later", 503) from None
    if content is None:
        what = "page state" if kind == "s" else "lesson"
        raise NotStoredError(f"there is no {what} stored under this short link", 404)
    return content


def _redirect(location: str) -> Answer:
    # Stored contents never change, but a link may be made again elsewhere: a day's cache.
    headers = (("location", location), ("cache-control", "public, max-age=86400"))
    return Answer(b"", "text/plain", headers, 302)


def state_location(request: Request, state: str) -> str:
    """The main page's own link of ``state``: ``/?state``, ``#fig-N`` when it names N."""
    figure = dict(parse_qsl(state)).get(FIGURE_KEY, "")
    fragment = f"#fig-{figure}" if figure.isdigit() else ""
    return f"{site_base(request)}/?{state}{fragment}"


def _state(request: Request, plan: Plan) -> Answer:
    link, _ = plan.args
    return _redirect(state_location(request, _content(request, "s", link)))


def _lesson(request: Request, plan: Plan) -> Answer:
    link, mode = plan.args
    query = {"l": encode_lesson(orjson.loads(_content(request, "l", link)))}
    if mode:
        query["mode"] = mode
    return _redirect(f"{site_base(request)}/lessons/play?{urlencode(query)}")


@router.get("/s/{link_id}")
@declare("page", plan=_plan, work=_state, off_loop=True, errors=page_error, cache=False)
async def state_link(request: Request) -> Response:
    """The main page on the state stored under ``link_id``."""
    raise NotImplementedError  # run by app.http.runner


def _embed(request: Request, plan: Plan) -> Answer:
    link, _ = plan.args
    pairs = parse_qsl(_content(request, "s", link), keep_blank_values=True)
    figure = dict(pairs).get(FIGURE_KEY, "")
    if not figure.isdigit():
        raise NotStoredError("this short link's state names no figure to embed (fig=N)", 404)
    query = urlencode([(k, v) for k, v in pairs if k != FIGURE_KEY])
    return _redirect(f"{site_base(request)}/embed/{figure}?{query}")


@router.get("/e/{link_id}")
@declare("embed", plan=_plan, work=_embed, off_loop=True, errors=page_error, cache=False)
async def embed_link(request: Request) -> Response:
    """The embed of the figure (``fig=N``) of the state stored under ``link_id``."""
    raise NotImplementedError  # run by app.http.runner


@router.get("/l/{link_id}")
@declare("page", plan=_plan, work=_lesson, off_loop=True, errors=page_error, cache=False)
async def lesson_link(request: Request) -> Response:
    """The lesson stored under ``link_id``, in the player."""
    raise NotImplementedError  # run by app.http.runner
