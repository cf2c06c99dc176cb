"""API v1 experiments of the why-scale lab (LABS.md §2): score-variance, saturation and
scaling-table, each with a "Copy as NumPy" twin at ``…/numpy``.

**Seeded and byte-identical.** Each run draws from ``numpy.random.default_rng(seed)`` in
the order documented in ``app.labs.experiments``; the same body gives the same bytes.

**Bounded.** Before any work, ``experiment_cost`` prices the body in cells (numbers drawn
and softmaxed) and response bytes; past ``MAX_CELLS`` the answer is a 422 naming the
field to reduce. The work runs in the thread pool, never on the event loop.

**Progress (for a progress bar and a Cancel button).** Send ``Accept:
application/x-ndjson`` and the answer streams one JSON object per line:
``{"progress": {"done": 0, "total": N}}`` at once, then one ``progress`` line after each
block of draws (``done`` = 1…N), then ``{"result": …}`` whose value is byte for byte the
plain JSON answer. N is known before the run (``blocks_total``). To cancel, abort the
request (``AbortController``): the server stops at the next block boundary. Without that
header the answer is the plain JSON result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.labs.experiments import (
    Params,
    SaturationParams,
    ScoreVarianceParams,
    blocks_total,
    experiment_cells,
    iterate,
    response_bytes,
    run_experiment,
    steps,
)
from app.labs.scripts import numpy_script
from app.routes.api import POST_ERRORS, JSONBytes
from app.schemas_experiments import (
    SaturationRequest,
    SaturationResponse,
    ScalingTableRequest,
    ScalingTableResponse,
    ScoreVarianceRequest,
    ScoreVarianceResponse,
)
from app.serialize import encode

router = APIRouter(prefix="/api/v1/experiments", tags=["experiments"])

NDJSON = "application/x-ndjson"
# The most cells one run may cost: ~0.5 s of numpy on one core. Every body within the
# page's controls fits, e.g. saturation with 10,000 trials of 512 keys (15.4 M cells).
MAX_CELLS = 30_000_000
T = TypeVar("T")


@dataclass(frozen=True)
class Cost:
    """What a run costs: numbers drawn and softmaxed, and the JSON answer's size."""

    cells: int
    response_bytes: int


def experiment_cost(p: Params) -> Cost:
    return Cost(experiment_cells(p), response_bytes(p))


def _reduce_hint(p: Params) -> tuple[str, str]:
    """The field to name in a 422 and what to reduce."""
    if isinstance(p, ScoreVarianceParams):
        return "draws", "reduce draws or the number of widths in d_ks"
    if isinstance(p, SaturationParams):
        return "trials", "reduce trials or keys"
    return "draws", "reduce draws, keys or the number of widths in d_ks"


def over_budget(p: Params) -> JSONResponse | None:
    """A 422 naming what to reduce when the run costs more than ``MAX_CELLS``, else None."""
    cost = experiment_cost(p)
    if cost.cells <= MAX_CELLS:
        return None
    field, hint = _reduce_hint(p)
    msg = f"this run costs {cost.cells:,} cells, more than the limit of {MAX_CELLS:,}; {hint}"
    return JSONResponse(status_code=422, content={"detail": [
        {"field": field, "msg": msg, "type": "over_budget", "loc": ["body", field]}]})  # fmt: skip


async def offload(cost: Cost, fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(*args)`` off the event loop (the cost model's ``offload`` takes its place)."""
    return await run_in_threadpool(fn, *args)


async def _ndjson(p: Params) -> AsyncIterator[bytes]:
    """Progress lines, then the result line; each block runs in the thread pool."""
    yield encode({"progress": {"done": 0, "total": blocks_total(p)}}) + b"\n"
    items = iterate(steps(p))
    while True:
        item = await run_in_threadpool(next, items, None)
        if item is None:
            return
        if isinstance(item, tuple):
            yield encode({"progress": {"done": item[0], "total": item[1]}}) + b"\n"
        else:
            yield b'{"result":' + encode(item) + b"}\n"


def _encoded(p: Params) -> bytes:
    return encode(run_experiment(p))


async def _respond(p: Params, request: Request) -> Response:
    refused = over_budget(p)
    if refused is not None:
        return refused
    if NDJSON in request.headers.get("accept", ""):
        return StreamingResponse(_ndjson(p), media_type=NDJSON,
                                 headers={"cache-control": "no-store"})  # fmt: skip
    return JSONBytes(await offload(experiment_cost(p), _encoded, p))


def _script(p: Params) -> Response:
    return Response(numpy_script(p), media_type="text/x-python; charset=utf-8")


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


ScoreVarianceBody = Annotated[ScoreVarianceRequest, Body()]
SaturationBody = Annotated[SaturationRequest, Body()]
ScalingTableBody = Annotated[ScalingTableRequest, Body()]


@router.post("/score-variance", response_model=ScoreVarianceResponse, responses=_responses(),
             summary="C1: the variance of q·k over random draws")  # fmt: skip
async def score_variance(body: ScoreVarianceBody, request: Request) -> Response:
    """Per width in `d_ks`: `draws` random pairs q, k with i.i.d. N(0, 1) entries and
    s = q·k (drawn as s = ‖q‖·z with ‖q‖² ~ χ²(d_k), z ~ N(0, 1): the same distribution);
    mean, population variance, var/d_k, the variance of s/√d_k, and a histogram of raw s.
    Seeded and byte-identical; `Accept: application/x-ndjson` streams progress."""
    return await _respond(body.to_params(), request)


@router.post("/saturation", response_model=SaturationResponse, responses=_responses(),
             summary="C2: how often softmax goes one-hot, unscaled and scaled")  # fmt: skip
async def saturation(body: SaturationBody, request: Request) -> Response:
    """`trials` trials of one query against `keys` keys (width `d_k`, N(0, 1) entries).
    The same scores give p = softmax(s) and p′ = softmax(s/√d_k); each side reports the
    share of trials with p_max > threshold, the mean p_max, the mean p_max(1 − p_max) over
    saturated trials (null if none) and a histogram of p_max on [0, 1]."""
    return await _respond(body.to_params(), request)


@router.post("/scaling-table", response_model=ScalingTableResponse, responses=_responses(),
             summary="C3: spread, max weight and entropy over d_k")  # fmt: skip
async def scaling_table(body: ScalingTableBody, request: Request) -> Response:
    """Per width: `draws` draws of one query shared by `keys` keys. The spread (population
    std of a draw's raw scores), the max weight and entropy (bits) of softmax(s) and
    softmax(s/√d_k), averaged over the draws; `pooled_spread` is the population std of
    all raw scores of the width; `max_entropy_bits` = log₂ keys."""
    return await _respond(body.to_params(), request)


@router.post("/score-variance/numpy", responses=SCRIPT_RESPONSES,
             summary="C1 as a standalone NumPy script")  # fmt: skip
def score_variance_numpy(body: ScoreVarianceBody) -> Response:
    """Copy as NumPy: a script that prints this body's score-variance JSON."""
    return _script(body.to_params())


@router.post("/saturation/numpy", responses=SCRIPT_RESPONSES,
             summary="C2 as a standalone NumPy script")  # fmt: skip
def saturation_numpy(body: SaturationBody) -> Response:
    """Copy as NumPy: a script that prints this body's saturation JSON."""
    return _script(body.to_params())


@router.post("/scaling-table/numpy", responses=SCRIPT_RESPONSES,
             summary="C3 as a standalone NumPy script")  # fmt: skip
def scaling_table_numpy(body: ScalingTableBody) -> Response:
    """Copy as NumPy: a script that prints this body's scaling-table JSON."""
    return _script(body.to_params())
