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

from app.attention import InputError, run
from app.export.numpy_snippet import numpy_snippet
from app.export.tables import stages_csv_zip, stages_json
from app.routes.api import POST_ERRORS
from app.schemas import AttentionRequest, check_limits
from app.serialize import encode
from app.settings import Settings, get_settings
from app.share import Resolved, StateError, check_view, resolve_link, state_title
from app.state import VIEW_DEFAULTS, LinkState, parse_query

router = APIRouter(prefix="/api/v1", tags=["export"])

SettingsDep = Annotated[Settings, Depends(get_settings)]
FORMATS = ("json", "csv", "numpy")
FormatParam = Annotated[
    str,
    Query(
        description="json: every stage; csv: a zip with one CSV per matrix; numpy: a "
        "Python script (numpy only) that recomputes and prints every stage.",
        json_schema_extra={"enum": list(FORMATS)},
    ),
]
_VIEW_KEYS = tuple(VIEW_DEFAULTS)
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
        try:
            text = numpy_snippet(
                resolved.input, resolved.stages, resolved.link.view, resolved.title
            )
        except InputError as exc:
            raise StateError(exc.field, exc.message) from None
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
def export_link(request: Request, settings: SettingsDep, format: FormatParam = "json") -> Response:
    """Every stage of the state in a page URL's query (`preset=` or `s=`, `focus`, `head`,
    `stretch`, `row`) as JSON, a zip of CSVs, or a NumPy script. Blocked cells are null in
    JSON and `-inf` in CSV."""
    try:
        _check_format(format)
        return _answer(resolve_link(request.query_params, settings), format)
    except StateError as exc:
        return _error(exc)


@router.post(
    "/export",
    summary="Export a request body's stages",
    responses={**POST_ERRORS, **_RESPONSES},
)
def export_body(
    body: AttentionRequest, request: Request, settings: SettingsDep, format: FormatParam = "json"
) -> Response:
    """The same exports for an `AttentionRequest` body (the body of `POST /api/v1/attention`);
    view parameters (`focus`, `head`, `stretch`, `row`) come from the query."""
    try:
        _check_format(format)
        view_params = {k: v for k, v in request.query_params.items() if k in _VIEW_KEYS}
        link = LinkState(
            body=body.model_dump(exclude_unset=True), view=parse_query(view_params).view
        )
        check_limits(body, settings)  # shape errors below reach the API's 422 handler
        inp = body.to_input()
        stages = run(inp)
        check_view(link.view, stages)
        return _answer(Resolved(link, body, inp, stages, state_title(link)), format)
    except InputError as exc:
        if exc.field in _VIEW_KEYS:
            return _error(StateError(exc.field, exc.message))
        raise
    except StateError as exc:
        return _error(exc)
