"""``POST /api/v1/figures``: the same body as /attention plus ``view`` -> Figures 3–13.

Read the body (``app.http.body``), check the figure limits and the cost model from the
shapes, then run the engine, build plain figure dicts and encode them with orjson, off
the event loop under the admission limit when heavy (``app.http.admission``).
"""

from __future__ import annotations

import gzip
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.attention import run
from app.figures import build_figures, check_view
from app.http.admission import admitted, gate_of
from app.http.body import body_doc, content_length, read_body
from app.http.pipeline import compute, computes, price
from app.http.responses import POST_ERRORS, JSONBytes, settings_of
from app.http.routing import LeanRoute
from app.inputs.body import check_limits
from app.inputs.errors import FieldError
from app.inputs.limits import body_cost, figures_cost, input_cost, request_shape
from app.inputs.view import FiguresRequest, ViewRequest, check_figure_shape
from app.settings import Settings
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["figures"], route_class=LeanRoute)

GZIP_MIN_BYTES = 1000


Draw = Literal["plotly", "grids", "tables"]


def _build(body: FiguresRequest, draw: Draw, gzip_ok: bool) -> Response:
    stages = run(body.to_input())
    view = (body.view or ViewRequest()).to_view(len(stages.tokens))
    problem = check_view(stages, view)
    if problem:
        raise FieldError(*problem)
    payload = build_figures(stages, view, plotly=draw == "plotly", defer_tables=draw == "grids")
    state = body.model_dump(mode="json", exclude_none=True)
    state["view"] = {**state.get("view", {}), "focus": view.focus}
    payload["state"] = state
    data = encode(payload)
    if not gzip_ok or len(data) < GZIP_MIN_BYTES:
        return JSONBytes(data)
    # Compressed here, in the worker thread (zlib releases the GIL), not by the gzip
    # middleware on the event loop: 15 MB of figure JSON takes ~40 ms to compress.
    headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
    return JSONBytes(gzip.compress(data, compresslevel=1, mtime=0), headers=headers)


@router.post(
    "/figures",
    summary="Figures 3–13 as data (grids and Plotly figures), computed from the state",
    responses={
        200: {
            "description": "`figures` keyed by number (each with title, caption, readout, alt, "
            "data, layout, config, tables, frames, derivations), `tokens`, `key_tokens`, "
            "`warnings`, `announce` and the normalised request as `state`.",
            "content": {"application/json": {}},
        },
        **POST_ERRORS,
        422: {
            **POST_ERRORS[422],
            "description": "A malformed input, a view outside the data, or a state too "
            "large to draw (`max_figure_tokens`, `max_figure_width`, the cost budget); "
            "`detail` names it.",
        },
    },
    openapi_extra=body_doc(FiguresRequest),
)
@computes
async def figures(
    request: Request,
    draw: Annotated[
        Draw,
        Query(
            description="`plotly` (default): every figure has Plotly `data` and `layout` "
            "(grid figures converted from their `panels`). `grids`: figures made of number "
            "grids carry only `panels` (grid descriptions: values, colours, labels, "
            "arithmetic), which the page draws itself; a lighter answer, in which grids "
            "shared by several figures are sent once (`grids`, referred to as `ref`) and "
            "the table alternatives of large grids are left out (`tables_deferred`). "
            "`tables`: as `grids`, with every table alternative.",
        ),
    ] = "plotly",
) -> Response:
    """Every figure's description: `panels` of number grids (values, per-cell colours,
    labels, the arithmetic of each cell) and, unless `draw=grids`, Plotly data and layout;
    captions, readouts and table alternatives, for the given inputs and view."""
    settings: Settings = settings_of(request)
    async with admitted(gate_of(request), body_cost(content_length(request))):
        body = await read_body(request, FiguresRequest, settings, input_cost)
        check_limits(body, settings)
        shape = request_shape(body)
        check_figure_shape(shape, settings)
        wanted = body.view.figures if body.view and body.view.figures else None
        cost = figures_cost(shape, len(set(wanted)) if wanted else 11)
        price(request, cost, shape.reduce, field=shape.field)
        gzip_ok = "gzip" in request.headers.get("accept-encoding", "")
        return await compute(request, cost, _build, body, draw, gzip_ok)
