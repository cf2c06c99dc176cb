"""The model pages: ``GET /models`` (every model, installed or how to install it) and
``GET /models/{id}`` (a sentence's tokens and every layer × head of the model), and the
page's data, ``GET /models/{id}/heads.json?text=…`` (every head as a grid with its
summary, ``app.web.model_views``) and ``generate.json`` (the generation mode of a model
that generates: one head's new query rows over the cached keys, the cache's bytes and
the check against recomputing everything), declared to the one runner (``app.http.runner``): the
sentence is tokenized in a worker thread after admission, never on the event loop, and an
identical request (a class opening one link) shares the answer.

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
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.inputs.model_text import MAX_TEXT_CHARS
from app.inputs.plan import Ask, Plan
from app.inputs.query import query_int
from app.models.base import ModelSpec
from app.models.generation import MAX_STEPS
from app.web import model_views
from app.web.errors import error_response, html_answer, page_error
from app.web.model_views import PATTERN_MEANINGS, PATTERN_WORDS, Listed
from app.web.oembed import DEFAULT_FIGURE
from app.web.templating import templates
from app.wire import encode, json_block

# The page's template around one sentence (its heads come from heads.json).
PAGE_COST = Cost(1, 60_000)

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


def _found(request: Request) -> Response | None:
    """The 404 page for an unknown model (before anything else)."""
    model_id = request.path_params["model_id"]
    return _unknown(request, model_id) if model_views.find(model_id) is None else None


def _plan_page(ask: Ask) -> Plan:
    """The page's sentence (tokenized to check it: in a worker thread, after admission)
    and theme; priced by its template (every head is computed by heads.json)."""
    found = model_views.find(ask.path["model_id"])
    assert found is not None  # _found ran first
    theme = ask.query.get("theme", "auto")
    shown, problem = _page_text(found, ask.query.get("text"))
    asked, generating_problem = _page_generation(found, ask.query)
    args = (found, shown, problem or generating_problem, theme if theme in THEMES else "auto")
    return Plan(PAGE_COST, "text", args=(*args, asked))


def _page_generation(found: Listed, query: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The generation a link opens (``steps``, and ``seed`` when sampled), or None, and
    a message when the link's could not be read (the page opens without it)."""
    if not found.generates or "steps" not in query:
        return None, None
    try:
        steps, seed = generation_asked(query)
    except FieldError as exc:
        return None, f"The link's generation could not be used ({exc.field}: {exc.message})."
    return {"steps": steps, "seed": seed}, None


def _page(request: Request, plan: Plan) -> Answer:
    found, shown, problem, theme, generating = plan.args
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
        "generates": found.generates,
        "generate": generating,
        "max_steps": MAX_STEPS,
        "default_steps": model_views.GENERATE_STEPS,
        "embed_figure": DEFAULT_FIGURE,
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
        "generating": generating,
        "max_steps": MAX_STEPS,
        "default_steps": model_views.GENERATE_STEPS,
        "max_seed": 10**SEED_DIGITS - 1,
        "embed_figure": DEFAULT_FIGURE,
    }
    return html_answer(templates.TemplateResponse(request, "models/model.html", context))


@router.get("/models/{model_id}", response_class=HTMLResponse)
@declare("page", plan=_plan_page, work=_page, off_loop=True, check=_found, errors=page_error)
def model_page(model_id: str, request: Request, text: str | None = None) -> Response:
    """One model: a sentence box, its tokens, every head (the page's script asks
    ``heads.json``, which prices and computes them)."""
    raise NotImplementedError  # run by app.http.runner


def _heads_check(request: Request) -> Response | None:
    q = request.query_params
    model_id = request.path_params["model_id"]
    return _checked(request, model_id, q.get("theme", "light"), q.get("hide_special", "0"))


def _heads_plan(cost_of: Callable[[ModelSpec, int], Cost]) -> Callable[[Ask], Plan]:
    """The plan of heads.json / head.json: the head and the text checked (tokenized: in
    a worker thread, after admission), priced from the token count."""

    def plan(ask: Ask) -> Plan:
        q = ask.query
        model = model_views.load(ask.path["model_id"])
        layer, head = int(q.get("layer", "0")), int(q.get("head", "0"))
        model_views.check_head(model.spec, layer, head)
        text = q.get("text", "")
        tokens = model_views.check_text(model, text)
        asked = (model, text, q.get("theme", "light"), q.get("hide_special") == "1", layer, head)
        return Plan(cost_of(model.spec, len(tokens)), "text", args=asked)

    return plan


def _heads_work(answer_of: Callable[..., Any]) -> Callable[[Request, Plan], Answer]:
    def work(_: Request, plan: Plan) -> Answer:
        return Answer(encode(answer_of(*plan.args)))

    return work


@router.get("/models/{model_id}/heads.json")
@declare("json", plan=_heads_plan(model_views.heads_cost), off_loop=True, check=_heads_check,
         work=_heads_work(model_views.heads_answer))  # fmt: skip
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
    raise NotImplementedError  # run by app.http.runner


@router.get("/models/{model_id}/head.json")
@declare("json", plan=_heads_plan(model_views.head_grid_cost), off_loop=True,
         check=_heads_check, work=_heads_work(model_views.head_answer))  # fmt: skip
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
    raise NotImplementedError  # run by app.http.runner


def _generate_check(request: Request) -> Response | None:
    q = request.query_params
    return _checked(request, request.path_params["model_id"], q.get("theme", "light"), "0")


SEED_DIGITS = 6  # a seed in a link: 0 … 999,999 (the API takes any 64-bit one)


def generation_asked(query: Any) -> tuple[int, int | None]:
    """``steps`` (default ``GENERATE_STEPS``) and ``seed`` (absent or empty: greedy) of a
    query, strict whole numbers or FieldError naming the parameter."""
    steps = query_int(query.get("steps", str(model_views.GENERATE_STEPS)), "steps", 2)
    seed_text = query.get("seed", "")
    seed = query_int(seed_text, "seed", SEED_DIGITS) if seed_text else None
    return steps, seed


def _generate_plan(ask: Ask) -> Plan:
    """generate.json: the head, steps and seed read strictly, the text tokenized (in a
    worker thread, after admission) and checked with the steps, priced from its tokens."""
    q = ask.query
    model = model_views.load(ask.path["model_id"])
    layer = query_int(q.get("layer", "0"), "layer", 3)
    head = query_int(q.get("head", "0"), "head", 3)
    model_views.check_head(model.spec, layer, head)
    steps, seed = generation_asked(q)
    text = q.get("text", "")
    prompt = len(model_views.check_text(model, text))
    model_views.check_generation(model, prompt, steps, seed)
    asked = (model, text, steps, seed, q.get("theme", "light"), layer, head)
    return Plan(model_views.generation_cost(model.spec, prompt, steps), "text or steps",
                args=asked, field="text")  # fmt: skip


@router.get("/models/{model_id}/generate.json")
@declare("json", plan=_generate_plan, off_loop=True, check=_generate_check,
         work=_heads_work(model_views.generation_answer))  # fmt: skip
async def generate_json(model_id: str, request: Request) -> Response:
    """The page's generation mode: ``steps`` tokens added to ``text`` (greedy, or sampled
    with ``seed``), head ``head`` of ``layer`` (0-based) as each new query's row over the
    cached keys, the cache's bytes and the check against recomputing everything (JSON)."""
    raise NotImplementedError  # run by app.http.runner


def _checked(request: Request, model_id: str, theme: str, hide_special: str) -> Response | None:
    """The 404 page for an unknown or missing model; FieldError for a bad view field."""
    found = model_views.find(model_id)
    if found is None:
        return _unknown(request, model_id)
    if not found.installed:
        return error_response(request, 404, "model", found.missing, "not_installed")
    if theme not in ("light", "dark"):
        raise FieldError("theme", "theme must be one of light, dark")
    if hide_special not in ("0", "1"):
        raise FieldError("hide_special", "hide_special must be 0 or 1")
    return None
