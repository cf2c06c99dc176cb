"""The model pages: ``GET /models`` (every model, installed or how to install it) and
``GET /models/{id}`` (a sentence's tokens and every layer × head of the model), and the
page's data, ``GET /models/{id}/heads.json?text=…`` (every head as a grid with its
summary, ``app.web.model_views``), priced and admitted by the one pipeline.

A model that is not installed still has its page: it says exactly how to install it, and
every other page works. A bad sentence in the page's link opens the page on the model's
default sentence with a message naming ``text``; the JSON answers 422 naming ``text``.
An unknown model is a 404 (an HTML page for a browser).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from app.figures.view_fields import THEMES
from app.http.pipeline import compute, computes, price, priced
from app.http.responses import JSONBytes
from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.inputs.model_text import MAX_TEXT_CHARS
from app.models.base import ModelSpec
from app.web import model_views
from app.web.errors import error_response
from app.web.model_views import PATTERN_MEANINGS, PATTERN_WORDS, Listed
from app.web.templating import templates
from app.wire import encode, json_block

router = APIRouter(include_in_schema=False)


def _unknown(request: Request, model_id: str) -> Response:
    names = ", ".join(m.spec.id for m in model_views.listed())
    return error_response(
        request, 404, "model", f"there is no model “{model_id}” (models: {names})", "not_found"
    )


@router.get("/models", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    """Every model with its sizes, licence and source; how to install the missing ones."""
    page: HTMLResponse = templates.TemplateResponse(
        request, "models/index.html", {"models": model_views.listed()}
    )
    return page


def _page_text(found: Listed, given: str | None) -> tuple[str, str | None]:
    """The sentence the page opens on, and a message when the link's could not be used."""
    fallback = model_views.default_text(found.spec)
    if given is None or not found.installed:
        return fallback, None
    try:
        model_views.check_text(model_views.load(found.spec.id), given)
    except FieldError as exc:
        return fallback, f"The link's sentence could not be used ({exc.field}: {exc.message})."
    return given, None


@router.get("/models/{model_id}", response_class=HTMLResponse)
@computes
def model_page(model_id: str, request: Request, text: str | None = None) -> Response:
    """One model: a sentence box, its tokens, every head (the page's script asks
    ``heads.json``, which prices and computes them)."""
    found = model_views.find(model_id)
    if found is None:
        return _unknown(request, model_id)
    theme = request.query_params.get("theme", "auto")
    theme = theme if theme in THEMES else "auto"
    shown, problem = _page_text(found, text)
    priced(request, Cost(0, 0))  # the tokenizer only: every head is computed by heads.json
    spec = found.spec
    initial = {
        "model": spec.id,
        "text": shown,
        "installed": found.installed,
        "causal": spec.causal,
        "layers": spec.layers,
        "heads": spec.heads,
        "special_tokens": list(spec.special_tokens),
        "max_chars": MAX_TEXT_CHARS,
        "problem": problem,
        "theme": theme,
    }
    context = {
        "model": found,
        "spec": spec,
        "text": shown,
        "problem": problem,
        "max_chars": MAX_TEXT_CHARS,
        "patterns": [(PATTERN_WORDS[k], v) for k, v in PATTERN_MEANINGS.items()],
        "known_heads": model_views.known_heads(spec.id),
        "initial": Markup(json_block(initial)),
        "view": {"theme": theme},
    }
    page: HTMLResponse = templates.TemplateResponse(request, "models/model.html", context)
    return page


@router.get("/models/{model_id}/heads.json")
@computes
async def heads_json(
    model_id: str,
    request: Request,
    text: str = "",
    theme: str = "light",
    hide_special: str = "0",
    layer: int = 0,
    head: int = 0,
) -> Response:
    """Every head of ``model_id`` for ``text``: tokens, every head's colours, summaries
    and the full grid of ``layer``/``head`` (0-based) (JSON)."""
    return await _heads_route(
        request, model_id, (text, theme, hide_special, layer, head),
        model_views.heads_cost, model_views.heads_answer,
    )  # fmt: skip


@router.get("/models/{model_id}/head.json")
@computes
async def head_json(
    model_id: str,
    request: Request,
    text: str = "",
    theme: str = "light",
    hide_special: str = "0",
    layer: int = 0,
    head: int = 0,
) -> Response:
    """One head's full grid (the page's larger view when another head is picked)."""
    return await _heads_route(
        request, model_id, (text, theme, hide_special, layer, head),
        model_views.head_grid_cost, model_views.head_answer,
    )  # fmt: skip


async def _heads_route(
    request: Request,
    model_id: str,
    asked: tuple[str, str, str, int, int],
    cost_of: Callable[[ModelSpec, int], Cost],
    answer_of: Callable[..., Any],
) -> Response:
    """The two heads routes' one pipeline: check the model, view, head and text, price
    from the token count, then build and encode the answer off the event loop."""
    text, theme, hide_special, layer, head = asked
    checked = _checked(request, model_id, theme, hide_special)
    if isinstance(checked, Response):
        return checked
    model = model_views.load(model_id)
    model_views.check_head(model.spec, layer, head)
    tokens = model_views.check_text(model, text)
    cost = price(request, cost_of(model.spec, len(tokens)), "text")
    hide = hide_special == "1"

    def answer() -> bytes:
        return encode(answer_of(model, text, theme, hide, layer, head))

    return JSONBytes(await compute(request, cost, answer))


def _checked(request: Request, model_id: str, theme: str, hide_special: str) -> Response | None:
    """The 404 page for an unknown or missing model; FieldError for a bad view field."""
    found = model_views.find(model_id)
    if found is None:
        return _unknown(request, model_id)
    if not found.installed:
        detail = f"{found.spec.name} is not installed; install it with: {found.install}"
        return error_response(request, 404, "model", detail, "not_installed")
    if theme not in ("light", "dark"):
        raise FieldError("theme", "theme must be one of light, dark")
    if hide_special not in ("0", "1"):
        raise FieldError("hide_special", "hide_special must be 0 or 1")
    return None
