"""A page or embed URL's state, resolved and checked: the shared edge of embeds, oEmbed and
exports.

``plan_link(params, settings)`` decodes ``s``/``preset`` and the view parameters with
``app.inputs.link.parse_query``, validates the body as an ``AttentionRequest``, applies the size
limits and asks the cost model (``app.inputs.limits``), all from the shapes and before
any work, and fills in the default focus from the shapes; ``resolve_plan`` then runs the
engine (off the event loop when heavy) and checks the view against the result
(``ViewState.check``: focus within the tokens, head within the heads). ``resolve_link``
does both. Pages (which only plan: the page asks ``/api/v1/figures`` next), embeds,
oEmbed, exports and ``attention-lab export`` all take this path. Every failure is a
``StateError`` that names the URL parameter (``s``, ``preset``, ``focus``, …) and, for a
bad body, the field inside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from app import presets
from app.attention import AttentionInput, InputError, Stages, run
from app.inputs.body import AttentionRequest, check_limits
from app.inputs.errors import FieldError, error_detail, validation_detail
from app.inputs.fields import printable
from app.inputs.limits import (
    Cost,
    CostError,
    Shape,
    attention_cost,
    check_cost,
    figures_cost,
    request_shape,
)
from app.inputs.link import LinkState, parse_query
from app.inputs.view import check_figure_limits, check_figure_shape
from app.settings import Settings


class StateError(ValueError):
    """A link state that cannot be shown; ``param`` is the URL parameter to fix."""

    def __init__(self, param: str, message: str, loc: Sequence[str | int] = ()) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param
        self.message = message
        self.loc = ["query", param, *loc]

    def detail(self) -> dict[str, Any]:
        """The API's error shape for this error."""
        return error_detail(self.param, self.message, "invalid_state", self.loc)


@dataclass(frozen=True)
class Resolved:
    """A checked state: the link, the validated request, the engine's input and stages."""

    link: LinkState
    request: AttentionRequest
    input: AttentionInput
    stages: Stages
    title: str


def state_title(link: LinkState) -> str:
    """The preset's title, else a description built from the tokens (printable: it is
    shown in titles, ``title=`` attributes and exports)."""
    if link.preset_id:
        found = presets.get_preset(link.preset_id)
        if found is not None:
            return str(found["title"])
    tokens = link.body.get("tokens")
    if isinstance(tokens, list) and tokens and all(isinstance(t, str) for t in tokens):
        shown = " ".join(tokens[:6]) + (" …" if len(tokens) > 6 else "")
        return printable(f"“{shown}”")
    return "a custom example"


def drawable(resolved: Resolved, settings: Settings) -> None:
    """StateError (naming ``s``) when the state is too big to draw as a figure."""
    try:
        check_figure_limits(resolved.stages, settings)
    except FieldError as exc:
        raise StateError("s", f"{exc.field}: {exc.message}", exc.field.split(".")) from None


@dataclass(frozen=True)
class Plan:
    """A link's state decoded, validated and costed, before any work: ``resolve_plan``
    runs it. ``param`` is the URL parameter that errors in the body name. The link's
    view has its default focus filled in (``ViewState.for_tokens``)."""

    link: LinkState
    request: AttentionRequest
    shape: Shape
    cost: Cost
    param: str


def make_plan(
    link: LinkState, request: AttentionRequest, shape: Shape, cost: Cost, param: str
) -> Plan:
    """A plan whose view's default focus is filled in from the shapes."""
    view = link.view.for_tokens(shape.l_q)
    return Plan(replace(link, view=view), request, shape, cost, param)


def _state_error(exc: InputError | FieldError | CostError, param: str) -> StateError:
    return StateError(param, f"{exc.field}: {exc.message}", exc.field.split("."))


def check_request(
    body: Any, settings: Settings, param: str = "s", figures: int = 0
) -> tuple[AttentionRequest, Shape, Cost]:
    """Validate, limit and cost ``body`` from its shapes (nothing runs); errors name
    ``param`` and the field inside it. ``figures``: how many figures will be drawn too
    (0: the numbers only; True counts as one)."""
    try:
        request = AttentionRequest.model_validate(body)
        check_limits(request, settings)
        shape = request_shape(request)
        if figures:
            check_figure_shape(shape, settings)
        cost = figures_cost(shape, int(figures)) if figures else attention_cost(shape)
        check_cost(cost, settings, shape.reduce, field=shape.field)
    except ValidationError as exc:
        first = validation_detail([dict(e) for e in exc.errors()])["detail"][0]
        raise StateError(param, f"{first['field']}: {first['msg']}", first["loc"]) from None
    except (FieldError, CostError) as exc:
        raise _state_error(exc, param) from None
    return request, shape, cost


def plan_link(params: Mapping[str, str], settings: Settings, figures: int = 0) -> Plan:
    """Decode, validate and cost a URL's state without running it (cheap: on the loop)."""
    try:
        link = parse_query(params)
    except FieldError as exc:
        raise StateError(exc.field, exc.message) from None
    param = "s" if params.get("s") else "preset"
    request, shape, cost = check_request(link.body, settings, param, figures)
    return make_plan(link, request, shape, cost, param)


def resolve_plan(plan: Plan) -> Resolved:
    """Run a planned state and check its view (the work: off the loop when heavy)."""
    try:
        inp = plan.request.to_input()
        stages = run(inp)
    except (InputError, FieldError) as exc:
        if plan.param == "body":  # a POST body: the API's 422 names the field itself
            raise
        raise _state_error(exc, plan.param) from None
    try:
        plan.link.view.check(stages)
    except FieldError as exc:
        raise StateError(exc.field, exc.message) from None
    return Resolved(plan.link, plan.request, inp, stages, state_title(plan.link))


def resolve_link(params: Mapping[str, str], settings: Settings, figures: int = 0) -> Resolved:
    """Decode, check, cost and run a URL's state (see the module docstring)."""
    return resolve_plan(plan_link(params, settings, figures))
