"""The ONE runner: a route declares what it is, and this module does everything else.

A route is declared with ``@declare(surface, plan=…, work=…, body=…)`` under its router
decorator; its own body is empty (its signature and docstring document it in OpenAPI).
The declaration says:

* ``surface``: ``json`` (the API), ``page`` (HTML), ``embed``, ``stream`` or ``file``;
  a page or an embed answers a refused input with its HTML error page (``errors``),
  the others with the API's one error shape (the app's handlers);
* ``body``: the route's own body limit in bytes (0: it takes no body);
* ``plan``: a pure function (``app.inputs``, or ``app.lessons`` for lessons) from an
  ``Ask`` to a priced ``Plan``: parse strictly, price with the cost model;
* ``work``: what the answer is, from the plan, as bytes (an ``Answer``);
* ``off_loop``: the plan itself is work (tokenizing a sentence, planning a lesson), so
  it runs in a worker thread after admission, never on the event loop before it;
* ``check``: a refusal from the path alone, before the body is read (a missing model).

Every declared request then goes, in this order:

1. **bounded body read**: Content-Length over the route's limit is a 413 before a byte
   is read; a chunked body is counted as it arrives (``app.http.body.read_limited``);
2. **shared**: the answer cache (``app.http.memo``) keyed by what was asked answers an
   identical request at once, or lets it wait for the identical one in flight;
3. **plan** (inline, or off the loop after admission) and **price** (``CostError``, a 4xx
   naming what to reduce; ``Gate.priced`` counts it for the route walk);
4. **admit**: heavy work waits in the gate's short queue for a slot
   (``Gate.acquire``; past ``queue_seconds`` a 503 with ``Retry-After`` from the queue);
5. **compute and encode** off the event loop, in a worker thread under the slot;
6. **send** in pieces within ``send_seconds`` (``app.http.sending.Sent``), the slot held
   until the last byte is sent or the deadline passes (the connection is then closed).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio.to_thread
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from app.http.admission import NO_COST, Slot, gate_of
from app.http.body import json_body, parse_body, read_limited
from app.http.memo import AnswerCache
from app.http.pipeline import MARK
from app.http.sending import Answer, Sent
from app.inputs.errors import FieldError
from app.inputs.limits import check_cost, is_heavy
from app.inputs.plan import Ask, Plan

Surface = Literal["json", "page", "embed", "stream", "file"]
F = TypeVar("F", bound=Callable[..., Any])
DECLARED = "__attention_lab_declared__"


@dataclass(frozen=True)
class Declared:
    """A route's declaration (see the module docstring)."""

    surface: Surface
    plan: Callable[[Ask], Plan]
    work: Callable[[Request, Plan], Answer]
    body: int = 0
    off_loop: bool = False
    check: Callable[[Request], Response | None] | None = None
    errors: Callable[[Request, FieldError], Response] | None = None
    model: type[BaseModel] | Literal["json"] | None = None


def declare(
    surface: Surface,
    *,
    plan: Callable[[Ask], Plan],
    work: Callable[[Request, Plan], Answer],
    body: int = 0,
    off_loop: bool = False,
    check: Callable[[Request], Response | None] | None = None,
    errors: Callable[[Request, FieldError], Response] | None = None,
    model: type[BaseModel] | Literal["json"] | None = None,
) -> Callable[[F], F]:
    """Declare the endpoint under it as run by this module (its body is not called).
    With ``model`` the body is parsed strictly as that pydantic model (the API's 422
    shape), documented in OpenAPI by ``body_doc``, and handed to the plan as ``data``;
    with ``"json"`` it is any JSON value (``orjson``; 422 ``json_invalid`` otherwise)."""
    declared = Declared(surface, plan, work, body, off_loop, check, errors, model)

    def wrap(endpoint: F) -> F:
        @functools.wraps(endpoint)
        async def runs(*args: Any, **kwargs: Any) -> Response:
            request = kwargs.get("request")
            if request is None:
                request = next(a for a in args if isinstance(a, Request))
            return await run(request, declared)

        setattr(runs, MARK, True)
        setattr(runs, DECLARED, declared)
        return runs  # type: ignore[return-value]

    return wrap


def declaration(endpoint: Callable[..., Any]) -> Declared | None:
    """The declaration of an endpoint made with ``declare`` (None otherwise)."""
    found: Declared | None = getattr(endpoint, DECLARED, None)
    return found


def _key(request: Request, declared: Declared, raw: bytes, gzip: bool) -> tuple[Any, ...]:
    """What was asked, as the cache's key: the method, path, query and body (a digest),
    gzip, and for pages the Host their absolute links are written from."""
    host = request.headers.get("host", "") if declared.surface in ("page", "embed") else ""
    digest = hashlib.blake2b(raw, digest_size=16).digest() if raw else b""
    scope = request.scope
    return (scope["method"], scope["path"], scope["query_string"], digest, gzip, host)


async def run(request: Request, declared: Declared) -> Response:
    """Steps 1-6 for ``request`` (see the module docstring)."""
    if declared.check is not None and (refusal := declared.check(request)) is not None:
        return refusal
    app = request.app
    gzip = "gzip" in request.headers.get("accept-encoding", "")
    try:
        raw = await read_limited(request, declared.body) if declared.body else b""
        query = dict(request.query_params)
        data = await _data(request, declared, raw)
        ask = Ask(request.path_params, query, raw, app.state.settings, gzip, data)
        cache: AnswerCache = app.state.answers
        answer, slot = await cache.shared(
            _key(request, declared, raw, gzip), lambda: _compute(request, declared, ask)
        )
    except FieldError as exc:
        if declared.errors is None:
            raise
        return declared.errors(request, exc)
    if slot is None:
        gate_of(request).priced += 1  # priced when it was computed
    return Sent(answer, slot, gate_of(request).send_seconds)


async def _data(request: Request, declared: Declared, raw: bytes) -> Any:
    if declared.model is None:
        return None
    if declared.model == "json":
        return json_body(raw)
    return await parse_body(request, declared.model, raw)


def _priced(request: Request, plan: Plan) -> Plan:
    check_cost(plan.cost, request.app.state.settings, plan.reduce, plan.status, plan.field)
    gate_of(request).priced += 1
    return plan


def _plan_and_work(request: Request, declared: Declared, ask: Ask) -> Answer:
    return declared.work(request, _priced(request, declared.plan(ask)))


async def _compute(request: Request, declared: Declared, ask: Ask) -> tuple[Answer, Slot | None]:
    """The answer and the slot it was computed under (None when it was small)."""
    gate = gate_of(request)
    if declared.off_loop:
        slot = await gate.acquire(NO_COST)
        call: Callable[..., Answer] = _plan_and_work
        args: tuple[Any, ...] = (request, declared, ask)
    else:
        plan = _priced(request, declared.plan(ask))
        if not is_heavy(plan.cost):
            return declared.work(request, plan), None
        slot = await gate.acquire(plan.cost)
        call, args = declared.work, (request, plan)
    try:
        answer = await anyio.to_thread.run_sync(call, *args, limiter=gate.threads)
    except BaseException:
        slot.release()
        raise
    return answer, slot
