"""``/api/v1/export``: every stage as JSON or a zip of CSVs, or a NumPy script; and files
drawn from the figures: ``/api/v1/export/figures.html`` (offline HTML of one or more
figures), ``/api/v1/export/figure.svg`` (a grid figure), ``/api/v1/labs/{id}/export.html``
and ``export.svg`` (a lab, or one of its figures).

``GET`` takes a page or embed URL's state (``preset=`` or ``s=``, plus view parameters);
``POST`` takes an ``AttentionRequest`` body (view parameters in the query). Both answer
the same bytes for the same state. Formats: ``json``, ``csv`` (zip), ``numpy``
(``text/x-python``, the "Copy as NumPy" script).

``/api/v1/export`` (GET and POST) and the main page's files are declared to the one
runner (``app.http.runner``), planned and priced in ``app.inputs.export_plan``; the lab
files still sequence the pipeline themselves (issue 25).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from app.export.documents import page_document, page_picture
from app.export.numpy_scripts import numpy_snippet
from app.export.tables import stages_csv_zip, stages_json
from app.http.body import body_doc
from app.http.lab_answer import Ask, control_detail
from app.http.lab_export import NoLabError, ask_for, lab_html, lab_named, lab_picture
from app.http.lab_state import ADMIT_WAIT_S
from app.http.params import link_params, view_params
from app.http.pipeline import compute, computes, priced
from app.http.responses import POST_ERRORS, SettingsDep, settings_of
from app.http.routing import LeanRoute
from app.http.runner import APP_BODY_LIMIT, declare
from app.http.sending import Answer
from app.inputs.body import AttentionRequest
from app.inputs.errors import FieldError
from app.inputs.export_plan import (
    FORMATS,
    RefusedStateError,
    plan_export_body,
    plan_export_link,
    plan_figure_svg,
    plan_figures_html,
)
from app.inputs.lab_controls import ControlError
from app.inputs.limits import input_cost
from app.inputs.plan import Plan
from app.inputs.resolve import Resolved, StateError, resolve_plan
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["export"], route_class=LeanRoute)

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


def _answer(resolved: Resolved, fmt: str) -> Answer:
    state = resolved.link.body
    stem = f"attention-lab-{resolved.link.preset_id or 'state'}"
    if fmt == "csv":
        return Answer(
            stages_csv_zip(resolved.stages, state),
            "application/zip",
            (("content-disposition", f'attachment; filename="{stem}.zip"'),),
        )
    if fmt == "numpy":
        text = numpy_snippet(resolved.input, resolved.stages, resolved.link.view, resolved.title)
        return Answer(
            text.encode(),
            "text/x-python; charset=utf-8",
            (("content-disposition", f'inline; filename="{stem}.py"'),),
        )
    return Answer(
        encode(stages_json(resolved.stages, state)),
        "application/json",
        (("content-disposition", f'inline; filename="{stem}.json"'),),
    )


def _error(exc: StateError) -> JSONResponse:
    return JSONResponse(status_code=422, content=exc.detail())


def _refused(request: Request, exc: FieldError) -> Response:
    """A refused state in the API's ``invalid_state`` shape; any other refusal goes to
    the app's handlers, as it did before the runner."""
    if isinstance(exc, RefusedStateError):
        return _error(exc.state)
    raise exc


def _as_answer(response: Response) -> Answer:
    """A refusal found while running (a view outside the stages) as the runner's answer."""
    return Answer(bytes(response.body), "application/json", (), response.status_code)


def _export_link(_: Request, plan: Plan) -> Answer:
    state, fmt = plan.args
    try:
        return _answer(resolve_plan(state), fmt)
    except StateError as exc:
        return _as_answer(_error(exc))


@router.get("/export", summary="Export a linked state's stages", responses=_RESPONSES)
@declare("json", plan=plan_export_link, work=_export_link, errors=_refused)
async def export_link(
    request: Request,
    settings: SettingsDep,
    state: Annotated[dict[str, str], Depends(link_params)],
    format: FormatParam = "json",
) -> Response:
    """Every stage of the state in a page URL's query (`preset=` or `s=`, `focus`, `head`,
    `stretch`, `row`) as JSON, a zip of CSVs, or a NumPy script. Blocked cells are null in
    JSON and `-inf` in CSV."""
    raise NotImplementedError  # run by app.http.runner


@router.post(
    "/export",
    summary="Export a request body's stages",
    responses={**POST_ERRORS, **_RESPONSES},
    openapi_extra=body_doc(AttentionRequest),
)
@declare("json", plan=plan_export_body, work=_export_link, body=APP_BODY_LIMIT,
         model=AttentionRequest, budget=input_cost, errors=_refused)  # fmt: skip
async def export_body(
    request: Request,
    settings: SettingsDep,
    view: Annotated[dict[str, str], Depends(view_params)],
    format: FormatParam = "json",
) -> Response:
    """The same exports for an `AttentionRequest` body (the body of `POST /api/v1/attention`);
    view parameters (`focus`, `head`, `stretch`, `row`) come from the query."""
    raise NotImplementedError  # run by app.http.runner


# ---- files drawn from the figures: offline HTML (several figures, one plotly.js) and SVG ----

FiguresParam = Annotated[
    str | None,
    Query(description="Which figures: a number 1 … 13, a comma-separated list, or all "
          "(the default: Figures 1–13 in one file).", examples=["7"]),
]  # fmt: skip
FigureParam = Annotated[
    str, Query(description="A figure drawn as number grids (3, 4, 6, 7, 8, 9, 11).", examples=["7"])
]
LabFiguresParam = Annotated[
    str | None,
    Query(description="Comma-separated lab figure names (the lab page's section ids); "
          "default: every figure of the lab.", examples=["mask-kinds"]),
]  # fmt: skip
LabThemeParam = Annotated[str | None, Query(description="light (default) or dark.")]
_FILE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {}, "image/svg+xml": {}}, "description": "The file."},
    404: {"description": "No such lab."},
    422: {"description": "A bad state, view, control or figure; `detail` names it."},
    503: {"description": "Every heavy-work slot is busy; retry after `Retry-After` seconds."},
}


def _file(body: str, media: str, name: str) -> Response:
    return Response(body, media_type=f"{media}; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{name}"'})  # fmt: skip


def _stem(resolved: Resolved) -> str:
    return f"attention-lab-{resolved.link.preset_id or 'state'}"


def _file_answer(body: str, media: str, name: str) -> Answer:
    return Answer(body.encode(), f"{media}; charset=utf-8",
                  (("content-disposition", f'attachment; filename="{name}"'),))  # fmt: skip


def _figures_html(request: Request, plan: Plan) -> Answer:
    state, numbers = plan.args
    try:
        resolved = resolve_plan(state)
        text = page_document(resolved, numbers, settings_of(request))
    except StateError as exc:
        return _as_answer(_error(exc))
    which = f"fig{numbers[0]}" if len(numbers) == 1 else "figures"
    return _file_answer(text, "text/html", f"{_stem(resolved)}-{which}.html")


@router.get("/export/figures.html", summary="Figures as one offline HTML file",
            responses=_FILE_RESPONSES)  # fmt: skip
@declare("file", plan=plan_figures_html, work=_figures_html, errors=_refused)
async def export_figures_html(
    request: Request,
    settings: SettingsDep,
    state: Annotated[dict[str, str], Depends(link_params)],
    figures: FiguresParam = None,
) -> Response:
    """Figures of a linked state as ONE self-contained HTML file that works offline:
    number grids as SVG, charts drawn by plotly.js (inlined once, and only when a chart
    is in the file), captions, readouts and the numbers as tables."""
    raise NotImplementedError  # run by app.http.runner


def _figure_svg(request: Request, plan: Plan) -> Answer:
    state, number = plan.args
    try:
        resolved = resolve_plan(state)
        picture = page_picture(resolved, number, settings_of(request))
    except StateError as exc:
        return _as_answer(_error(exc))
    return _file_answer(picture.svg, "image/svg+xml", f"{_stem(resolved)}-fig{number}.svg")


@router.get("/export/figure.svg", summary="A grid figure as SVG", responses=_FILE_RESPONSES)
@declare("file", plan=plan_figure_svg, work=_figure_svg, errors=_refused)
async def export_figure_svg(
    request: Request,
    settings: SettingsDep,
    state: Annotated[dict[str, str], Depends(link_params)],
    figure: FigureParam,
) -> Response:
    """A figure drawn as number grids, as an SVG laid out for its content (heading,
    grids, legend, caption): what the page's SVG button saves and its PNG button
    rasterises."""
    raise NotImplementedError  # run by app.http.runner


async def _lab_file(lab_id: str, request: Request, draw: Callable[[Ask], Response]) -> Response:
    try:
        ask = ask_for(lab_named(lab_id), request)
        cost = priced(request, ask.price())
    except NoLabError as exc:
        return JSONResponse(status_code=404, content=control_detail(exc.key, exc.message))
    except ControlError as exc:
        return JSONResponse(status_code=422, content=control_detail(exc.key, exc.message))
    return await compute(request, cost, draw, ask, wait=ADMIT_WAIT_S)


def _guarded(make: Callable[[Ask], Response]) -> Callable[[Ask], Response]:
    def draw(ask: Ask) -> Response:
        try:
            return make(ask)
        except ControlError as exc:
            return JSONResponse(status_code=422, content=control_detail(exc.key, exc.message))

    return draw


def _lab_name(ask: Ask) -> str:
    one = len(ask.figures) == 1 and len(ask.lab.figures) > 1
    return f"attention-lab-{ask.lab.id}" + (f"-{ask.figures[0].name}" if one else "")


@router.get("/labs/{lab_id}/export.html", summary="A lab (or some of its figures) as one "
            "offline HTML file", responses=_FILE_RESPONSES)  # fmt: skip
@computes
async def export_lab_html(
    lab_id: str, request: Request, figures: LabFiguresParam = None, theme: LabThemeParam = None
) -> Response:
    """The figures of a lab page for the state in the query (its controls' URL keys, as
    on the page), as one self-contained HTML file: grids as SVG, charts with one copy of
    plotly.js."""

    def draw(ask: Ask) -> Response:
        return _file(lab_html(ask), "text/html", f"{_lab_name(ask)}.html")

    return await _lab_file(lab_id, request, _guarded(draw))


@router.get("/labs/{lab_id}/export.svg", summary="A lab figure's number grids as SVG",
            responses=_FILE_RESPONSES)  # fmt: skip
@computes
async def export_lab_svg(
    lab_id: str, request: Request, figures: LabFiguresParam = None, theme: LabThemeParam = None
) -> Response:
    """One lab figure drawn as number grids (`figures` names it), as an SVG laid out for
    its content: what the lab page's SVG button saves and its PNG button rasterises."""

    def draw(ask: Ask) -> Response:
        return _file(lab_picture(ask).svg, "image/svg+xml", f"{_lab_name(ask)}.svg")

    return await _lab_file(lab_id, request, _guarded(draw))
