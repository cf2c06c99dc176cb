"""The lab pages: ``GET /labs`` (index), ``GET /labs/{id}`` (a lab), ``GET
/labs/{id}/figures.json`` (figure descriptions for the page's script) and ``GET
/embed/labs/{id}/{figure}`` (one figure for an iframe).

The labs and their figures are data in ``app.figures.labs``; this module parses the URL
state (``base.figure_values``), hands builders the computations they may use
(``attention``: a request body -> the engine's Stages, validated and limited as the API
does) and renders. A bad link never yields a 500: the page opens with the defaults and a
message naming the key; the JSON answers 422 in the API's error shape; an unknown lab or
figure is an HTML 404.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, Literal
from urllib.parse import urlencode

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from markupsafe import Markup

from app.export.numpy_scripts import figure_script, has_script, numpy_script
from app.figures.labs import LABS, FigureContext, Lab, LabFigure, get_lab
from app.figures.labs.base import BODY_KEYS, state_query
from app.figures.style import theme as theme_named
from app.figures.to_plotly import with_export
from app.http.admission import BusyError, offload
from app.http.responses import settings_of
from app.inputs.errors import error_detail
from app.inputs.lab_controls import ControlError, check_unknown, figure_values, read_values
from app.inputs.limits import Cost
from app.labs.experiments import (
    blocks_total,
    experiment_cells,
    iterate,
    steps,
)
from app.paths import templates_dir
from app.settings import Settings
from app.web.errors import embed_error_page
from app.web.lab_state import (
    ADMIT_POLL_S,
    ADMIT_WAIT_S,
    ANSWER_COST,
    JSON_KEYS,
    RESPONSE_BYTES,
    Results,
    T,
    body_cost,
    body_of,
    build_one,
    experiment_params,
    extra_keys,
    lab_query,
    links,
    named_error,
    run_key,
    runner,
    theme_of,
    values_text,
)
from app.web.templating import templates
from app.wire import json_block

router = APIRouter(include_in_schema=False)


def _not_found(request: Request, what: str) -> HTMLResponse:
    page: HTMLResponse = templates.TemplateResponse(
        request, "labs/not_found.html", {"what": what, "labs": LABS}, status_code=404
    )
    return page


@router.get("/labs", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    """Every lab with its one-line summary and picture; the coming ones are marked."""
    page: HTMLResponse = templates.TemplateResponse(request, "labs/index.html", {"labs": LABS})
    return page


def _page_state(
    lab: Lab, params: dict[str, str], settings: Settings
) -> tuple[dict[str, str], str | None]:
    """The usable query and a message when the link had a bad key or value (those keys
    are dropped, so the page opens on their defaults)."""
    problems: list[str] = []
    for _ in range(len(params) + 1):
        try:
            check_unknown(lab, params, extra_keys(lab))
            theme_of(params)
            lab_query(lab, params)
            if extra_keys(lab) & set(BODY_KEYS):
                body_of(params, settings)
            break
        except ControlError as exc:
            problems.append(f"{exc.key}: {exc.message}")
            params.pop(exc.key, None)
    message = None
    if problems:
        message = (
            "Part of this link could not be used ("
            + "; ".join(problems)
            + "), so those controls show their defaults."
        )
    return params, message


@router.get("/labs/{lab_id}", response_class=HTMLResponse)
def lab_page(lab_id: str, request: Request) -> HTMLResponse:
    """One lab: its controls and figures for the state in the query."""
    lab = get_lab(lab_id)
    if lab is None:
        return _not_found(request, f"There is no lab “{lab_id}”.")
    params, problem = _page_state(lab, dict(request.query_params), settings_of(request))
    theme = params.get("theme", "auto")
    keys = lab.keys()
    values = {f.name: figure_values(lab, f, params) for f in lab.figures}
    initial = {
        "lab": lab.id,
        "query": lab_query(lab, params),
        "problem": problem,
        "figures": [f.name for f in lab.figures],
        "reads": {f.name: list(f.reads) for f in lab.figures if f.reads},
        "controls": {
            f.name: [dict(c.describe(), key=keys[(f.name, c.name)]) for c in f.controls]
            for f in lab.figures
        },
    }
    context = {
        "lab": lab,
        "keys": keys,
        "values": values,
        "problem": problem,
        "initial": Markup(json_block(initial)),
        "view": {"theme": theme},
        "labs": LABS,
    }
    template = f"labs/{lab.id}.html" if lab.status == "ready" else "labs/coming.html"
    if not (templates_dir() / template).is_file():  # no page of its own: the generic one
        template = "labs/lab.html"
    page: HTMLResponse = templates.TemplateResponse(request, template, context)
    return page


def _error(key: str, message: str, status: int = 422) -> JSONResponse:
    body = error_detail(key, message, "invalid_control", ["query", key])
    return JSONResponse(status_code=status, content=body)


class Ask:
    """A checked figures request: the lab, the figures asked for and their state."""

    def __init__(self, lab: Lab, request: Request) -> None:
        params = dict(request.query_params)
        check_unknown(lab, params, JSON_KEYS | extra_keys(lab))
        names = [n for n in params.get("figures", "").split(",") if n]
        unknown = [n for n in names if lab.figure(n) is None]
        if unknown:
            raise ControlError("figures", f"the lab has no figure {unknown[0]!r}")
        self.lab, self.request = lab, request
        self.figures = [f for f in lab.figures if not names or f.name in names]
        self.theme: Literal["light", "dark"] = "dark" if params.get("theme") == "dark" else "light"
        self.preview = params.get("preview") == "1"
        self.state = {k: v for k, v in params.items() if k not in JSON_KEYS}
        self.query = lab_query(lab, self.state)  # checks every control's value
        self.settings: Settings = settings_of(request)

    def runs(self) -> list[tuple[LabFigure, str, dict[str, Any]]]:
        """The experiment runs the figures need, in order."""
        out = []
        for fig in self.figures:
            if fig.runs is not None:
                values = figure_values(self.lab, fig, self.state)
                out += [(fig, name, body) for name, body in fig.runs(values, self.preview)]
        return out

    def cost(self) -> Cost:
        """What answering costs (the admission gate's measure): the experiments' cells, and
        a main-page state's attention for the figures that read one."""
        cells = 0
        for fig, name, run_body in self.runs():
            try:
                cells += experiment_cells(experiment_params(fig, name, run_body))
            except ControlError as exc:
                raise named_error(self.lab, fig, exc) from None
        total = Cost(cells, RESPONSE_BYTES * len(self.figures))
        for _ in (f for f in self.figures if f.uses_body):
            total = total + body_cost(self.state, self.settings)
        return total

    def answer(self, results: Results | None = None) -> dict[str, Any]:
        """The figures, their values as URL text, links and embed snippets."""
        out: dict[str, Any] = {"query": self.query, "figures": {}, "values": {}, "links": {}}
        for fig in self.figures:
            out["figures"][fig.name] = with_export(
                build_one(
                    self.lab,
                    fig,
                    self.state,
                    self.theme,
                    self.settings,
                    preview=self.preview,
                    results=results,
                ),
                self.theme,
            )
            values = figure_values(self.lab, fig, self.state)
            out["values"][fig.name] = values_text(self.lab, fig, values)
            out["links"][fig.name] = links(self.request, self.lab, fig, self.query)
        return out


def _lab_or_404(lab_id: str) -> Lab | JSONResponse:
    lab = get_lab(lab_id)
    if lab is None or lab.status != "ready":
        return _error("lab_id", f"there is no lab {lab_id!r} with figures", 404)
    return lab


@router.get("/labs/{lab_id}/figures.json")
async def figures_json(lab_id: str, request: Request) -> Response:
    """The figures the page asks for (``figures=a,b``; default all), in ``theme`` (light
    or dark), as a small run with ``preview=1``; plus the canonical query and each
    figure's link and embed snippet. Runs in the thread pool (a plain ``def``)."""
    lab = _lab_or_404(lab_id)
    if isinstance(lab, JSONResponse):
        return lab
    try:
        ask = Ask(lab, request)
        out = await admitted_run(ask.cost(), ask.answer)
    except ControlError as exc:
        return _error(exc.key, exc.message)
    return Response(json_block(out), media_type="application/json")


async def admitted_run(cost: Cost, fn: Callable[..., T], *args: Any) -> T:
    """``offload`` that waits up to ADMIT_WAIT_S for a heavy slot, then raises BusyError."""
    waited = 0.0
    while True:
        try:
            return await offload(cost, fn, *args)
        except BusyError:
            if waited >= ADMIT_WAIT_S:
                raise
            await anyio.sleep(ADMIT_POLL_S)
            waited += ADMIT_POLL_S


def _line(payload: dict[str, Any]) -> bytes:
    return json_block(payload).encode() + b"\n"


def _detail(field: str, msg: str, kind: str) -> dict[str, Any]:
    return error_detail(field, msg, kind, ["query", field])


async def _stream(ask: Ask) -> AsyncIterator[bytes]:
    """Progress lines while the experiments run (one block at a time, off the event loop
    under the admission gate; a closed connection stops the run at the next block), then
    the figures, or a ``detail`` line (a bad value, or the server busy)."""
    results: Results = {}
    plans = [(f, n, b, experiment_params(f, n, b)) for f, n, b in ask.runs()]
    total = sum(blocks_total(p) for *_, p in plans) or 1
    done = 0
    yield _line({"progress": {"done": 0, "total": total}})
    try:
        for _fig, name, body, p in plans:
            items = iterate(steps(p))
            block = Cost(experiment_cells(p) // blocks_total(p), 0)  # small blocks run inline
            while isinstance(item := await admitted_run(block, next, items, None), tuple):
                done += 1
                yield _line({"progress": {"done": done, "total": total}})
            if item is not None:
                results[run_key(name, body)] = item
        yield _line({"result": await admitted_run(ANSWER_COST, ask.answer, results)})
    except ControlError as exc:
        yield _line(_detail(exc.key, exc.message, "invalid_control"))
    except BusyError as exc:
        yield _line(_detail("body", str(exc), "busy"))


@router.get("/labs/{lab_id}/figures.ndjson")
def figures_stream(lab_id: str, request: Request) -> Response:
    """The same answer as figures.json, after progress lines: ``{"progress": {"done",
    "total"}}`` per block of the experiments, then ``{"result": …}`` (or ``{"detail":
    …}``). The page uses it for full runs, to show a progress bar and a Cancel button."""
    lab = _lab_or_404(lab_id)
    if isinstance(lab, JSONResponse):
        return lab
    try:
        ask = Ask(lab, request)
        for fig, name, body in ask.runs():
            try:
                experiment_params(fig, name, body)  # refuse before streaming
            except ControlError as exc:
                raise named_error(lab, fig, exc) from None
    except ControlError as exc:
        return _error(exc.key, exc.message)
    return StreamingResponse(
        _stream(ask), media_type="application/x-ndjson", headers={"cache-control": "no-store"}
    )


@router.get("/labs/{lab_id}/numpy/{figure}")
def numpy_export(lab_id: str, figure: str, request: Request) -> Response:
    """“Copy as NumPy”: a standalone script (numpy only) that reruns the figure's seeded
    experiment for this state and prints the numbers the figure shows."""
    lab = _lab_or_404(lab_id)
    if isinstance(lab, JSONResponse):
        return lab
    fig = lab.figure(figure)
    if fig is None or (fig.runs is None and not has_script(fig)):
        return _error("figure", f"{lab_id} has no experiment figure {figure!r}", 404)
    params = {k: v for k, v in request.query_params.items() if k not in JSON_KEYS}
    try:
        check_unknown(lab, params, extra_keys(lab))
        values = figure_values(lab, fig, params)
        if has_script(fig):  # a figure without an experiment: its own script
            settings: Settings = settings_of(request)
            ctx = FigureContext(
                theme=theme_named("light"),
                run=runner(settings, fig, {}),
                others=read_values(lab, fig, params),
            )
            return Response(
                figure_script(fig, values, ctx), media_type="text/x-python; charset=utf-8"
            )
        assert fig.runs is not None
        scripts = [numpy_script(experiment_params(fig, n, b)) for n, b in fig.runs(values, False)]
    except ControlError as exc:
        return _error(named_error(lab, fig, exc).key, exc.message)
    return Response("\n".join(scripts), media_type="text/x-python; charset=utf-8")


@router.get("/embed/labs/{lab_id}/{figure}", response_class=HTMLResponse)
def embed(lab_id: str, figure: str, request: Request) -> Response:
    """One lab figure for an iframe, in the state of the query (page keys or bare control
    names); ``theme=auto`` sends both colour schemes so it follows the host."""
    lab = get_lab(lab_id)
    fig = lab.figure(figure) if lab is not None else None
    if lab is None or fig is None or lab.status != "ready":
        known = ", ".join(f"{lb.id}/{f.name}" for lb in LABS for f in lb.figures)
        return embed_error_page(
            request, 404, "figure", f"there is no lab figure {lab_id}/{figure}; embeddable: {known}"
        )
    params = dict(request.query_params)
    settings: Settings = settings_of(request)
    controls = params.pop("controls", "0")
    if controls not in ("0", "1"):
        return embed_error_page(request, 400, "controls", "controls must be 1 (show them) or 0")
    try:
        theme = theme_of(params)
        themes: tuple[str, ...] = ("light", "dark") if theme == "auto" else (theme,)
        specs = {t: build_one(lab, fig, params, t, settings, embed=True) for t in themes}
        values = figure_values(lab, fig, params, embed=True)
    except ControlError as exc:
        return embed_error_page(request, 400, exc.key, exc.message)
    page_query = state_query(lab, {fig.name: values, **read_values(lab, fig, params, embed=True)})
    open_url = (
        f"/labs/{lab.id}" + (f"?{urlencode(page_query)}" if page_query else "") + f"#{fig.name}"
    )
    keys = lab.keys()
    data = {
        "lab": lab.id,
        "figure": fig.name,
        "theme": theme,
        "specs": specs,
        # controls=1: the figure's controls; an edit asks figures.json (page keys) again
        "controls": [dict(c.describe(), key=keys[(fig.name, c.name)]) for c in fig.controls]
        if controls == "1"
        else None,
        "extra": {k: params[k] for k in BODY_KEYS if fig.uses_body and params.get(k)},
    }
    context = {
        "lab": lab,
        "fig": fig,
        "spec": next(iter(specs.values())),
        "theme": theme,
        "data": Markup(json_block(data)),
        "open_url": open_url,
        "controls": controls == "1",
        "keys": keys,
        "values": values,
    }
    page: Response = templates.TemplateResponse(request, "labs/embed.html", context)
    return page
