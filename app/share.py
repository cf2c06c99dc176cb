"""A page or embed URL's state, resolved and checked: the shared edge of embeds, oEmbed and
exports.

``resolve_link(params, settings)`` decodes ``s``/``preset`` and the view parameters with
``app.state.parse_query``, validates the body as an ``AttentionRequest``, applies the size
limits, runs the engine and checks the view against the result (focus within the tokens,
head within the heads, stretch in range). Every failure is a ``StateError`` that names the
URL parameter (``s``, ``preset``, ``focus``, …) and, for a bad body, the field inside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import ValidationError

from app import presets
from app.attention import AttentionInput, InputError, Stages, run
from app.errors import error_body
from app.figures import View
from app.schemas import AttentionRequest, check_limits
from app.schemas_figures import check_figure_limits
from app.settings import Settings
from app.state import LinkState, parse_query

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
        return {"detail": [{"field": self.param, "msg": self.message, "type": "invalid_state",
                            "loc": self.loc}]}  # fmt: skip


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
    except InputError as exc:
        raise StateError("s", f"{exc.field}: {exc.message}", exc.field.split(".")) from None


def check_request(
    body: Any, settings: Settings, param: str = "s"
) -> tuple[AttentionRequest, AttentionInput, Stages]:
    """Validate, limit and run ``body``; errors name ``param`` and the field inside it."""
    try:
        request = AttentionRequest.model_validate(body)
        check_limits(request, settings)
        inp = request.to_input()
        return request, inp, run(inp)
    except ValidationError as exc:
        first = error_body([dict(e) for e in exc.errors()])["detail"][0]
        raise StateError(param, f"{first['field']}: {first['msg']}", first["loc"]) from None
    except InputError as exc:
        raise StateError(param, f"{exc.field}: {exc.message}", exc.field.split(".")) from None


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


def resolve_link(params: Mapping[str, str], settings: Settings) -> Resolved:
    """Decode and check a URL's state (see the module docstring)."""
    try:
        link = parse_query(params)
    except InputError as exc:
        raise StateError(exc.field, exc.message) from None
    param = "s" if params.get("s") else "preset"
    request, inp, stages = check_request(link.body, settings, param)
    if "focus" not in params:  # the default focus, row 1, exists only from two tokens on
        link = replace(link, view={**link.view, "focus": min(1, len(stages.tokens) - 1)})
    check_view(link.view, stages)
    return Resolved(link, request, inp, stages, state_title(link))
