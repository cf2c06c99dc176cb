"""The ONE view model: what the page looks at (focus row, head, Figure 12's stretch and row,
theme), with its one set of bounds and defaults, and the figures' request model.

``ViewState`` is the view of a link, an embed, an export or a CLI call. It is read from a
URL with ``ViewState.from_query`` and written back with ``to_query``; a JSON view
(``POST /api/v1/figures``' ``ViewRequest``, a CLI state file) becomes one with
``from_json``. The view is called ``row`` in URLs and ``softmax_row`` in JSON (the API is
additive-only, so both names stay); ``JSON_NAMES`` and these constructors are the one place
that translates. The default focus is ``default_focus``: row 1, or 0 when there is one
token. Bounds that need the stages (focus < L_Q, head < heads) are checked by
``ViewState.check`` after the engine has run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from app.attention import Stages
from app.figures import FIGURE_NUMBERS, View, view_problem
from app.figures.registry import focus_figures_text
from app.inputs.body import AttentionRequest
from app.inputs.errors import FieldError
from app.inputs.limits import Shape
from app.inputs.query import query_float, query_int
from app.settings import Settings

Row = Literal["textbook", "focus"]
Theme = Literal["light", "dark", "auto"]
ROWS: tuple[Row, ...] = ("textbook", "focus")
THEMES: tuple[Theme, ...] = ("light", "dark", "auto")
FOCUS_MAX = 4095
HEAD_MAX = 511
STRETCH_MIN, STRETCH_MAX = 0.1, 64.0
STRETCH_DEFAULT = 8.0
# URL name -> JSON name, where they differ (the only one: Figure 12's row).
JSON_NAMES = {"row": "softmax_row"}


def default_focus(n_tokens: int) -> int:
    """The focus row when none is given: row 1 (the second token), or 0 when there is one."""
    return min(1, n_tokens - 1)


def _choice(params: Mapping[str, str], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = params.get(key, default)
    if value not in allowed:
        raise FieldError(key, f"{key} must be one of {', '.join(allowed)}")
    return value


@dataclass(frozen=True)
class ViewState:
    """The view, as URLs name it. ``focus`` None means the default (``default_focus``);
    ``theme`` may be ``auto`` (follow the reader's colour scheme)."""

    focus: int | None = None
    head: int = 0
    stretch: float = STRETCH_DEFAULT
    row: Row = "textbook"
    theme: Theme = "auto"

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> ViewState:
        """The view parameters of a URL (strict: FieldError naming the parameter)."""
        focus = query_int(params["focus"], "focus") if "focus" in params else None
        head = query_int(params["head"], "head") if "head" in params else 0
        stretch = STRETCH_DEFAULT
        if "stretch" in params:
            stretch = query_float(params["stretch"], "stretch")
            check_stretch(stretch)
        row = cast(Row, _choice(params, "row", ROWS, "textbook"))
        theme = cast(Theme, _choice(params, "theme", THEMES, "auto"))
        return cls(focus, head, stretch, row, theme)

    @classmethod
    def from_json(cls, view: Mapping[str, Any]) -> ViewState:
        """A JSON view (``softmax_row``, or ``row`` as in URLs), read as its URL twin:
        unknown keys are ignored, values are checked as URL parameters are."""
        params: dict[str, str] = {}
        for key in ("focus", "head", "stretch", "row", "theme"):
            value = view.get(JSON_NAMES.get(key, key), view.get(key))
            if value is not None:
                params[key] = str(value)
        return cls.from_query(params)

    def to_query(self) -> dict[str, str]:
        """The URL parameters that differ from the defaults (focus 1 is the default)."""
        defaults = url_defaults()
        return {
            key: str(value)
            for key, value in self.as_dict().items()
            if value is not None and value != defaults[key]
        }

    def as_dict(self) -> dict[str, Any]:
        """The view as the page's script reads it (URL names)."""
        return asdict(self)

    def for_tokens(self, n_tokens: int) -> ViewState:
        """The view with the default focus filled in for ``n_tokens`` query rows."""
        return self if self.focus is not None else replace(self, focus=default_focus(n_tokens))

    def check(self, stages: Stages) -> None:
        """FieldError naming ``focus`` or ``head`` when it points outside the stages."""
        focus = self.for_tokens(len(stages.tokens)).focus_row
        problem = view_problem(stages, focus, self.head)
        if problem is not None:
            raise FieldError(*problem)
        check_stretch(self.stretch)

    @property
    def focus_row(self) -> int:
        """The focus once resolved (``for_tokens``); 1 before."""
        return 1 if self.focus is None else self.focus

    def figure_view(
        self, theme: Literal["light", "dark"], figures: tuple[int, ...] = FIGURE_NUMBERS
    ) -> View:
        """The figures' ``View`` (which calls the row ``softmax_row``, as JSON does)."""
        return View(focus=self.focus_row, head=self.head, stretch=self.stretch,
                    softmax_row=self.row, theme=theme, figures=figures)  # fmt: skip


DEFAULT_VIEW = ViewState()


def check_stretch(stretch: float) -> None:
    if not STRETCH_MIN <= stretch <= STRETCH_MAX:
        raise FieldError("stretch", f"stretch must be between {STRETCH_MIN:g} and {STRETCH_MAX:g}")


class ViewRequest(BaseModel):
    """What the figures explain and how they look (the JSON form of ``ViewState``)."""

    model_config = ConfigDict(extra="forbid")

    focus: int | None = Field(
        None, ge=0, le=FOCUS_MAX,
        description=f"0-based query row that {focus_figures_text()}; "
        "default 1 (the second token), or 0 when there is only one.",
        examples=[1],
    )  # fmt: skip
    head: int = Field(
        0, ge=0, le=HEAD_MAX, description="0-based head shown by single-head figures.",
        examples=[0],
    )  # fmt: skip
    stretch: float = Field(
        STRETCH_DEFAULT, allow_inf_nan=False, ge=STRETCH_MIN, le=STRETCH_MAX,
        description="Figure 12: the factor the scores are multiplied by.", examples=[8.0],
    )  # fmt: skip
    softmax_row: Row = Field(
        "textbook",
        description="Figure 12's row: 'textbook' ([1, 2, 3]) or 'focus' (the focus row of "
        "the scaled scores).",
        examples=["focus"],
    )
    theme: Literal["light", "dark"] = Field(
        "light", description="Colours of the figures.", examples=["dark"]
    )
    figures: list[Literal[3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]] | None = Field(
        None,
        max_length=32,
        description="Which figures to build (default all of 3 … 13).",
        examples=[[6, 7]],
    )

    def state(self) -> ViewState:
        """The one view model for this JSON view."""
        return ViewState(self.focus, self.head, self.stretch, self.softmax_row, self.theme)

    def to_view(self, l_q: int) -> View:
        """The figures' View; the default focus is ``default_focus(l_q)``."""
        wanted = tuple(sorted(set(self.figures))) if self.figures else FIGURE_NUMBERS
        return self.state().for_tokens(l_q).figure_view(self.theme, wanted)


class FiguresRequest(AttentionRequest):
    """Every field of an attention request, plus ``view``."""

    view: ViewRequest | None = Field(
        None,
        description="What the figures explain and how they look.",
        examples=[{"focus": 1, "stretch": 8.0, "softmax_row": "textbook", "theme": "light"}],
    )


def check_figure_limits(stages: Stages, settings: Settings) -> None:
    """``check_figure_shape`` for stages already computed."""
    check_figure_shape(
        Shape(
            l_q=len(stages.tokens), l_k=len(stages.key_tokens),
            d_model=0 if stages.x is None else stages.x.shape[1],
            d_k=stages.q.shape[1], d_v=stages.v.shape[1], cross=stages.cross,
        ),
        settings,
    )  # fmt: skip


def check_figure_shape(shape: Shape, settings: Settings) -> None:
    """Refuse to draw states above ``max_figure_tokens`` / ``max_figure_width``, from the
    shapes alone, before the engine runs.

    The numbers alone are allowed up to ``max_tokens``; figures hold every cell several
    times over (text, hover, derivations), so a 512 × 512 state would take minutes and
    gigabytes. The error names the input that sets the size.
    """
    direct = shape.d_model == 0
    sizes = (
        ("q" if direct else "x", "tokens (L_Q)", shape.l_q, settings.max_figure_tokens),
        ("k" if direct else ("source.x" if shape.cross else "x"), "keys (L_K)",
         shape.l_k, settings.max_figure_tokens),
        ("x", "columns (d_model)", shape.d_model, settings.max_figure_width),
        ("q" if direct else "w_q", "columns (d_k)", shape.d_k, settings.max_figure_width),
        ("v" if direct else "w_v", "columns (d_v)", shape.d_v, settings.max_figure_width),
    )  # fmt: skip
    for field, what, size, limit in sizes:
        if size > limit:
            raise FieldError(
                field,
                f"{size} {what} is more than figures are drawn for ({limit}); "
                "POST /api/v1/attention computes the numbers up to the larger limits",
            )


def url_defaults() -> dict[str, Any]:
    """What a link leaves out: each view key's value when absent (focus 1, the default
    for two tokens or more). The page's script receives this table to write links."""
    return {**DEFAULT_VIEW.as_dict(), "focus": 1}
