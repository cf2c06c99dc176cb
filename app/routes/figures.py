"""``POST /api/v1/figures``: the same body as /attention plus ``view`` -> Figures 3–13.

Validate, run the engine, build plain figure dicts, encode with orjson. A plain ``def``
so the numpy and string work runs in the thread pool, not on the event loop.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from app.attention import InputError, run
from app.figures import build_figures, check_view
from app.routes.api import POST_ERRORS, JSONBytes
from app.schemas import check_limits
from app.schemas_figures import FiguresRequest, ViewRequest, check_figure_limits
from app.serialize import encode
from app.settings import Settings, get_settings

router = APIRouter(prefix="/api/v1", tags=["figures"])

SettingsDep = Annotated[Settings, Depends(get_settings)]


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
            "description": "A malformed input or a view outside the data; `detail` names it.",
        },
    },
)
def figures(
    body: FiguresRequest,
    settings: SettingsDep,
    draw: Annotated[
        Literal["plotly", "grids", "tables"],
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
    check_limits(body, settings)
    stages = run(body.to_input())
    check_figure_limits(stages, settings)
    view = (body.view or ViewRequest()).to_view(len(stages.tokens))
    problem = check_view(stages, view)
    if problem:
        raise InputError(*problem)
    payload = build_figures(stages, view, plotly=draw == "plotly", defer_tables=draw == "grids")
    state = body.model_dump(mode="json", exclude_none=True)
    state["view"] = {**state.get("view", {}), "focus": view.focus}
    payload["state"] = state
    return JSONBytes(encode(payload))
