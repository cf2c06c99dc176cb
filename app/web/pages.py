"""``GET /``: the interactive page, rendered from the state in its query string.

The query is decoded with ``app.inputs.link.parse_query`` (default: the running example); the
body is validated exactly as the API would, so a bad link never yields a 500: the page
opens on the running example with a message saying what was wrong with the link. The
initial state reaches the JavaScript as JSON in ``<script type="application/json"
id="initial-state">`` (``|tojson``), never as inline code, so the page runs under the
strict CSP (``script-src 'self'``). Every figure is drawn from ``POST /api/v1/figures``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError

from app.api.params import link_params
from app.inputs.body import AttentionRequest, check_limits
from app.inputs.errors import FieldError, validation_detail
from app.inputs.limits import CostError, check_cost, figures_cost, request_shape
from app.inputs.link import VIEW_DEFAULTS, LinkState, parse_query
from app.inputs.presets import DEFAULT_PRESET, get_preset, preset_summaries
from app.inputs.view import check_figure_shape
from app.settings import Settings
from app.web.templating import templates

router = APIRouter(tags=["pages"])


# Shown before the first response arrives; the server's own titles then replace them.
FIGURE_TITLES = {
    1: "One step after another, or every pair at once",
    2: "Three generations of sequence models",
    3: "The whole computation, step by step",
    4: "Three projections of one X",
    5: "The dataflow of the equation",
    6: "The attention weight matrix",
    7: "One grid, three stages",
    8: "Weights times values gives the output",
    9: "One output row as a blend of value rows",
    10: "Everything on one line",
    11: "Self-attention versus cross-attention",
    12: "Softmax saturation",
    13: "Shape rules",
}


def _problem(exc: Exception) -> str:
    if isinstance(exc, FieldError | CostError):
        return f"{exc.field}: {exc.message}"
    if isinstance(exc, ValidationError):
        items = validation_detail([dict(e) for e in exc.errors()])["detail"][:3]
        return "; ".join(f"{d['field']}: {d['msg']}" for d in items)
    return str(exc)


def _token_count(body: dict[str, Any]) -> int:
    rows = body.get("x") if body.get("x") is not None else body.get("q")
    return len(rows) if isinstance(rows, list) else 0


def load_state(params: dict[str, str], settings: Settings) -> tuple[LinkState, str | None]:
    """The link's state, or the running example and a message saying what was wrong.

    The state must be one the page can draw: within the limits, the figure limits and
    the cost model (the page asks ``/api/v1/figures`` for it next), all from its shapes.
    """
    try:
        state = parse_query(params)
        request = AttentionRequest.model_validate(state.body)
        check_limits(request, settings)
        shape = request_shape(request)
        check_figure_shape(shape, settings)
        check_cost(figures_cost(shape), settings, shape.reduce, field=shape.field)
    except (FieldError, ValidationError, CostError) as exc:
        preset = get_preset(DEFAULT_PRESET)
        assert preset is not None
        fallback = LinkState(
            body=preset["body"], view=dict(VIEW_DEFAULTS), preset_id=DEFAULT_PRESET
        )
        message = (
            f"This link could not be opened ({_problem(exc)}), so the page shows "
            "the running example instead."
        )
        return fallback, message
    if state.view["focus"] >= _token_count(state.body):
        view = {**state.view, "focus": 0}
        note = (
            f"The link's focus token (position {state.view['focus']}) does not exist; "
            "showing the first token."
        )
        return LinkState(body=state.body, view=view, preset_id=state.preset_id), note
    return state, None


@router.get(
    "/",
    response_class=HTMLResponse,
    responses={200: {"description": "The page; a bad link opens the running example with "
                     "a message saying what was wrong.", "content": {"text/html": {}}}},
)  # fmt: skip
def index(
    request: Request, params: Annotated[dict[str, str], Depends(link_params)]
) -> HTMLResponse:
    """The page: matrix editor, toggles and Figures 1–13 for the state in the query."""
    state, problem = load_state(params, request.app.state.settings)
    initial = {
        "body": state.body,
        "view": state.view,
        "preset_id": state.preset_id,
        "presets": preset_summaries(),
        "error": problem,
    }
    context = {
        "initial": initial,
        "body": state.body,
        "view": state.view,
        "figure_titles": FIGURE_TITLES,
        "problem": problem,
    }
    return templates.TemplateResponse(request, "index.html", context)
