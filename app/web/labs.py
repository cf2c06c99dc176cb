"""The lab pages: ``GET /labs`` (index) and ``GET /labs/{id}`` (a lab), and the old
addresses of the lab's JSON, which moved to the API (``app.api.lab_figures``):
``/labs/{id}/figures.json``, ``/labs/{id}/figures.ndjson`` and ``/labs/{id}/numpy/{figure}``
answer 308 to ``/api/v1/labs/…`` with the query kept. The lab embed is ``app.web.lab_embed``.

A lab page renders controls and empty figure panels: nothing is built here (the page's
script asks the API for the figures), so the page only checks its query. A bad link never
yields a 500: the page opens with the defaults and a message naming the key; an unknown
lab is an HTML 404. ``figure=<name>`` names the figure a link is about (the page scrolls
to it, its oEmbed discovery link embeds it); an unknown one is dropped the same way.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from markupsafe import Markup

from app.figures.labs import LABS, Lab, get_lab
from app.figures.labs.base import BODY_KEYS
from app.http.lab_state import body_of, extra_keys, lab_query, theme_of
from app.http.mount import site_path
from app.http.pipeline import computes, priced
from app.http.responses import settings_of, site_base
from app.inputs.lab_controls import (
    FIGURE_KEY,
    ControlError,
    check_unknown,
    figure_values,
    lab_figure,
)
from app.inputs.limits import Cost
from app.paths import templates_dir
from app.settings import Settings
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
            check_unknown(lab, params, extra_keys(lab) | {FIGURE_KEY})
            lab_figure(lab, params)
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
@computes
def lab_page(lab_id: str, request: Request) -> HTMLResponse:
    """One lab: its controls and empty figure panels for the state in the query (the
    page's script asks ``/api/v1/labs/{id}/figures``, which prices and builds them)."""
    lab = get_lab(lab_id)
    if lab is None:
        return _not_found(request, f"There is no lab “{lab_id}”.")
    params, problem = _page_state(lab, dict(request.query_params), settings_of(request))
    priced(request, Cost(0, 0))  # controls and text only: no figure is built here
    theme = params.get("theme", "auto")
    keys = lab.keys()
    values = {f.name: figure_values(lab, f, params) for f in lab.figures}
    initial = {
        "lab": lab.id,
        "query": lab_query(lab, params),
        "problem": problem,
        "figures": [f.name for f in lab.figures],
        "figure": params.get(FIGURE_KEY) or None,  # checked: the figure the link is about
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


@router.get("/labs/", response_class=RedirectResponse, status_code=308)
def index_slash(request: Request) -> RedirectResponse:
    """``/labs/`` -> ``/labs`` on this site's public address (not the Host header)."""
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"{site_base(request)}/labs{query}", status_code=308)


def _moved(request: Request, *segments: str) -> RedirectResponse:
    """308 to the API's address of the same answer (same method, the query kept)."""
    path = "/api/v1/labs/" + "/".join(quote(s, safe="") for s in segments)
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"{site_path(request.scope, path)}{query}", status_code=308)


@router.get("/labs/{lab_id}/figures.json")
def figures_json(lab_id: str, request: Request) -> RedirectResponse:
    """Moved: ``/api/v1/labs/{lab_id}/figures`` (query kept)."""
    return _moved(request, lab_id, "figures")


@router.get("/labs/{lab_id}/figures.ndjson")
def figures_ndjson(lab_id: str, request: Request) -> RedirectResponse:
    """Moved: ``/api/v1/labs/{lab_id}/figures.ndjson`` (query kept)."""
    return _moved(request, lab_id, "figures.ndjson")


@router.get("/labs/{lab_id}/numpy/{figure}")
def numpy_export(lab_id: str, figure: str, request: Request) -> RedirectResponse:
    """Moved: ``/api/v1/labs/{lab_id}/numpy/{figure}`` (query kept)."""
    return _moved(request, lab_id, "numpy", figure)
