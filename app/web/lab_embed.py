"""``GET /embed/labs/{id}/{figure}``: one lab figure for an iframe (its oEmbed answer is
``app.web.lab_oembed``).

The embed takes the one pipeline (``app.http.pipeline``): its query parsed and priced as
the lab API's (``app.http.lab_answer.Ask``: the figure's controls, the main-page state it
reads, which obeys ``MAX_FIGURE_TOKENS``, and its runs), admitted like the lab API's
figures (a brief wait for a slot, then 503 with ``Retry-After``) and built off the event
loop. ``theme=auto`` draws both colour schemes, so the figure is priced twice, and its
experiments run once (the runs are shared by the two drawings). A malformed value is an
HTML 400 naming it, a value over the budget a 422, an unknown figure a 404. ``height=``
and ``autoplay=`` are the figure embeds' (``app.inputs.frame``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from app.figures.labs import LABS, Lab, LabFigure, get_lab
from app.figures.labs.base import BODY_KEYS, state_query
from app.figures.view_fields import DRAWN_THEMES
from app.http.lab_answer import Ask, PriceError
from app.http.lab_state import (
    ADMIT_WAIT_S,
    Results,
    build_one,
    figure_link,
    theme_of,
)
from app.http.pipeline import compute, computes, priced
from app.inputs.errors import FieldError
from app.inputs.frame import FrameOptions, frame_options
from app.inputs.lab_controls import ControlError, figure_values, read_values
from app.web.errors import embed_error_page
from app.web.templating import templates
from app.wire import json_block

router = APIRouter(include_in_schema=False)


def _specs(ask: Ask, fig: LabFigure, themes: tuple[str, ...]) -> dict[str, Any]:
    """The figure in each theme; experiment runs made once and shared."""
    results: Results = {}
    return {t: build_one(ask.lab, fig, ask.state, t, ask.settings, embed=True, results=results)
            for t in themes}  # fmt: skip


@router.get("/embed/labs/{lab_id}/{figure}", response_class=HTMLResponse)
@computes
async def embed(lab_id: str, figure: str, request: Request) -> Response:
    """One lab figure for an iframe, in the state of the query (page keys or bare control
    names); ``theme=auto`` sends both colour schemes so it follows the host."""
    lab = get_lab(lab_id)
    fig = lab.figure(figure) if lab is not None else None
    if lab is None or fig is None or lab.status != "ready":
        known = ", ".join(f"{lb.id}/{f.name}" for lb in LABS for f in lb.figures)
        return embed_error_page(
            request, 404, "figure", f"there is no lab figure {lab_id}/{figure}; embeddable: {known}"
        )
    controls = request.query_params.get("controls", "0")
    if controls not in ("0", "1"):
        return embed_error_page(request, 400, "controls", "controls must be 1 (show them) or 0")
    try:
        frame = frame_options(request.query_params)
    except FieldError as exc:
        return embed_error_page(request, 400, exc.field, exc.message)
    try:
        theme = theme_of(request.query_params)
        themes: tuple[str, ...] = DRAWN_THEMES if theme == "auto" else (theme,)
        ask = Ask(lab, request, embed=fig)
        cost = priced(request, ask.price(draws=len(themes)))
    except PriceError as exc:
        return embed_error_page(request, 422, exc.key, exc.message)
    except ControlError as exc:
        return embed_error_page(request, 400, exc.key, exc.message)
    try:
        specs = await compute(request, cost, _specs, ask, fig, themes, wait=ADMIT_WAIT_S)
    except ControlError as exc:
        return embed_error_page(request, 400, exc.key, exc.message)
    return _page(request, lab, fig, ask, theme, specs, controls == "1", frame)


def _page(
    request: Request, lab: Lab, fig: LabFigure, ask: Ask, theme: str,
    specs: dict[str, Any], controls: bool, frame: FrameOptions,
) -> Response:  # fmt: skip
    params = ask.state
    values = figure_values(lab, fig, params, embed=True)
    page_query = state_query(lab, {fig.name: values, **read_values(lab, fig, params, embed=True)})
    open_url = f"/labs/{lab.id}?{figure_link(page_query, fig.name)}"
    keys = lab.keys()
    data = {
        "lab": lab.id, "figure": fig.name, "theme": theme, "specs": specs,
        # controls=1: the figure's controls; an edit asks the lab API (page keys) again
        "controls": [dict(c.describe(), key=keys[(fig.name, c.name)]) for c in fig.controls]
        if controls else None,
        "extra": {k: params[k] for k in BODY_KEYS if fig.uses_body and params.get(k)},
        "frame": {"height": frame.height, "autoplay": frame.autoplay},
    }  # fmt: skip
    context = {
        "lab": lab, "fig": fig, "spec": next(iter(specs.values())), "theme": theme,
        "data": Markup(json_block(data)), "open_url": open_url, "controls": controls,
        "keys": keys, "values": values,
    }  # fmt: skip
    page: Response = templates.TemplateResponse(request, "labs/embed.html", context)
    return page
