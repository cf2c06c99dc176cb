"""API v1 experiments of the why-scale lab (LABS.md §2): score-variance, saturation and
scaling-table, each with a "Copy as NumPy" twin at ``…/numpy``.

**Seeded and byte-identical.** Each run draws from ``numpy.random.default_rng(seed)`` in
the order documented in ``app.labs.experiments``; the same body gives the same bytes.

**Bounded.** Before any work, ``check_experiment`` prices the body: the cost model's
``Cost`` (numbers held at once, response bytes) against the settings' budget, and the
work (numbers drawn and softmaxed) against ``MAX_CELLS``; over either, the answer is a 422
naming the field to reduce. The run goes through ``app.http.pipeline``: in a worker
thread under the per-worker limit (503 with Retry-After when every slot is taken); a
stream holds its slot for its whole life and is refused with 503 before its first byte.

**Progress (for a progress bar and a Cancel button).** Send ``Accept:
application/x-ndjson`` and the answer streams one JSON object per line:
``{"progress": {"done": 0, "total": N}}`` at once, then one ``progress`` line after each
block of draws (``done`` = 1…N), then ``{"result": …}`` whose value is byte for byte the
plain JSON answer. N is known before the run (``blocks_total``). To cancel, abort the
request (``AbortController``): the server stops at the next block boundary. Without that
header the answer is the plain JSON result.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from app.export.numpy_scripts import numpy_script
from app.http.admission import Slot
from app.http.body import body_doc, read_body_admitted
from app.http.pipeline import compute, computes, in_slot, priced, stream
from app.http.responses import POST_ERRORS, JSONBytes, settings_of
from app.http.routing import LeanRoute
from app.http.runner import APP_BODY_LIMIT, declare
from app.http.sending import Answer
from app.inputs.experiment_plan import plan_script
from app.inputs.experiments import (
    MAX_CELLS,
    SaturationRequest,
    SaturationResponse,
    ScalingTableRequest,
    ScalingTableResponse,
    ScoreVarianceRequest,
    ScoreVarianceResponse,
)
from app.inputs.limits import Cost, CostError, check_cost
from app.inputs.plan import Plan
from app.labs.experiments import (
    Params,
    SaturationParams,
    ScoreVarianceParams,
    blocks_total,
    experiment_cells,
    held_cells,
    iterate,
    response_bytes,
    run_experiment,
    steps,
)
from app.settings import Settings
from app.wire import encode

router = APIRouter(prefix="/api/v1/experiments", tags=["experiments"], route_class=LeanRoute)

NDJSON = "application/x-ndjson"
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=BaseModel)


def experiment_cost(p: Params) -> Cost:
    """The cost model's view: numbers held at once (blocks keep it small) and bytes."""
    return Cost(held_cells(p), response_bytes(p))


def _reduce(p: Params) -> tuple[str, str]:
    """The field to name in a 422 and what to reduce."""
    if isinstance(p, ScoreVarianceParams):
        return "draws", "draws or the number of widths in d_ks"
    if isinstance(p, SaturationParams):
        return "trials", "trials or keys"
    return "draws", "draws, keys or the number of widths in d_ks"


def check_experiment(p: Params, settings: Settings) -> Cost:
    """Refuse a run over budget (422 naming what to reduce); its cost for ``offload``,
    counted in work so that any real run leaves the event loop."""
    field, what = _reduce(p)
    cost = experiment_cost(p)
    check_cost(cost, settings, field, status=422)
    work = experiment_cells(p)
    if work > MAX_CELLS:
        raise CostError(
            field,
            f"this run draws and softmaxes {work:,} numbers, more than the limit of "
            f"{MAX_CELLS:,}; reduce {what}",
            status=422,
        )
    return Cost(work, cost.response_bytes)


async def _ndjson(p: Params, slot: Slot | None) -> AsyncIterator[bytes]:
    """Progress lines, then the result line. The stream holds its slot from before the
    first byte to the last (``app.http.pipeline.stream``); each block runs in a worker
    thread under it."""
    yield encode({"progress": {"done": 0, "total": blocks_total(p)}}) + b"\n"
    items = iterate(steps(p))
    while True:
        item = await in_slot(slot, next, items, None)
        if item is None:
            return
        if isinstance(item, tuple):
            yield encode({"progress": {"done": item[0], "total": item[1]}}) + b"\n"
        else:
            yield b'{"result":' + encode(item) + b"}\n"


def _encoded(p: Params) -> bytes:
    return encode(run_experiment(p))


async def _respond(p: Params, request: Request) -> Response:
    settings: Settings = settings_of(request)
    cost = priced(request, check_experiment(p, settings))
    if NDJSON in request.headers.get("accept", ""):
        # 503 with Retry-After before the first byte when every slot is taken.
        return await stream(request, cost, lambda slot: _ndjson(p, slot), NDJSON,
                            headers={"cache-control": "no-store"})  # fmt: skip
    return JSONBytes(await compute(request, cost, _encoded, p))


STREAM_DOC = {
    NDJSON: {
        "schema": {"type": "string"},
        "example": '{"progress":{"done":0,"total":40}}\n…\n{"result":{…}}\n',
    }
}
SCRIPT_RESPONSES: dict[int | str, dict[str, Any]] = {
    **POST_ERRORS,
    200: {"content": {"text/x-python": {"schema": {"type": "string"}}},
          "description": "A standalone Python script (numpy only) printing the same JSON."},
}  # fmt: skip


def _responses() -> dict[int | str, dict[str, Any]]:
    ok = "The result (JSON); with Accept: application/x-ndjson, progress lines, then it."
    return {**POST_ERRORS, 200: {"content": STREAM_DOC, "description": ok}}


PROGRESS_DOC = """

**Progress.** With `Accept: application/x-ndjson` the answer is one JSON object per
line: `{"progress": {"done": 0, "total": N}}` at once, one more after each block of draws
(`done` = 1…N), then `{"result": …}` holding exactly the bytes of the plain answer. Abort
the request to cancel: the server stops at the next block."""


EXAMPLES: dict[type[BaseModel], dict[str, Any]] = {
    ScoreVarianceRequest: {
        "page": {"summary": "The page's default: d_k = 64, 20,000 draws",
                 "value": {"d_ks": [64], "draws": 20000, "seed": 0, "bins": 60}},
        "course-module": {"summary": "Reproduce the course module: 4 widths × 200,000 draws",
                          "value": {"d_ks": [32, 64, 128, 256], "draws": 200000, "seed": 0}},
        "slider": {"summary": "A quick run while a slider moves: 2,000 draws",
                   "value": {"d_ks": [256], "draws": 2000}},
    },
    SaturationRequest: {
        "course-module": {"summary": "The course module's setting: d_k 128, 64 keys, 500 trials",
                          "value": {"d_k": 128, "keys": 64, "trials": 500, "threshold": 0.99,
                                    "seed": 0}},
        "narrow": {"summary": "d_k = 16: fewer saturated trials",
                   "value": {"d_k": 16, "keys": 64, "trials": 500}},
    },
    ScalingTableRequest: {
        "textbook": {"summary": "The textbook's table: 5 widths, 8 keys, 200 draws",
                     "value": {"d_ks": [4, 16, 64, 256, 1024], "keys": 8, "draws": 200,
                               "seed": 0}},
        "more-draws": {"summary": "The same with 5,000 draws: steadier averages",
                       "value": {"draws": 5000, "seed": 1}},
    },
}  # fmt: skip


def _experiment(
    path: str, request: type[BaseModel], response: type[BaseModel], summary: str
) -> Callable[[F], F]:
    """``router.post`` for an experiment: its docstring plus the progress protocol, and
    its body documented (routes read bodies with ``read_body``)."""

    def wrap(fn: F) -> F:
        doc = inspect.cleandoc(fn.__doc__ or "") + PROGRESS_DOC
        return router.post(path, response_model=response, responses=_responses(),
                           summary=summary, description=doc,
                           openapi_extra=body_doc(request, EXAMPLES[request]))(fn)  # fmt: skip

    return wrap


def _script_route(path: str, request: type[BaseModel], summary: str) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        return router.post(path, responses=SCRIPT_RESPONSES, summary=summary,
                           openapi_extra=body_doc(request, EXAMPLES[request]))(fn)  # fmt: skip

    return wrap


async def _read(request: Request, model: type[M]) -> M:
    """The body, read under admission control (a large body is refused by its number count
    before parsing, and parsed off the event loop)."""
    settings: Settings = settings_of(request)
    return await read_body_admitted(request, model, settings, lambda n: Cost(n, 0))


def _script(_: Request, plan: Plan) -> Answer:
    """A NumPy script: text from a template (a few KB, no draw runs here)."""
    text = numpy_script(plan.args)
    return Answer(text.encode(), "text/x-python; charset=utf-8")


def _declared_script(model: type[BaseModel]) -> Callable[[F], F]:
    """A script route declared to the runner: the body parsed as ``model`` within the
    app's body limit (a large one refused by its number count before parsing)."""
    return declare("json", plan=plan_script, work=_script, body=APP_BODY_LIMIT, model=model,
                   budget=_body_budget)  # fmt: skip


def _body_budget(numbers: int) -> Cost:
    """A body of ``numbers`` numbers, before parsing: that many numbers held."""
    return Cost(numbers, 0)


@_experiment("/score-variance", ScoreVarianceRequest, ScoreVarianceResponse,
             "C1: the variance of q·k over random draws")  # fmt: skip
@computes
async def score_variance(request: Request) -> Response:
    """Per width in `d_ks`: `draws` random pairs q, k with i.i.d. N(0, 1) entries and
    s = q·k (drawn as s = ‖q‖·z with ‖q‖² ~ χ²(d_k), z ~ N(0, 1): the same distribution);
    mean, population variance, var/d_k, the variance of s/√d_k, and a histogram of raw s.
    Seeded and byte-identical."""
    body = await _read(request, ScoreVarianceRequest)
    return await _respond(body.to_params(), request)


@_experiment("/saturation", SaturationRequest, SaturationResponse,
             "C2: how often softmax goes one-hot")  # fmt: skip
@computes
async def saturation(request: Request) -> Response:
    """`trials` trials of one query against `keys` keys (width `d_k`, N(0, 1) entries).
    The same scores give p = softmax(s) and p′ = softmax(s/√d_k); each side reports the
    share of trials with p_max > threshold, the mean p_max, the mean p_max(1 − p_max) over
    saturated trials (null if none) and a histogram of p_max on [0, 1]."""
    body = await _read(request, SaturationRequest)
    return await _respond(body.to_params(), request)


@_experiment("/scaling-table", ScalingTableRequest, ScalingTableResponse,
             "C3: spread, max weight, entropy over d_k")  # fmt: skip
@computes
async def scaling_table(request: Request) -> Response:
    """Per width: `draws` draws of one query shared by `keys` keys. The spread (population
    std of a draw's raw scores), the max weight and entropy (bits) of softmax(s) and
    softmax(s/√d_k), averaged over the draws; `pooled_spread` is the population std of
    all raw scores of the width; `max_entropy_bits` = log₂ keys."""
    body = await _read(request, ScalingTableRequest)
    return await _respond(body.to_params(), request)


@_script_route("/score-variance/numpy", ScoreVarianceRequest, "C1 as a standalone NumPy script")
@_declared_script(ScoreVarianceRequest)
async def score_variance_numpy(request: Request) -> Response:
    """Copy as NumPy: a script that prints this body's score-variance JSON."""
    raise NotImplementedError  # run by app.http.runner


@_script_route("/saturation/numpy", SaturationRequest, "C2 as a standalone NumPy script")
@_declared_script(SaturationRequest)
async def saturation_numpy(request: Request) -> Response:
    """Copy as NumPy: a script that prints this body's saturation JSON."""
    raise NotImplementedError  # run by app.http.runner


@_script_route("/scaling-table/numpy", ScalingTableRequest, "C3 as a standalone NumPy script")
@_declared_script(ScalingTableRequest)
async def scaling_table_numpy(request: Request) -> Response:
    """Copy as NumPy: a script that prints this body's scaling-table JSON."""
    raise NotImplementedError  # run by app.http.runner
