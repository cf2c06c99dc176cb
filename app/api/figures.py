"""``POST /api/v1/figures``: the same body as /attention plus ``view`` -> Figures 3–13.

Declared to the one runner (``app.http.runner``): the body read within the app's limit
(a large one under its slot, priced by its number count before parsing), the figure
limits and the cost model checked from the shapes (``app.inputs.figures_plan``), then
the engine run, plain figure dicts built and encoded with orjson, off the event loop when
heavy; an identical state (a class on one lesson step) shares the answer.
"""

from __future__ import annotations

import gzip
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.attention import run
from app.figures import build_figures, check_view
from app.http.body import body_doc
from app.http.responses import POST_ERRORS
from app.http.routing import LeanRoute
from app.http.runner import APP_BODY_LIMIT, declare
from app.http.sending import Answer
from app.inputs.errors import FieldError
from app.inputs.figures_plan import plan_figures
from app.inputs.limits import input_cost
from app.inputs.plan import Plan
from app.inputs.view import FiguresRequest, ViewRequest
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["figures"], route_class=LeanRoute)

GZIP_MIN_BYTES = 1000


Draw = Literal["plotly", "grids", "tables"]


def _build(_: Request, plan: Plan) -> Answer:
    body, draw, gzip_ok = plan.args
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
        return Answer(data)
    # Compressed here, in the worker thread (zlib releases the GIL), not by the gzip
    # middleware on the event loop: 15 MB of figure JSON takes ~40 ms to compress.
    headers = (("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding"))
    return Answer(gzip.compress(data, compresslevel=1, mtime=0), headers=headers)


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
@declare("json", plan=plan_figures, work=_build, body=APP_BODY_LIMIT, model=FiguresRequest,
         budget=input_cost)  # fmt: skip
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
    raise NotImplementedError  # run by app.http.runner
