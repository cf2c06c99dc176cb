"""API v1 for the labs "Order and position", "Many heads" and "Cost" (LABS.md §2):
``POST /api/v1/positional-encoding`` and ``POST /api/v1/cost``. Validate, call, serialise.

Bodies are read like every API body (``app.http.body.read_body``: a large one is parsed
off the event loop under admission); both answers are priced before any work.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.body import body_doc, read_body_admitted
from app.http.pipeline import compute, computes, price, priced
from app.http.responses import POST_ERRORS, JSONBytes, settings_of
from app.http.routing import LeanRoute
from app.inputs.limits import Cost
from app.inputs.position_cost import (
    CostRequest,
    CostResponse,
    PositionalRequest,
    PositionalResponse,
    cost_to_dict,
    positional_cost,
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


@router.post(
    "/positional-encoding",
    response_model=PositionalResponse,
    summary="Sinusoidal positional encoding",
    responses=POST_ERRORS,
    openapi_extra=body_doc(PositionalRequest, PE_EXAMPLES),
)
@computes
async def positional_encoding(request: Request) -> Response:
    """PE(pos, 2i) = sin(pos / base^(2i/d_model)) and PE(pos, 2i+1) = cos(pos /
    base^(2i/d_model)) for pos = 0 … positions − 1: interleaved sines and cosines, the
    encoding the original transformer adds to X before the projections."""
    settings = settings_of(request)
    body = await read_body_admitted(request, PositionalRequest, settings)
    body.check_limits(settings)
    cost = price(request, positional_cost(body.positions, body.d_model), "positions")

    def encoded() -> bytes:
        return encode({"pe": sinusoidal(body.positions, body.d_model, body.base)})

    return JSONBytes(await compute(request, cost, encoded))


@router.post(
    "/cost",
    response_model=CostResponse,
    summary="FLOPs and parameters of a transformer",
    responses=POST_ERRORS,
    openapi_extra=body_doc(CostRequest, COST_EXAMPLES),
)
@computes
async def cost_of(request: Request) -> Response:
    """Multiply-adds of one multi-head attention layer by term (linear 4·N·d², quadratic
    2·N²·d, crossover at N = 2·d_model), the score table's size, and the parameters of
    one layer and the whole model. Exact integers, computed in constant time."""
    body = await read_body_admitted(request, CostRequest, settings_of(request))
    # Exact integers in constant time: a few dozen multiplications whatever the sizes.
    priced(request, Cost(0, 0))
    return JSONBytes(encode(cost_to_dict(cost(body.config()))))
