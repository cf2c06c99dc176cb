"""``GET /embed/{figure}`` (one figure, no site chrome, for iframes) and ``GET /oembed``.

The embed reads the same URL state as the main page (``preset=`` or ``s=``, view params)
plus ``editable=1`` (a compact editor for the matrices the figure depends on),
``controls=scale,mask,focus,…`` (only those toggles), ``height=`` and ``autoplay=``
(``app.inputs.frame``). The figure is built on the server and handed to
``static/js/embed.js`` as JSON in the page: a grid figure as grid descriptions (drawn
like the page's, no Plotly conversion), a chart as Plotly data; for ``theme=auto`` both colour
schemes are sent, so the embed follows the host's ``prefers-color-scheme`` without a
request. Unknown figure: HTML 404; a bad parameter: HTML 400 naming it (never a 500).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from app.figures.registry import BUILT_FIGURES, BY_NUMBER, known_figures
from app.http.params import embed_params, link_params
from app.http.pipeline import compute, computes, priced
from app.http.responses import SettingsDep, site_base
from app.http.runner import run
from app.inputs.errors import FieldError
from app.inputs.frame import FrameOptions, frame_options
from app.inputs.link import FIGURE_KEY, to_query
from app.inputs.query import path_int
from app.inputs.resolve import Plan, Resolved, StateError, plan_link, resolve_plan
from app.inputs.view import url_defaults
from app.web import model_embed, model_link
from app.web.errors import embed_error_page
from app.web.figure_embed import figure_specs, script_json
from app.web.lab_oembed import lab_oembed
from app.web.lesson_oembed import lesson_oembed, parse_lesson_url
from app.web.oembed import (
    OEmbedError,
    embed_path,
    frame_size,
    oembed_error,
    oembed_response,
    parse_lab_url,
)
from app.web.oembed import parse_site_url as parse_url
from app.web.templating import templates

router = APIRouter(tags=["pages"])
oembed_router = APIRouter(tags=["embedding"])


CONTROLS = ("scale", "mask", "focus", "head", "stretch", "row")


def _options(params: Any) -> tuple[bool, list[str], FrameOptions]:
    editable = params.get("editable", "0")
    if editable not in {"0", "1"}:
        raise StateError("editable", "editable must be 1 (show an editor) or 0 (read-only)")
    raw = [c for c in params.get("controls", "").split(",") if c]
    unknown = [c for c in raw if c not in CONTROLS]
    if unknown:
        raise StateError("controls", f"unknown control {unknown[0]!r}; "
                         f"choose from {', '.join(CONTROLS)}")  # fmt: skip
    if editable == "1" and not raw:
        raw = list(CONTROLS)
    try:
        frame = frame_options(params)
    except FieldError as exc:
        raise StateError(exc.field, exc.message) from None
    return editable == "1", raw, frame


def editor_matrices(resolved: Resolved, number: int) -> list[dict[str, Any]]:
    """The input matrices the figure's numbers depend on, for the compact editor."""
    body, view = resolved.link.body, resolved.link.view
    if not BY_NUMBER[number].shows_inputs(view.row):  # shapes only, or no input at all
        return []
    if body.get("x") is None:
        names = [("q", "Q"), ("k", "K"), ("v", "V")]
    else:
        names = [("x", "X"), ("w_q", "W^Q"), ("w_k", "W^K"), ("w_v", "W^V")]
        if body.get("source"):
            names.insert(1, ("source_x", "S"))
    out = []
    for key, label in names:
        rows = body["source"]["x"] if key == "source_x" else body[key]
        out.append({"key": key, "label": label, "rows": rows})
    return out


EMBED_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {}}, "description": "The figure's embed page."},
    400: {"content": {"text/html": {}}, "description": "A bad parameter, named on the page."},
    404: {"content": {"text/html": {}}, "description": "No such figure."},
    503: {"content": {"text/html": {}}, "description": "Busy; retry after `Retry-After`."},
}


@router.get("/embed/{figure}", response_class=HTMLResponse, responses=EMBED_RESPONSES)
@computes
async def embed(
    figure: str,
    request: Request,
    settings: SettingsDep,
    state: Annotated[dict[str, str], Depends(link_params)],
    options: Annotated[dict[str, str], Depends(embed_params)],
) -> Response:
    """One figure for an iframe; see the module docstring for the parameters."""
    number = path_int(figure)
    if number not in BUILT_FIGURES:
        shown = figure[:20]
        return embed_error_page(request, 404, "figure", f"there is no Figure {shown}; "
                          f"embeddable figures: {known_figures()}")  # fmt: skip
    if model_link.requested(request.query_params):  # a real model's head: app.web.model_embed
        return await run(request, model_embed.EMBED)
    try:
        editable, controls, frame = _options(options)
        # theme=auto sends the figure in both colour schemes: two builds, priced as two.
        drawn = 2 if state.get("theme", "auto") == "auto" else 1
        plan = plan_link(state, settings, figures=drawn)
    except StateError as exc:
        return embed_error_page(request, 400, exc.param, exc.message)
    cost = priced(request, plan.cost)
    return await compute(
        request, cost, _embed_page, request, plan, number, editable, controls, frame
    )


def _embed_page(
    request: Request, plan: Plan, number: int, editable: bool, controls: list[str],
    frame: FrameOptions,
) -> Response:  # fmt: skip
    """Run the state, build the figure and render the page (off the loop when heavy)."""
    try:
        resolved = resolve_plan(plan)
    except StateError as exc:
        return embed_error_page(request, 400, exc.param, exc.message)
    specs = figure_specs(resolved, number)
    link = resolved.link
    data = {
        "figure": number, "body": link.body, "view": link.view.as_dict(),
        "view_defaults": url_defaults(), "preset_id": link.preset_id,
        "specs": specs, "editable": editable, "controls": controls,
        "tokens": list(resolved.stages.tokens), "heads": len(resolved.stages.heads),
        "frame": {"height": frame.height, "autoplay": frame.autoplay},
    }  # fmt: skip
    context = {
        "number": number, "spec": next(iter(specs.values())), "data": script_json(data),
        "open_url": f"/?{to_query(link)}&{FIGURE_KEY}={number}#fig-{number}",
        "title": resolved.title,
        "view": link.view, "body": link.body, "controls": controls, "editable": editable,
        "matrices": editor_matrices(resolved, number) if editable else [],
        "tokens": resolved.stages.tokens, "heads": len(resolved.stages.heads),
    }  # fmt: skip
    page: Response = templates.TemplateResponse(request, "embed.html", context)
    return page


def _bound(name: str, value: str | None) -> int | None:
    if value is None or value == "":
        return None
    number = path_int(value)
    if number is None or number < 1:
        raise OEmbedError(422, name, f"{name} must be a whole number of pixels from 1 to 999999")
    return number


@oembed_router.get(
    "/oembed",
    summary="oEmbed (rich) for a page or embed URL",
    responses={
        404: {"description": "No url, or not a figure of this site; `detail` names `url`."},
        422: {"description": "An unknown format, or maxwidth/maxheight not a whole number."},
        501: {"description": "A format other than json (the oEmbed spec's answer)."},
        503: {"description": "Busy; retry after the seconds in `Retry-After`."},
    },
)
@computes
async def oembed(
    request: Request,
    settings: SettingsDep,
    url: Annotated[
        str,
        Query(
            description="A page (/?…&fig=N, or /?…#fig-N) or embed (/embed/N?…) URL, or a "
            "lab page (/labs/{id}?…&figure={figure}, or …#{figure}) or lab embed "
            "(/embed/labs/{id}/{figure}?…) URL, or a lesson (/lessons/{id}, /lessons/play?l=…, "
            "/embed/lesson/{id}, /embed/lesson?l=…)."
        ),
    ] = "",
    format: Annotated[str, Query(description="json (xml answers 501)")] = "json",
    maxwidth: Annotated[str | None, Query(description="Largest width in px.")] = None,
    maxheight: Annotated[str | None, Query(description="Largest height in px.")] = None,
) -> Response:
    """An oEmbed 1.0 `rich` response whose `html` is the figure's iframe snippet."""
    try:
        if format == "xml":  # the oEmbed spec's answer for a format it knows but we lack
            raise OEmbedError(501, "format", "only format=json is implemented")
        if format not in ("", "json"):
            raise OEmbedError(422, "format", f"format must be json (or xml: 501), got {format!r}")
        bounds = _bound("maxwidth", maxwidth), _bound("maxheight", maxheight)
        if not url:
            raise OEmbedError(404, "url", "give the url of a page or an embed of this site")
        base = site_base(request)
        lesson_target = parse_lesson_url(url, base)
        if lesson_target is not None:  # a lesson page, link or embed: app/web/lesson_oembed.py
            return lesson_oembed(request, lesson_target, base=base, bounds=bounds)
        lab_target = parse_lab_url(url, base)
        if lab_target is not None:  # a lab page or lab embed: app/web/lab_oembed.py answers
            return lab_oembed(request, *lab_target, base=base, bounds=bounds)
        number, params = parse_url(url, base)
        if number not in BUILT_FIGURES:
            raise OEmbedError(404, "url", f"there is no Figure {number} to embed")
        if model_link.requested(params):  # a real model's head: app.web.model_embed
            return await run(request, model_embed.oembed_declared(number, params))
        try:
            plan = plan_link(params, settings, figures=True)
        except StateError as exc:
            raise OEmbedError(404, "url", f"the URL's {exc.param}: {exc.message}") from None
    except OEmbedError as exc:
        return oembed_error(exc)
    cost = priced(request, plan.cost)
    return await compute(request, cost, _oembed_answer, plan, number, params, base, bounds)


def _oembed_answer(
    plan: Plan, number: int, params: dict[str, str], base: str,
    bounds: tuple[int | None, int | None],
) -> Response:  # fmt: skip
    try:
        resolved = resolve_plan(plan)
    except StateError as exc:
        return oembed_error(OEmbedError(404, "url", f"the URL's {exc.param}: {exc.message}"))
    spec = next(iter(figure_specs(resolved, number).values()))  # as the embed draws it
    title = f"Attention Lab, Figure {number}: {spec['title']} ({resolved.title})"
    size = frame_size(spec, params, open_title=resolved.title, maxwidth=bounds[0])
    return JSONResponse(oembed_response(
        src=base + embed_path(number, params), title=title, size=size, provider_url=base + "/",
        maxwidth=bounds[0], maxheight=bounds[1],
    ))  # fmt: skip
