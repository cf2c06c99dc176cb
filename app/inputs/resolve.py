"""A page or embed URL's state, resolved and checked: the shared edge of embeds, oEmbed and
exports.

``plan_link(params, settings)`` decodes ``s``/``preset`` and the view parameters with
``app.inputs.link.parse_query``, validates the body as an ``AttentionRequest``, applies the size
limits and asks the cost model (``app.inputs.limits``), all from the shapes and before
any work; ``resolve_plan`` then runs the engine (off the event loop when heavy) and checks
the view against the result (focus within the tokens, head within the heads, stretch in
range). ``resolve_link`` does both. Every failure is a ``StateError`` that names the
URL parameter (``s``, ``preset``, ``focus``, …) and, for a bad body, the field inside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import ValidationError

from app.attention import AttentionInput, InputError, Stages, run
from app.figures import View
from app.inputs import presets
from app.inputs.body import AttentionRequest, check_limits
from app.inputs.errors import FieldError, error_detail, validation_detail
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

STRETCH_RANGE = (0.1, 64.0)


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
    """The preset's title, else a description built from the tokens."""
    if link.preset_id:
        found = presets.get_preset(link.preset_id)
        if found is not None:
            return str(found["title"])
    tokens = link.body.get("tokens")
    if isinstance(tokens, list) and tokens and all(isinstance(t, str) for t in tokens):
        shown = " ".join(tokens[:6]) + (" …" if len(tokens) > 6 else "")
        return f"“{shown}”"
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
    runs it. ``param`` is the URL parameter that errors in the body name."""

    link: LinkState
    request: AttentionRequest
    shape: Shape
    cost: Cost
    param: str
    default_focus: bool


def _state_error(exc: InputError | FieldError | CostError, param: str) -> StateError:
    return StateError(param, f"{exc.field}: {exc.message}", exc.field.split("."))


def check_request(
    body: Any, settings: Settings, param: str = "s", figures: bool = False
) -> tuple[AttentionRequest, Shape, Cost]:
    """Validate, limit and cost ``body`` from its shapes (nothing runs); errors name
    ``param`` and the field inside it. ``figures``: it will be drawn, too."""
    try:
        request = AttentionRequest.model_validate(body)
        check_limits(request, settings)
        shape = request_shape(request)
        if figures:
            check_figure_shape(shape, settings)
        cost = figures_cost(shape, 1) if figures else attention_cost(shape)
        check_cost(cost, settings, shape.reduce, field=shape.field)
    except ValidationError as exc:
        first = validation_detail([dict(e) for e in exc.errors()])["detail"][0]
        raise StateError(param, f"{first['field']}: {first['msg']}", first["loc"]) from None
    except (FieldError, CostError) as exc:
        raise _state_error(exc, param) from None
    return request, shape, cost


def check_view(view: Mapping[str, Any], stages: Stages) -> None:
    """Focus within the query tokens, head within the heads, stretch within its range."""
    n_tokens, n_heads = len(stages.tokens), len(stages.heads)
    if view["focus"] >= n_tokens:
        raise StateError("focus", f"focus is 0-based and must be below {n_tokens} (the tokens)")
    if view["head"] >= n_heads:
        raise StateError("head", f"head is 0-based and must be below {n_heads} (the heads)")
    low, high = STRETCH_RANGE
    if not low <= view["stretch"] <= high:
        raise StateError("stretch", f"stretch must be between {low:g} and {high:g}")


def figure_view(view: Mapping[str, Any], theme: Literal["light", "dark"], number: int) -> View:
    """The figures' View of one figure for a link's view parameters."""
    return View(focus=view["focus"], head=view["head"], stretch=view["stretch"],
                softmax_row=view["row"], theme=theme, figures=(number,))  # fmt: skip


def plan_link(params: Mapping[str, str], settings: Settings, figures: bool = False) -> Plan:
    """Decode, validate and cost a URL's state without running it (cheap: on the loop)."""
    try:
        link = parse_query(params)
    except FieldError as exc:
        raise StateError(exc.field, exc.message) from None
    param = "s" if params.get("s") else "preset"
    request, shape, cost = check_request(link.body, settings, param, figures)
    return Plan(link, request, shape, cost, param, "focus" not in params)


def resolve_plan(plan: Plan) -> Resolved:
    """Run a planned state and check its view (the work: off the loop when heavy)."""
    try:
        inp = plan.request.to_input()
        stages = run(inp)
    except (InputError, FieldError) as exc:
        if plan.param == "body":  # a POST body: the API's 422 names the field itself
            raise
        raise _state_error(exc, plan.param) from None
    link = plan.link
    if plan.default_focus:  # the default focus, row 1, exists only from two tokens on
        link = replace(link, view={**link.view, "focus": min(1, len(stages.tokens) - 1)})
    check_view(link.view, stages)
    return Resolved(link, plan.request, inp, stages, state_title(link))


def resolve_link(params: Mapping[str, str], settings: Settings, figures: bool = False) -> Resolved:
    """Decode, check, cost and run a URL's state (see the module docstring)."""
    return resolve_plan(plan_link(params, settings, figures))
