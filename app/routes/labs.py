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

from collections.abc import Callable, Mapping
from typing import Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from markupsafe import Markup

from app.attention import InputError
from app.export.html import json_block
from app.figures.labs import LABS, FigureContext, Lab, LabFigure, get_lab
from app.figures.labs.base import BODY_KEYS, check_unknown, figure_values, state_query
from app.figures.labs.controls import ControlError
from app.figures.style import theme as theme_named
from app.paths import templates_dir
from app.routes.pages import templates
from app.settings import Settings
from app.share import StateError, check_request
from app.state import parse_query

router = APIRouter(include_in_schema=False)

THEMES = ("auto", "light", "dark")
PAGE_KEYS = {"theme"}  # query keys every lab page understands besides its controls
JSON_KEYS = {"theme", "figures", "preview"}
EMBED_HEIGHT = 560


def _runner(settings: Settings) -> dict[str, Callable[..., Any]]:
    def attention(body: Mapping[str, Any]) -> Any:
        try:
            return check_request(dict(body), settings, "body")[2]
        except StateError as exc:
            raise ControlError("body", exc.message) from None

    return {"attention": attention}


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
) -> dict[str, Any]:
    """One figure's description for the query ``params`` (ControlError when bad)."""
    values = figure_values(lab, fig, params, embed=embed)
    body = body_of(params, settings) if fig.uses_body else None
    ctx = FigureContext(theme=theme_named(theme), preview=preview, run=_runner(settings), body=body)
    return fig.build(values, ctx)


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


@router.get("/labs/{lab_id}/figures.json")
def figures_json(lab_id: str, request: Request) -> Response:
    """The figures the page asks for (``figures=a,b``; default all), in ``theme`` (light
    or dark), as a small run with ``preview=1``; plus the canonical query and each
    figure's link and embed snippet."""
    lab = get_lab(lab_id)
    if lab is None or lab.status != "ready":
        return _error("lab_id", f"there is no lab {lab_id!r} with figures", 404)
    params = dict(request.query_params)
    settings: Settings = request.app.state.settings
    try:
        check_unknown(lab, params, JSON_KEYS | extra_keys(lab))
        theme: Literal["light", "dark"] = "dark" if params.get("theme") == "dark" else "light"
        names = [n for n in params.get("figures", "").split(",") if n] or [
            f.name for f in lab.figures
        ]
        unknown = [n for n in names if lab.figure(n) is None]
        if unknown:
            raise ControlError("figures", f"the lab has no figure {unknown[0]!r}")
        state = {k: v for k, v in params.items() if k not in JSON_KEYS}
        query = lab_query(lab, state)
        out: dict[str, Any] = {"query": query, "figures": {}, "values": {}, "links": {}}
        for name in names:
            fig = lab.figure(name)
            assert fig is not None
            out["figures"][name] = build_one(
                lab, fig, state, theme, settings, preview=params.get("preview") == "1"
            )
            out["values"][name] = _values_text(lab, fig, figure_values(lab, fig, state))
            out["links"][name] = links(request, lab, fig, query)
    except ControlError as exc:
        return _error(exc.key, exc.message)
    return Response(json_block(out), media_type="application/json")


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
    try:
        theme = _theme(params)
        themes: tuple[str, ...] = ("light", "dark") if theme == "auto" else (theme,)
        specs = {t: build_one(lab, fig, params, t, settings, embed=True) for t in themes}
        values = figure_values(lab, fig, params, embed=True)
    except ControlError as exc:
        return error_page(request, 400, exc.key, exc.message)
    page_query = state_query(lab, {fig.name: values})
    open_url = (
        f"/labs/{lab.id}" + (f"?{urlencode(page_query)}" if page_query else "") + f"#{fig.name}"
    )
    data = {"lab": lab.id, "figure": fig.name, "theme": theme, "specs": specs}
    context = {
        "lab": lab,
        "fig": fig,
        "spec": next(iter(specs.values())),
        "theme": theme,
        "data": Markup(json_block(data)),
        "open_url": open_url,
    }
    page: Response = templates.TemplateResponse(request, "labs/embed.html", context)
    return page
