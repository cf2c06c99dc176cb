"""API v1 for the labs "Order and position", "Many heads" and "Cost" (LABS.md §2):
``POST /api/v1/positional-encoding`` and ``POST /api/v1/cost``. Validate, call, serialise.

Both are declared to the one runner (``app.http.runner``): a body of a few numbers read
within ``SMALL_BODY_BYTES``, planned and priced in ``app.inputs.position_cost``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.body import body_doc
from app.http.responses import POST_ERRORS
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.plan import Plan
from app.inputs.position_cost import (
    SMALL_BODY_BYTES,
    CostRequest,
    CostResponse,
    PositionalRequest,
    PositionalResponse,
    cost_to_dict,
    plan_cost,
    plan_positional,
)
from app.labs.cost import cost
from app.labs.positional import sinusoidal
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["labs"], route_class=LeanRoute)

PE_EXAMPLES = {
    "running-example": {"summary": "3 positions × 4 (the running example's size)",
                        "value": {"positions": 3, "d_model": 4}},
    "heatmap": {"summary": "64 positions × 128, the E2 heatmap",
                "value": {"positions": 64, "d_model": 128, "base": 10000}},
}  # fmt: skip
COST_EXAMPLES = {
    "base-model": {"summary": "The original base model, N = 512", "value": {}},
    "long-context": {"summary": "N = 4096: past the crossover 2·d_model",
                     "value": {"n": 4096, "d_model": 512, "heads": 8}},
    "biases": {"summary": "Counting biases and LayerNorms", "value": {"biases": True}},
}  # fmt: skip


def _encoding(_: Request, plan: Plan) -> Answer:
    body: PositionalRequest = plan.args
    return Answer(encode({"pe": sinusoidal(body.positions, body.d_model, body.base)}))


def _cost(_: Request, plan: Plan) -> Answer:
    return Answer(encode(cost_to_dict(cost(plan.args))))


@router.post(
    "/positional-encoding",
    response_model=PositionalResponse,
    summary="Sinusoidal positional encoding",
    responses=POST_ERRORS,
    openapi_extra=body_doc(PositionalRequest, PE_EXAMPLES),
)
@declare("json", plan=plan_positional, work=_encoding, body=SMALL_BODY_BYTES,
         model=PositionalRequest)  # fmt: skip
async def positional_encoding(request: Request) -> Response:
    """PE(pos, 2i) = sin(pos / base^(2i/d_model)) and PE(pos, 2i+1) = cos(pos /
    base^(2i/d_model)) for pos = 0 … positions − 1: interleaved sines and cosines, the
    encoding the original transformer adds to X before the projections."""
    raise NotImplementedError  # run by app.http.runner


@router.post(
    "/cost",
    response_model=CostResponse,
    summary="FLOPs and parameters of a transformer",
    responses=POST_ERRORS,
    openapi_extra=body_doc(CostRequest, COST_EXAMPLES),
)
@declare("json", plan=plan_cost, work=_cost, body=SMALL_BODY_BYTES, model=CostRequest)
async def cost_of(request: Request) -> Response:
    """Multiply-adds of one multi-head attention layer by term (linear 4·N·d², quadratic
    2·N²·d, crossover at N = 2·d_model), the score table's size, and the parameters of
    one layer and the whole model. Exact integers, computed in constant time."""
    raise NotImplementedError  # run by app.http.runner
