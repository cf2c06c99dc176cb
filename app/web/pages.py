"""``GET /``: the interactive page, rendered from the state in its query string.

The query takes the one path of links, ``app.inputs.resolve.plan_link`` (decoded, the body
validated, limited and costed as the API would, for every figure; nothing runs, as the
page asks ``/api/v1/figures`` next), so a bad link never yields a 500: the page opens on
the running example with a message naming the parameter and what was wrong with it. The
initial state reaches the JavaScript as JSON in ``<script type="application/json"
id="initial-state">`` (``|tojson``), never as inline code, so the page runs under the
strict CSP (``script-src 'self'``). Every figure is drawn from ``POST /api/v1/figures``.
A query with ``model`` opens a real model's head instead (``app.web.model_link``).
``fig=N`` names the figure the link is about (``app.inputs.link.page_figure``): the page
scrolls to it and its oEmbed discovery link embeds it; a figure that does not exist opens
the same state at the top, with a note, as a focus past the tokens does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from app.figures.registry import (
    ALL_FIGURES,
    BUILT_FIGURES,
    FIGURES,
    focus_figures_text,
    headings,
    page_lists,
)
from app.http.params import link_params
from app.http.pipeline import computes, priced
from app.http.responses import settings_of
from app.inputs.errors import FieldError
from app.inputs.fields import MAX_LABEL_CHARS
from app.inputs.limits import Cost
from app.inputs.link import FIGURE_KEY, LinkState, page_figure
from app.inputs.resolve import StateError, plan_link
from app.inputs.view import ViewState, url_defaults
from app.presets import DEFAULT_PRESET, get_preset, preset_summaries
from app.settings import Settings
from app.web import model_link
from app.web.model_link import ModelHead
from app.web.templating import templates

router = APIRouter(tags=["pages"])


def _running_example() -> LinkState:
    preset = get_preset(DEFAULT_PRESET)
    assert preset is not None
    view = ViewState().for_tokens(len(preset["body"]["tokens"]))
    return LinkState(body=preset["body"], view=view, preset_id=DEFAULT_PRESET)


def load_state(params: dict[str, str], settings: Settings) -> tuple[LinkState, str | None]:
    """The link's state, or the running example and a message saying what was wrong.

    The state must be one the page can draw: within the limits, the figure limits and
    the cost model of every figure (the page asks ``/api/v1/figures`` for it next), all
    from its shapes. A focus past the tokens opens on the first token, with a note.
    """
    try:
        plan = plan_link(params, settings, figures=len(BUILT_FIGURES))
    except StateError as exc:
        message = (
            f"This link could not be opened ({exc.param}: {exc.message}), so the page "
            "shows the running example instead."
        )
        return _running_example(), message
    link, focus = plan.link, plan.link.view.focus_row
    if focus >= plan.shape.l_q:
        note = f"The link's focus token (position {focus}) does not exist; showing the first token."
        return replace(link, view=replace(link.view, focus=0)), note
    return link, None


async def _model_state(
    request: Request, query: dict[str, str]
) -> tuple[LinkState, str | None, ModelHead | None]:
    """A model's head as the page's state, or the running example and what was wrong."""
    try:
        state, head = await model_link.open_head(
            request, query, settings_of(request), len(BUILT_FIGURES)
        )
    except StateError as exc:
        message = (
            f"This model link could not be opened ({exc.param}: {exc.message}), so the "
            "page shows the running example instead."
        )
        return _running_example(), message, None
    return state, None, head


def linked_figure(fig: str | None) -> tuple[int | None, str | None]:
    """The figure the link names (``fig``), or None and a note when it names none that
    exists (the state still opens: only the scroll target is lost)."""
    try:
        return page_figure({FIGURE_KEY: fig} if fig else {}, ALL_FIGURES), None
    except FieldError as exc:
        return None, f"The link's figure could not be shown ({exc.field}: {exc.message})."


@router.get(
    "/",
    response_class=HTMLResponse,
    responses={200: {"description": "The page; a bad link opens the running example with "
                     "a message saying what was wrong.", "content": {"text/html": {}}}},
)  # fmt: skip
@computes
async def index(
    request: Request,
    params: Annotated[dict[str, str], Depends(link_params)],
    fig: Annotated[
        str | None,
        Query(
            description="The figure the link is about (1 … 13): the page scrolls to it and "
            "its oEmbed discovery link embeds it (a fragment #fig-N only scrolls)."
        ),
    ] = None,
) -> HTMLResponse:
    """The page: matrix editor, toggles and Figures 1–13 for the state in the query."""
    # ?model=…&text=…&layer=…&head=… opens a real model's head (app.web.model_link).
    query = dict(request.query_params)
    head: ModelHead | None = None
    if model_link.requested(query):
        state, problem, head = await _model_state(request, query)
    else:
        state, problem = load_state(params, settings_of(request))
    figure, note = linked_figure(fig)
    problem = " ".join(m for m in (problem, note) if m) or None
    # Priced by plan_link (every figure, from the shapes); nothing runs here: the page's
    # script asks /api/v1/figures, which admits and builds.
    priced(request, Cost(0, 0))
    initial = {
        "body": state.body,
        "view": state.view.as_dict(),
        "preset_id": state.preset_id,
        "presets": preset_summaries(),
        "error": problem,
        "figures": page_lists(),
        "limits": {"label_chars": MAX_LABEL_CHARS},
        "view_defaults": url_defaults(),
        "model_link": head.as_dict() if head else None,
        "figure": figure,
    }
    context = {
        "initial": initial,
        "body": state.body,
        "view": state.view,
        "figures": FIGURES,
        # The builders' titles for this head, shown before the first response (and kept).
        "titles": headings(state.view.head, int(state.body.get("heads") or 1)),
        "problem": problem,
        "label_chars": MAX_LABEL_CHARS,
        "focus_figures": focus_figures_text(),
        "model_head": head,
    }
    return templates.TemplateResponse(request, "index.html", context)
