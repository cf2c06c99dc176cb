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

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Literal, TypeVar
from urllib.parse import urlencode

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from markupsafe import Markup
from pydantic import ValidationError

from app.admission import BusyError, offload
from app.attention import InputError, run
from app.export.html import json_block
from app.figures.labs import LABS, FigureContext, Lab, LabFigure, get_lab
from app.figures.labs.base import (
    BODY_KEYS,
    check_unknown,
    figure_values,
    read_values,
    state_query,
    with_export,
)
from app.figures.labs.controls import ControlError
from app.figures.style import theme as theme_named
from app.inputs.limits import Cost
from app.labs.experiments import (
    Params,
    blocks_total,
    experiment_cells,
    iterate,
    run_experiment,
    steps,
)
from app.labs.scripts import numpy_script
from app.paths import templates_dir
from app.routes.experiments import MAX_CELLS
from app.routes.pages import templates
from app.schemas_experiments import SaturationRequest, ScalingTableRequest, ScoreVarianceRequest
from app.settings import Settings
from app.share import StateError, check_request
from app.state import parse_query

router = APIRouter(include_in_schema=False)
T = TypeVar("T")

THEMES = ("auto", "light", "dark")
PAGE_KEYS = {"theme"}  # query keys every lab page understands besides its controls
JSON_KEYS = {"theme", "figures", "preview"}
EMBED_HEIGHT = 560
CONTROLS_HEIGHT = 240  # an embed with controls=1
# A page asks for several figures at once, and the admission gate refuses heavy work
# past its limit rather than queueing it: lab requests wait briefly for a slot instead
# (polling, off the event loop), so one reader's page never refuses itself.
ADMIT_WAIT_S = 3.0  # how long a lab request waits for a heavy slot before answering 503
ADMIT_POLL_S = 0.05
# Building figures from finished runs: small work, done inline.
ANSWER_COST = Cost(0, 0)
RESPONSE_BYTES = 200_000


REQUESTS: dict[str, type[ScoreVarianceRequest | SaturationRequest | ScalingTableRequest]] = {
    "score-variance": ScoreVarianceRequest,
    "saturation": SaturationRequest,
    "scaling-table": ScalingTableRequest,
}
Results = dict[str, dict[str, Any]]


def run_key(name: str, body: Mapping[str, Any]) -> str:
    return name + json.dumps(body, sort_keys=True)


def experiment_params(fig: LabFigure, name: str, body: Mapping[str, Any]) -> Params:
    """The checked parameters of one run; ControlError names the figure's control (the
    key of the field the API would name) when the body is out of bounds or over budget."""
    try:
        params = REQUESTS[name].model_validate(dict(body)).to_params()
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else "body"
        raise ControlError(field, str(exc.errors()[0]["msg"])) from None
    cells = experiment_cells(params)
    if cells > MAX_CELLS:
        field = "trials" if name == "saturation" else "draws"
        raise ControlError(
            field,
            f"this run costs {cells:,} cells, more than the limit of "
            f"{MAX_CELLS:,}; reduce {field}, the keys or the widths",
        )
    return params


def _runner(settings: Settings, fig: LabFigure, results: Results) -> dict[str, Callable[..., Any]]:
    def attention(body: Mapping[str, Any]) -> Any:
        try:
            checked = check_request(dict(body), settings, "body")[0]  # validated and limited
        except StateError as exc:
            raise ControlError("body", exc.message) from None
        return run(checked.to_input())

    def experiment(name: str, body: Mapping[str, Any]) -> dict[str, Any]:
        key = run_key(name, body)
        if key not in results:
            results[key] = run_experiment(experiment_params(fig, name, body))
        return results[key]

    return {"attention": attention, "experiment": experiment}


def _named(lab: Lab, fig: LabFigure, exc: ControlError) -> ControlError:
    """An error about a run's field, renamed to the page key of the control behind it."""
    keys = lab.keys()
    if (fig.name, exc.key) in keys:
        return ControlError(keys[(fig.name, exc.key)], exc.message)
    return exc


def _theme(params: Mapping[str, str]) -> str:
    value = params.get("theme", "auto")
    if value not in THEMES:
        raise ControlError("theme", "must be auto, light or dark")
    return value


def body_of(params: Mapping[str, str], settings: Settings) -> dict[str, Any]:
    """The main-page attention state a ``uses_body`` figure reads (``preset`` or ``s``;
    default: the running example), validated and limited as the API does."""
    given = {k: params[k] for k in BODY_KEYS if params.get(k)}
    try:
        link = parse_query(given)
    except InputError as exc:
        raise ControlError(exc.field, exc.message) from None
    key = "s" if "s" in given else "preset"
    try:
        check_request(link.body, settings, key)
    except StateError as exc:
        raise ControlError(key, exc.message) from None
    return dict(link.body)


def body_cost(params: Mapping[str, str], settings: Settings) -> Cost:
    """What running the main-page state costs (the cost model's own estimate)."""
    given = {k: params[k] for k in BODY_KEYS if params.get(k)}
    try:
        cost: Cost = check_request(parse_query(given).body, settings, "s")[2]
    except (InputError, StateError):
        return Cost(0, 0)  # the figure reports the error itself
    return cost


def extra_keys(lab: Lab) -> set[str]:
    """Query keys a lab page understands besides its controls."""
    uses_body = any(f.uses_body for f in lab.figures)
    return PAGE_KEYS | (set(BODY_KEYS) if uses_body else set())


def build_one(
    lab: Lab,
    fig: LabFigure,
    params: Mapping[str, str],
    theme: str,
    settings: Settings,
    *,
    preview: bool = False,
    embed: bool = False,
    results: Results | None = None,
) -> dict[str, Any]:
    """One figure's description for the query ``params`` (ControlError when bad).
    ``results`` holds experiment runs already made (the streamed path)."""
    values = figure_values(lab, fig, params, embed=embed)
    body = body_of(params, settings) if fig.uses_body else None
    run = _runner(settings, fig, {} if results is None else results)
    others = read_values(lab, fig, params, embed=embed)
    ctx = FigureContext(
        theme=theme_named(theme), preview=preview, run=run, body=body, others=others
    )
    try:
        return fig.build(values, ctx)
    except ControlError as exc:
        raise _named(lab, fig, exc) from None


def _values_text(lab: Lab, fig: LabFigure, values: Mapping[str, Any]) -> dict[str, str]:
    keys = lab.keys()
    return {keys[(fig.name, c.name)]: c.encode(values[c.name]) for c in fig.controls}


def lab_query(lab: Lab, params: Mapping[str, str]) -> dict[str, str]:
    """The canonical page query for ``params``: controls that differ from their default,
    then the theme when it is not ``auto``."""
    values = {f.name: figure_values(lab, f, params) for f in lab.figures}
    extra = {k: params[k] for k in BODY_KEYS if params.get(k)}
    if params.get("theme", "auto") != "auto":
        extra["theme"] = params["theme"]
    return state_query(lab, values, extra)


def links(request: Request, lab: Lab, fig: LabFigure, query: Mapping[str, str]) -> dict[str, str]:
    """The figure's link (the page, scrolled to it) and its iframe snippet."""
    base = str(request.base_url).rstrip("/")
    q = urlencode(query)
    src = f"{base}/embed/labs/{lab.id}/{fig.name}" + (f"?{q}" if q else "")
    title = f"Attention Lab, {fig.entry}: {fig.title}"
    iframe = (
        f'<iframe src="{Markup.escape(src)}" title="{Markup.escape(title)}" width="720" '
        f'height="{EMBED_HEIGHT}" style="border:0;max-width:100%" loading="lazy"></iframe>'
    )
    return {
        "link": f"{base}/labs/{lab.id}" + (f"?{q}" if q else "") + f"#{fig.name}",
        "embed": iframe,
        "embed_url": src,
    }


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
            _theme(params)
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
    params, problem = _page_state(lab, dict(request.query_params), request.app.state.settings)
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
    detail = [{"field": key, "msg": message, "type": "invalid_control", "loc": ["query", key]}]
    return JSONResponse(status_code=status, content={"detail": detail})


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
        self.settings: Settings = request.app.state.settings

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
                raise _named(self.lab, fig, exc) from None
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
            out["values"][fig.name] = _values_text(self.lab, fig, values)
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
    return {"detail": [{"field": field, "msg": msg, "type": kind, "loc": ["query", field]}]}


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
                raise _named(lab, fig, exc) from None
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
    if fig is None or (fig.runs is None and fig.numpy is None):
        return _error("figure", f"{lab_id} has no experiment figure {figure!r}", 404)
    params = {k: v for k, v in request.query_params.items() if k not in JSON_KEYS}
    try:
        check_unknown(lab, params, extra_keys(lab))
        values = figure_values(lab, fig, params)
        if fig.numpy is not None:  # a figure without an experiment: its own script
            settings: Settings = request.app.state.settings
            ctx = FigureContext(
                theme=theme_named("light"),
                run=_runner(settings, fig, {}),
                others=read_values(lab, fig, params),
            )
            return Response(fig.numpy(values, ctx), media_type="text/x-python; charset=utf-8")
        assert fig.runs is not None
        scripts = [numpy_script(experiment_params(fig, n, b)) for n, b in fig.runs(values, False)]
    except ControlError as exc:
        return _error(_named(lab, fig, exc).key, exc.message)
    return Response("\n".join(scripts), media_type="text/x-python; charset=utf-8")


def embed_state(lab: Lab, fig: LabFigure, params: Mapping[str, str]) -> dict[str, str]:
    """The canonical query of one figure's embed: its controls that differ from the
    default (page keys), the main-page state it reads, and the theme unless ``auto``."""
    values = figure_values(lab, fig, params, embed=True)
    extra = {k: params[k] for k in BODY_KEYS if fig.uses_body and params.get(k)}
    if params.get("theme", "auto") != "auto":
        extra["theme"] = params["theme"]
    if params.get("controls") == "1":
        extra["controls"] = "1"
    return state_query(lab, {fig.name: values}, extra)


def lab_oembed(
    request: Request,
    lab_id: str,
    figure: str | None,
    params: dict[str, str],
    *,
    base: str,
    bounds: tuple[int | None, int | None],
) -> JSONResponse:
    """The oEmbed answer for a lab page (its ``#figure``, default the first) or a lab
    embed URL: the same iframe as the figure's Embed button. Nothing runs; the state is
    checked (a bad value is a 404 naming ``url``, as for the figures)."""
    from app.oembed import DEFAULT_WIDTH, OEmbedError, oembed_response
    from app.routes.embed import _oembed_error

    try:
        lab = get_lab(lab_id)
        if lab is None or lab.status != "ready":
            raise OEmbedError(404, "url", f"there is no lab {lab_id!r} with figures to embed")
        fig = lab.figure(figure) if figure else lab.figures[0]
        if fig is None:
            names = ", ".join(f.name for f in lab.figures)
            raise OEmbedError(404, "url", f"the lab {lab_id} has no figure {figure!r} ({names})")
        try:
            _theme(params)
            query = embed_state(lab, fig, params)
            if fig.uses_body:
                body_of(params, request.app.state.settings)
        except ControlError as exc:
            raise OEmbedError(404, "url", f"the URL's {exc.key}: {exc.message}") from None
    except OEmbedError as exc:
        return _oembed_error(exc)
    q = urlencode(query)
    src = f"{base}/embed/labs/{lab.id}/{fig.name}" + (f"?{q}" if q else "")
    title = f"Attention Lab, {fig.entry}: {fig.title}"
    answer = oembed_response(
        src=src,
        title=title,
        size=(DEFAULT_WIDTH, EMBED_HEIGHT + (CONTROLS_HEIGHT if "controls" in query else 0)),
        provider_url=base + "/",
        maxwidth=bounds[0],
        maxheight=bounds[1],
    )
    return JSONResponse(answer)


@router.get("/embed/labs/{lab_id}/{figure}", response_class=HTMLResponse)
def embed(lab_id: str, figure: str, request: Request) -> Response:
    """One lab figure for an iframe, in the state of the query (page keys or bare control
    names); ``theme=auto`` sends both colour schemes so it follows the host."""
    from app.routes.embed import error_page

    lab = get_lab(lab_id)
    fig = lab.figure(figure) if lab is not None else None
    if lab is None or fig is None or lab.status != "ready":
        known = ", ".join(f"{lb.id}/{f.name}" for lb in LABS for f in lb.figures)
        return error_page(
            request, 404, "figure", f"there is no lab figure {lab_id}/{figure}; embeddable: {known}"
        )
    params = dict(request.query_params)
    settings: Settings = request.app.state.settings
    controls = params.pop("controls", "0")
    if controls not in ("0", "1"):
        return error_page(request, 400, "controls", "controls must be 1 (show them) or 0")
    try:
        theme = _theme(params)
        themes: tuple[str, ...] = ("light", "dark") if theme == "auto" else (theme,)
        specs = {t: build_one(lab, fig, params, t, settings, embed=True) for t in themes}
        values = figure_values(lab, fig, params, embed=True)
    except ControlError as exc:
        return error_page(request, 400, exc.key, exc.message)
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
