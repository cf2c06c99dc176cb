"""``/api/v1/export``: every stage as JSON or a zip of CSVs, or a NumPy script.

``GET`` takes a page or embed URL's state (``preset=`` or ``s=``, plus view parameters);
``POST`` takes an ``AttentionRequest`` body (view parameters in the query). Both answer
the same bytes for the same state. Formats: ``json``, ``csv`` (zip), ``numpy``
(``text/x-python``, the "Copy as NumPy" script).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from app.export.numpy_scripts import numpy_snippet
from app.export.tables import stages_csv_zip, stages_json
from app.http.admission import admitted, gate_of
from app.http.body import body_doc, content_length, read_body
from app.http.params import link_params, view_params
from app.http.pipeline import compute, computes, price, priced
from app.http.responses import POST_ERRORS, SettingsDep
from app.http.routing import LeanRoute
from app.inputs.body import AttentionRequest, check_limits
from app.inputs.errors import FieldError
from app.inputs.limits import attention_cost, body_cost, input_cost, request_shape
from app.inputs.link import LinkState
from app.inputs.resolve import Plan, Resolved, StateError, make_plan, plan_link, resolve_plan
from app.inputs.view import ViewState
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["export"], route_class=LeanRoute)

FORMATS = ("json", "csv", "numpy")
FormatParam = Annotated[
    str,
    Query(
        description="json: every stage; csv: a zip with one CSV per matrix; numpy: a "
        "Python script (numpy only) that recomputes and prints every stage.",
        json_schema_extra={"enum": list(FORMATS)},
    ),
]
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"application/zip": {}, "text/x-python": {}},
        "description": "The export in the requested format.",
    },
    422: {"description": "A bad format, state or view parameter; `detail` names it."},
}


def _answer(resolved: Resolved, fmt: str) -> Response:
    state = resolved.link.body
    stem = f"attention-lab-{resolved.link.preset_id or 'state'}"
    if fmt == "csv":
        return Response(
            stages_csv_zip(resolved.stages, state),
            media_type="application/zip",
            headers={"content-disposition": f'attachment; filename="{stem}.zip"'},
        )
    if fmt == "numpy":
        text = numpy_snippet(resolved.input, resolved.stages, resolved.link.view, resolved.title)
        return Response(
            text,
            media_type="text/x-python; charset=utf-8",
            headers={"content-disposition": f'inline; filename="{stem}.py"'},
        )
    return Response(
        encode(stages_json(resolved.stages, state)),
        media_type="application/json",
        headers={"content-disposition": f'inline; filename="{stem}.json"'},
    )


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise StateError("format", f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def _error(exc: StateError) -> JSONResponse:
    return JSONResponse(status_code=422, content=exc.detail())


@router.get("/export", summary="Export a linked state's stages", responses=_RESPONSES)
@computes
async def export_link(
    request: Request,
    settings: SettingsDep,
    state: Annotated[dict[str, str], Depends(link_params)],
    format: FormatParam = "json",
) -> Response:
    """Every stage of the state in a page URL's query (`preset=` or `s=`, `focus`, `head`,
    `stretch`, `row`) as JSON, a zip of CSVs, or a NumPy script. Blocked cells are null in
    JSON and `-inf` in CSV."""
    try:
        _check_format(format)
        plan = plan_link(state, settings)
    except StateError as exc:
        return _error(exc)
    return await compute(request, priced(request, plan.cost), _export_plan, plan, format)


def _export_plan(plan: Plan, fmt: str) -> Response:
    try:
        return _answer(resolve_plan(plan), fmt)
    except StateError as exc:
        return _error(exc)


@router.post(
    "/export",
    summary="Export a request body's stages",
    responses={**POST_ERRORS, **_RESPONSES},
    openapi_extra=body_doc(AttentionRequest),
)
@computes
async def export_body(
    request: Request,
    settings: SettingsDep,
    view: Annotated[dict[str, str], Depends(view_params)],
    format: FormatParam = "json",
) -> Response:
    """The same exports for an `AttentionRequest` body (the body of `POST /api/v1/attention`);
    view parameters (`focus`, `head`, `stretch`, `row`) come from the query."""
    async with admitted(gate_of(request), body_cost(content_length(request))):
        body = await read_body(request, AttentionRequest, settings, input_cost)
        try:
            _check_format(format)
            link = LinkState(
                body=body.model_dump(exclude_unset=True), view=ViewState.from_query(view)
            )
        except FieldError as exc:
            return _error(StateError(exc.field, exc.message))
        except StateError as exc:
            return _error(exc)
        check_limits(body, settings)  # shape and cost errors reach the API's 422 handler
        shape = request_shape(body)
        cost = price(request, attention_cost(shape), shape.reduce, field=shape.field)
        plan = make_plan(link, body, shape, cost, "body")
        return await compute(request, cost, _export_plan, plan, format)
