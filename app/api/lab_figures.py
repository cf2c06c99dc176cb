"""API v1 for the lab pages' figures: ``/api/v1/labs/{lab_id}/…`` (JSON, NDJSON, NumPy).

* ``GET /api/v1/labs/{lab_id}/figures``: the figures a lab page asks for, as JSON; with
  ``Accept: application/x-ndjson`` (or at ``…/figures.ndjson``) progress lines while the
  experiments run, then the same answer.
* ``GET /api/v1/labs/{lab_id}/numpy/{figure}``: "Copy as NumPy" for one figure.

Every request takes the one pipeline (``app.http.pipeline``): the query parsed strictly
(``app.http.lab_answer.Ask``), every figure priced from its controls, the main-page state
it reads and its runs, then admitted (a slot for the whole answer, a stream's included;
503 with ``Retry-After`` before any byte) and built off the event loop. The old URLs
(``/labs/{id}/figures.json`` …) redirect here (``app.web.labs``). Errors are JSON, always.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from app.export.numpy_scripts import figure_script, has_script, numpy_script
from app.figures.labs import FigureContext, Lab, get_lab
from app.figures.style import theme as theme_named
from app.http.caching import cacheable
from app.http.lab_answer import Ask, PriceError, control_detail, progress_lines
from app.http.lab_state import (
    ADMIT_WAIT_S,
    JSON_KEYS,
    experiment_params,
    extra_keys,
    named_error,
    runner,
)
from app.http.pipeline import compute, computes, priced, stream
from app.http.responses import error_doc, settings_of
from app.http.runner import shared
from app.http.sending import Answer
from app.inputs.lab_controls import ControlError, check_unknown, figure_values, read_values
from app.inputs.lab_cost import figure_price
from app.wire import json_block

router = APIRouter(prefix="/api/v1/labs", tags=["labs"])

NDJSON = "application/x-ndjson"
LabId = Annotated[str, Path(description="A lab's id, e.g. one-query, why-scale, order.")]
Figures = Annotated[
    str | None, Query(description="Comma-separated figure names (default: every figure).")
]
Theme = Annotated[str | None, Query(description="light (default) or dark.")]
Preview = Annotated[str | None, Query(description="1: a small run (while a slider drags).")]
RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "`query` (the canonical page query), and per figure its description "
        "(`figures`), control values as URL text (`values`) and `links` (page link, iframe "
        'snippet, embed URL). With NDJSON: `{"progress": {"done", "total"}}` lines, '
        'then `{"result": …}` holding that answer.',
        "content": {"application/json": {}, NDJSON: {"schema": {"type": "string"}}},
    },
    404: error_doc("No such lab (or figure)."),
    422: error_doc(
        "A control's value is malformed, out of bounds or over the cost budget; `detail` "
        "names its URL key (`s` for the main-page state a figure reads)."
    ),
    503: error_doc("Every heavy-work slot is busy; retry after `Retry-After` seconds."),
}


def _error(key: str, message: str, status: int = 422) -> JSONResponse:
    return JSONResponse(status_code=status, content=control_detail(key, message))


def _lab(lab_id: str) -> Lab | JSONResponse:
    lab = get_lab(lab_id)
    if lab is None or lab.status != "ready":
        return _error("lab_id", f"there is no lab {lab_id!r} with figures", 404)
    return lab


async def _answer(lab_id: str, request: Request, ndjson: bool) -> Response:
    lab = _lab(lab_id)
    if isinstance(lab, JSONResponse):
        return lab
    try:
        ask = Ask(lab, request)
        cost = priced(request, ask.price())
    except (ControlError, PriceError) as exc:
        return _error(exc.key, exc.message)
    if ndjson:
        return await stream(request, cost, lambda slot: progress_lines(ask, slot), NDJSON,
                            headers={"cache-control": "no-store"}, wait=ADMIT_WAIT_S)  # fmt: skip

    async def answered() -> Answer:
        out = await compute(request, cost, ask.answer, wait=ADMIT_WAIT_S)
        return Answer(json_block(out).encode("utf-8"))

    try:
        # Seeded and deterministic for its URL: a class asking one lab section at once
        # computes it once (the answer cache), and an ETag lets a reloaded page
        # revalidate (304).
        shared_answer = await shared(request, answered)
    except ControlError as exc:
        return _error(exc.key, exc.message)
    # The same URL answers NDJSON to Accept: application/x-ndjson, hence Vary.
    answer = Response(shared_answer.body, media_type="application/json",
                      headers={"vary": "Accept"})  # fmt: skip
    return cacheable(answer)


@router.get("/{lab_id}/figures", summary="A lab's figures for a URL state", responses=RESPONSES)
@computes
async def lab_figures(
    lab_id: LabId, request: Request, figures: Figures = None, theme: Theme = None,
    preview: Preview = None,
) -> Response:  # fmt: skip
    """The figures of a lab page for the state in the query (each control's URL key, as
    on the page, plus `preset`/`s` for figures that read the main page's state). Send
    `Accept: application/x-ndjson` for progress lines while experiments run."""
    return await _answer(lab_id, request, NDJSON in request.headers.get("accept", ""))


@router.get(
    "/{lab_id}/figures.ndjson", summary="A lab's figures, with progress", responses=RESPONSES
)
@computes
async def lab_figures_ndjson(
    lab_id: LabId, request: Request, figures: Figures = None, theme: Theme = None,
    preview: Preview = None,
) -> Response:  # fmt: skip
    """The same answer as `figures` with `Accept: application/x-ndjson`."""
    return await _answer(lab_id, request, True)


@router.get(
    "/{lab_id}/numpy/{figure}",
    summary="Copy as NumPy: a standalone script for one lab figure",
    responses={**RESPONSES, 200: {"content": {"text/x-python": {}},
                                  "description": "A Python script (numpy only)."}},
)  # fmt: skip
@computes
async def lab_numpy(lab_id: LabId, figure: str, request: Request) -> Response:
    """A script (numpy only) that reruns the figure's seeded experiment, or recomputes a
    figure without one, for this state and prints the numbers the figure shows."""
    lab = _lab(lab_id)
    if isinstance(lab, JSONResponse):
        return lab
    fig = lab.figure(figure)
    if fig is None or (fig.runs is None and not has_script(fig)):
        return _error("figure", f"{lab_id} has no experiment figure {figure!r}", 404)
    params = {k: v for k, v in request.query_params.items() if k not in JSON_KEYS}
    settings = settings_of(request)

    def script() -> str:
        if has_script(fig):  # a figure without an experiment: its own script
            ctx = FigureContext(theme=theme_named("light"), run=runner(settings, fig, {}),
                                others=read_values(lab, fig, params))  # fmt: skip
            return figure_script(fig, values, ctx)
        assert fig.runs is not None
        runs = fig.runs(values, False)
        return "\n".join(numpy_script(experiment_params(fig, n, b)) for n, b in runs)

    try:
        check_unknown(lab, params, extra_keys(lab))
        values = figure_values(lab, fig, params)
        # Priced as the figure itself (a script holds at most the numbers it draws).
        cost = priced(request, figure_price(lab.id, fig.name, values).cost)
        text = await compute(request, cost, script, wait=ADMIT_WAIT_S)
    except ControlError as exc:
        return _error(named_error(lab, fig, exc).key, exc.message)
    return cacheable(Response(text, media_type="text/x-python; charset=utf-8"))
