"""A real model's head embedded like any figure: ``/embed/{figure}?model=…&text=…&layer=…&head=…``
and the oEmbed answer for such an embed, or for the main page opened on the head.

The embed names the head by its short link (``app.web.model_link``: the model, the
sentence, the layer and head counted from 1, and the view), never by its state: as an
``s=`` state MiniLM's head is some 800 kB of base64, the decoder's 111 kB. ``app.web.embed``
hands a query with ``model`` to the one runner (``app.http.runner``) with the
declarations built here: the sentence is read and tokenized in a worker thread after
admission and priced as ``POST /api/v1/models/{id}/head`` is (``model_views.link_cost``),
then the model runs, the state is checked as any link's is (limits, figure limits, the
figures' cost) and the figure is built from it as for any state, so its numbers are the
model's weights. Identical requests (a class opening one course page) share one answer.

The embed is read-only: its state is a real model's (hundreds of columns), so an editor
or toggles (``editable``, ``controls``) are refused with a 422 naming them, and the page
carries no state (``body`` is null); "Open in Attention Lab" opens the head on the main
page, where it can be edited. An unknown model, or one not installed, is a 404 naming
``model`` (with the command that installs it); a bad layer, head, sentence, view or frame
option a 422 naming it; never a 500.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from app.http.responses import site_base
from app.http.runner import Declared
from app.http.sending import Answer
from app.inputs.errors import FieldError
from app.inputs.frame import FrameOptions, frame_options
from app.inputs.limits import CostError, check_cost
from app.inputs.link import FIGURE_KEY
from app.inputs.plan import Ask, Plan
from app.inputs.resolve import Resolved, StateError, resolve_plan
from app.inputs.view import url_defaults
from app.settings import Settings
from app.web import model_link
from app.web.errors import embed_error_page, html_answer
from app.web.figure_embed import figure_specs, script_json
from app.web.model_link import ModelHead
from app.web.oembed import OEmbedError, embed_path, frame_size, oembed_error, oembed_response
from app.web.templating import templates
from app.wire import encode

# The embed options a head's embed refuses: its state is a real model's, not editable here.
READ_ONLY = {
    "editable": "a real model's head is embedded read-only; remove editable (Open in "
    "Attention Lab edits it)",
    "controls": "a real model's head is embedded without toggles; remove controls (Open in "
    "Attention Lab changes them)",
}


class RefusedError(FieldError):
    """A refused head embed, with its HTTP status (404: no such model here; 422 else)."""

    def __init__(self, field: str, message: str, status: int) -> None:
        super().__init__(field, message)
        self.status = status


def _refused(exc: StateError | FieldError) -> RefusedError:
    field = exc.param if isinstance(exc, StateError) else exc.field
    return RefusedError(field, exc.message, 404 if field == "model" else 422)


def read_only(query: Mapping[str, str]) -> None:
    """``RefusedError`` (422) naming an editor or toggles asked of a head's embed."""
    for key, message in READ_ONLY.items():
        if query.get(key, "") not in ("", "0"):
            raise RefusedError(key, message, 422)


def priced(head: ModelHead, settings: Settings) -> Plan:
    """The plan's price, the model's forward pass for the head's sentence, checked here so
    that an embed over the budget gets its own small error page naming ``text``."""
    cost = model_link.cost_of(head)
    try:
        check_cost(cost, settings, "text")
    except CostError as exc:
        raise RefusedError(exc.field, exc.message, exc.status) from None
    return Plan(cost, "text")


def read_head(query: Mapping[str, str]) -> tuple[ModelHead, int]:
    """The head the query names (registry, installed, layer, head, sentence: tokenized)
    and how many figures its theme draws (``auto``: both schemes); ``RefusedError`` naming the
    parameter otherwise."""
    try:
        head = model_link.parse(query)
    except StateError as exc:
        raise _refused(exc) from None
    return head, 2 if query.get("theme", "auto") == "auto" else 1


def resolve_head(
    head: ModelHead, query: Mapping[str, str], settings: Settings, drawn: int
) -> Resolved:
    """Run the model for the head, check the state as a link's and run the engine."""
    try:
        return resolve_plan(model_link.planned(head, query, settings, drawn))
    except StateError as exc:
        raise _refused(exc) from None


def head_title(head: ModelHead) -> str:
    """What the embed says it shows: the model, the head (counted from 1), the sentence."""
    return f"{head.name}, layer {head.layer}, head {head.head}, on “{head.text}”"


def page_query(head: ModelHead, resolved: Resolved) -> str:
    """The main page's short query of the head in the embed's view (``model_link``)."""
    view = urlencode(resolved.link.view.to_query())
    return "&".join(part for part in (head.query, view) if part)


# ---- the embed: GET /embed/{figure}?model=… ----


def _plan_embed(ask: Ask) -> Plan:
    """The head and the frame options checked, priced by the model's forward pass (a
    worker thread: the sentence is tokenized)."""
    read_only(ask.query)
    try:
        frame = frame_options(ask.query)
    except FieldError as exc:
        raise _refused(exc) from None
    head, drawn = read_head(ask.query)
    number = int(ask.path["figure"])  # the route checked it is a built figure
    return replace(priced(head, ask.settings), args=(head, number, frame, drawn))


def _embed(request: Request, plan: Plan) -> Answer:
    head, number, frame, drawn = plan.args
    resolved = resolve_head(head, request.query_params, request.app.state.settings, drawn)
    return html_answer(_page(request, resolved, head, number, frame))


def _page(
    request: Request, resolved: Resolved, head: ModelHead, number: int, frame: FrameOptions
) -> Response:
    specs = figure_specs(resolved, number)
    view = resolved.link.view
    data = {
        "figure": number, "body": None, "view": view.as_dict(), "view_defaults": url_defaults(),
        "preset_id": None, "specs": specs, "editable": False, "controls": [],
        "tokens": list(resolved.stages.tokens), "heads": 1, "model_link": head.as_dict(),
        "frame": {"height": frame.height, "autoplay": frame.autoplay},
    }  # fmt: skip
    context = {
        "number": number, "spec": next(iter(specs.values())), "data": script_json(data),
        "open_url": f"/?{page_query(head, resolved)}&{FIGURE_KEY}={number}#fig-{number}",
        "title": head_title(head), "view": view, "body": resolved.link.body, "controls": [],
        "editable": False, "matrices": [], "tokens": resolved.stages.tokens, "heads": 1,
    }  # fmt: skip
    page: Response = templates.TemplateResponse(request, "embed.html", context)
    return page


def _embed_refused(request: Request, exc: FieldError) -> Response:
    status = getattr(exc, "status", None) or 422
    thing = "model on this server" if status == 404 else "figure"  # unknown, or not installed
    return embed_error_page(request, status, exc.field, exc.message, thing=thing)


EMBED = Declared("embed", plan=_plan_embed, work=_embed, off_loop=True, errors=_embed_refused)


# ---- oEmbed: GET /oembed?url=<a head's page or embed URL> ----


def oembed_declared(number: int, params: dict[str, str]) -> Declared:
    """The declaration that answers the oEmbed of a head's URL (figure ``number``, its
    query ``params``, both read from the URL by ``app.web.oembed.parse_site_url``). Its
    answer holds absolute links written from the Host, so it is keyed by it, as an
    embed's page is (surface ``embed``)."""
    return Declared(
        "embed", plan=partial(_plan_oembed, number, params), work=_oembed, off_loop=True,
        errors=_oembed_refused,
    )  # fmt: skip


def _plan_oembed(number: int, params: dict[str, str], ask: Ask) -> Plan:
    read_only(params)
    head, _ = read_head(params)
    bounds = tuple(ask.query.get(k) for k in ("maxwidth", "maxheight"))
    return replace(priced(head, ask.settings), args=(head, number, params, bounds))


def _oembed(request: Request, plan: Plan) -> Answer:
    head, number, params, bounds = plan.args
    resolved = resolve_head(head, params, request.app.state.settings, 1)
    spec = next(iter(figure_specs(resolved, number).values()))  # as the embed draws it
    size = frame_size(spec, params, open_title=head_title(head), maxwidth=_whole(bounds[0]))
    base = site_base(request)
    answer = oembed_response(
        src=base + embed_path(number, params), size=size, provider_url=base + "/",
        title=f"Attention Lab, Figure {number}: {spec['title']} ({head_title(head)})",
        maxwidth=_whole(bounds[0]), maxheight=_whole(bounds[1]),
    )  # fmt: skip
    return Answer(encode(answer), "application/json")


def _whole(text: str | None) -> int | None:
    """maxwidth / maxheight, already checked by the oEmbed route (a whole number ≥ 1)."""
    return int(text) if text else None


def _oembed_refused(request: Request, exc: FieldError) -> Response:
    status = getattr(exc, "status", None) or 404
    if status == 422 and isinstance(exc, RefusedError):  # the URL's value, as oEmbed refuses any
        status = 404
    return oembed_error(OEmbedError(status, "url", f"the URL's {exc.field}: {exc.message}"))
