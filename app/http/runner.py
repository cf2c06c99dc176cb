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
2. **plan** and **price** (``CostError``, a 4xx naming what to reduce; ``Gate.priced``
   counts it for the route walk), inline; an ``off_loop`` plan waits for step 4;
3. **shared**: the answer cache (``app.http.memo``), keyed by the canonical plan
   (``app.inputs.plan.digest`` of its arguments: key order, spacing, ``1`` vs ``1.0``
   and omitted defaults do not matter; an off-loop plan by the canonical query and body),
   answers an identical request at once, or lets it wait for the identical one in flight;
4. **admit**: heavy work waits in the gate's short queue for a slot
   (``Gate.acquire``; past ``queue_seconds`` a 503 with ``Retry-After`` from the queue);
5. **compute and encode** off the event loop, in a worker thread under the slot;
6. **send** in pieces within ``send_seconds`` (``app.http.sending.Sent``), the slot held
   until the last byte is sent or the deadline passes (the connection is then closed).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio.to_thread
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from app.http.admission import NO_COST, Slot, gate_of
from app.http.body import (
    content_length,
    json_body,
    number_bound,
    parse,
    parse_body,
    read_limited,
)
from app.http.memo import AnswerCache
from app.http.pipeline import MARK
from app.http.sending import PIECE_BYTES, Answer, Sent
from app.inputs.errors import FieldError
from app.inputs.limits import INLINE_BODY_BYTES, Cost, body_cost, check_cost, is_heavy
from app.inputs.plan import Ask, Plan, digest

Surface = Literal["json", "page", "embed", "stream", "file"]
APP_BODY_LIMIT = -1  # ``body=``: the app's own limit, ``Settings.max_body_bytes``
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
    budget: Callable[[int], Cost] | None = None
    budget_reduce: str = "the body"
    cache: bool = True


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
    budget: Callable[[int], Cost] | None = None,
    budget_reduce: str = "the body",
    cache: bool = True,
) -> Callable[[F], F]:
    """Declare the endpoint under it as run by this module (its body is not called).
    With ``model`` the body is parsed strictly as that pydantic model (the API's 422
    shape), documented in OpenAPI by ``body_doc``, and handed to the plan as ``data``;
    with ``"json"`` it is any JSON value (``orjson``; 422 ``json_invalid`` otherwise).
    A large body (over ``INLINE_BODY_BYTES``, or chunked) takes its heavy slot before it
    is read and keeps it for the work; ``budget(numbers)`` prices it by its number count
    before it is parsed (an over-budget answer says to reduce ``budget_reduce``).
    ``cache=False``: small answers are computed afresh, never keyed (a route whose usual
    answer costs less than its key; heavy work is still shared)."""
    declared = Declared(
        surface, plan, work, body, off_loop, check, errors, model, budget, budget_reduce, cache
    )

    def wrap(endpoint: F) -> F:
        @functools.wraps(endpoint)
        async def runs(*args: Any, **kwargs: Any) -> Response:
            # LeanRoute passes the request alone; FastAPI's handler by name.
            return await run(args[0] if args else kwargs["request"], declared)

        setattr(runs, MARK, True)
        setattr(runs, DECLARED, declared)
        return runs  # type: ignore[return-value]

    return wrap


def declaration(endpoint: Callable[..., Any]) -> Declared | None:
    """The declaration of an endpoint made with ``declare`` (None otherwise)."""
    found: Declared | None = getattr(endpoint, DECLARED, None)
    return found


def _key(request: Request, declared: Declared, what: bytes, gzip: bool) -> tuple[Any, ...]:
    """The cache's key: the method, path, ``what`` (the canonical plan's digest, or for an
    off-loop plan the canonical ask's), gzip, and for pages the Host their absolute links
    are written from."""
    page = declared.surface in ("page", "embed")
    host = request.headers.get("host", "") if page else ""
    scope = request.scope
    return (scope["method"], scope["path"], what, gzip, host)


async def run(request: Request, declared: Declared) -> Response:
    """Steps 1-6 for ``request`` (see the module docstring)."""
    if declared.check is not None and (refusal := declared.check(request)) is not None:
        return refusal
    app = request.app
    gate = gate_of(request)
    gzip = _takes_gzip(request)
    held = await _body_slot(request, declared)
    try:
        raw = await read_limited(request, _limit(request, declared)) if declared.body else b""
        query = dict(request.query_params) if request.scope["query_string"] else {}
        data = await _data(request, declared, raw, held)
        ask = Ask(request.path_params, query, raw, app.state.settings, gzip, data)
        if declared.off_loop:  # planning is work: keyed by the ask, planned once admitted
            plan = None
            what = digest((query, data))
        else:
            plan = _priced(request, declared.plan(ask))
            if held is None and not is_heavy(plan.cost):
                # Small work runs inline: no await between the lookup and the answer, so
                # no identical one can be in flight to wait for.
                if not declared.cache:  # the hot path of POST /api/v1/attention
                    return _sent(declared.work(request, plan), None, gate.send_seconds)
                key = _key(request, declared, digest(plan.args), gzip)
                answer = cache_of(request).inline(key, lambda: declared.work(request, plan))
                return _sent(answer, None, gate.send_seconds)
            what = digest(plan.args)
        answer, computed = await cache_of(request).shared(
            _key(request, declared, what, gzip),
            lambda: _compute(request, declared, ask, plan, held),
        )
    except FieldError as exc:
        if held is not None:
            held.release()
        if declared.errors is None:
            raise
        return declared.errors(request, exc)
    except BaseException:
        if held is not None:
            held.release()
        raise
    if computed is None:  # shared with an identical request
        if plan is None:  # priced when it was computed
            gate.priced += 1
        if held is not None:  # the body's slot is not needed for any work
            held.release()
        return _sent(answer, None, gate.send_seconds)
    return _sent(answer, computed[0], gate.send_seconds)


def _sent(answer: Answer, slot: Slot | None, seconds: float) -> Response:
    """``Sent`` under its deadline; a small answer with no slot is one plain response: it
    fits the transport's buffer in one write (never waits on a slow reader, so there is
    no deadline to keep) and the usual edit skips the deadline's cancel scope."""
    if slot is None and not answer.chunks and len(answer.body) <= PIECE_BYTES:
        headers = dict(answer.headers) if answer.headers else None
        return Response(answer.body, answer.status, headers, answer.media_type)
    return Sent(answer, slot, seconds)


def _takes_gzip(request: Request) -> bool:
    # The raw headers: building ``request.headers`` costs more than this scan.
    for name, value in request.scope["headers"]:
        if name == b"accept-encoding":
            return b"gzip" in value
    return False


def cache_of(request: Request) -> AnswerCache:
    cache: AnswerCache = request.app.state.answers
    return cache


def _limit(request: Request, declared: Declared) -> int:
    if declared.body == APP_BODY_LIMIT:
        limit: int = request.app.state.settings.max_body_bytes
        return limit
    return declared.body


async def _body_slot(request: Request, declared: Declared) -> Slot | None:
    """A heavy slot taken before a large body is read (its size, or the app's limit for a
    chunked one: ``content_length``), so large bodies in memory are counted too."""
    if not declared.body:
        return None
    cost = body_cost(min(content_length(request), _limit(request, declared)))
    return await gate_of(request).acquire(cost) if is_heavy(cost) else None


async def _data(request: Request, declared: Declared, raw: bytes, held: Slot | None) -> Any:
    model = declared.model
    if model is None:
        return None
    if model == "json":
        return json_body(raw)
    if declared.budget is not None and len(raw) > INLINE_BODY_BYTES:
        numbers = number_bound(raw)
        check_cost(declared.budget(numbers), request.app.state.settings, declared.budget_reduce)
    if held is not None:  # parsed under the body's slot, off the loop
        gate = gate_of(request)
        return await anyio.to_thread.run_sync(parse, model, raw, limiter=gate.threads)
    return await parse_body(request, model, raw)


async def shared(request: Request, make: Callable[[], Awaitable[Answer]]) -> Answer:
    """``make()``'s answer shared through the answer cache, keyed by the request (method,
    path, canonical query; no body): for routes that still sequence the pipeline themselves."""
    cache: AnswerCache = request.app.state.answers

    async def made() -> tuple[Answer, None]:
        return await make(), None

    scope = request.scope
    key = (scope["method"], scope["path"], digest(dict(request.query_params)), False, "")
    answer, _ = await cache.shared(key, made)
    return answer


def _priced(request: Request, plan: Plan) -> Plan:
    check_cost(plan.cost, request.app.state.settings, plan.reduce, plan.status, plan.field)
    gate_of(request).priced += 1
    return plan


def _plan_and_work(request: Request, declared: Declared, ask: Ask) -> Answer:
    return declared.work(request, _priced(request, declared.plan(ask)))


async def _compute(
    request: Request, declared: Declared, ask: Ask, plan: Plan | None, held: Slot | None
) -> tuple[Answer, tuple[Slot | None]]:
    """The answer and (the slot it was computed under,), in a worker thread (small work
    is answered inline by ``run``); ``held``, the body's slot, is used rather than taking
    another."""
    gate = gate_of(request)
    if plan is None:
        slot = held or await gate.acquire(NO_COST)
        call: Callable[..., Answer] = _plan_and_work
        args: tuple[Any, ...] = (request, declared, ask)
    else:
        slot = held or await gate.acquire(plan.cost)
        call, args = declared.work, (request, plan)
    try:
        answer = await anyio.to_thread.run_sync(call, *args, limiter=gate.threads)
    except BaseException:
        if slot is not held:
            slot.release()
        raise
    return answer, (slot,)
