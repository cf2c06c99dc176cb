"""The view of a link and of a JSON request: what the page looks at (focus row, head,
Figure 12's stretch and row, theme), read and written with the bounds, defaults and
messages of the one declaration (``app.figures.view_fields.VIEW_FIELDS``), and the
figures' request model.

``ViewState`` is the view of a link, an embed, an export or a CLI call. It is read from a
URL with ``ViewState.from_query`` and written back with ``to_query``; a JSON view
(``POST /api/v1/figures``' ``ViewRequest``, a CLI state file) becomes one with
``from_json``. The view is called ``row`` in URLs and ``softmax_row`` in JSON (the API is
additive-only, so both names stay); the declaration's ``json_name`` and these
constructors are the one place that translates. The default focus is ``default_focus``:
row 1, or 0 when there is one token. Bounds that need the stages (focus < L_Q,
head < heads) are checked by ``ViewState.check`` after the engine has run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.attention import Stages
from app.figures import BUILT_FIGURES, View, view_problem
from app.figures.registry import readers_text
from app.figures.view_fields import (
    DRAWN_THEMES,
    FOCUS,
    HEAD,
    ROW,
    STRETCH,
    THEME,
    VIEW_FIELDS,
    DrawnTheme,
    Row,
    Theme,
    ViewField,
    describe,
)
from app.figures.view_fields import (
    url_defaults as url_defaults,  # re-exported: pages and embeds write links with it
)
from app.inputs.body import AttentionRequest
from app.inputs.errors import FieldError
from app.inputs.limits import Shape
from app.inputs.query import query_float, query_int
from app.settings import Settings

if TYPE_CHECKING:
    FigureNumber = int
else:  # the registry's figures, as an enum in the schema
    FigureNumber = Literal[BUILT_FIGURES]


def default_focus(n_tokens: int) -> int:
    """The focus row when none is given: row 1 (the second token), or 0 when there is one."""
    return min(1, n_tokens - 1)


def field_doc(field: ViewField[Any], *, json: bool = False) -> str:
    """The field's OpenAPI description, as a URL parameter or (``json``) a JSON field."""
    return describe(field, readers_text(field.name), json=json)


def _read(params: Mapping[str, str], field: ViewField[Any]) -> Any:
    """The field's value in ``params`` (strict), or FieldError naming it."""
    text = params[field.name]
    value: Any = text
    if field.kind == "int":
        value = query_int(text, field.name)
    elif field.kind == "float":
        value = query_float(text, field.name)
    problem = field.problem(value)
    if problem is not None:
        raise FieldError(field.name, problem)
    return value


@dataclass(frozen=True)
class ViewState:
    """The view, as URLs name it. ``focus`` None means the default (``default_focus``);
    ``theme`` may be ``auto`` (follow the reader's colour scheme)."""

    focus: int | None = None
    head: int = HEAD.default
    stretch: float = STRETCH.default
    row: Row = ROW.default
    theme: Theme = THEME.default

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> ViewState:
        """The view parameters of a URL (strict: FieldError naming the parameter)."""
        return cls(**{f.name: _read(params, f) for f in VIEW_FIELDS if f.name in params})

    @classmethod
    def from_json(cls, view: Mapping[str, Any]) -> ViewState:
        """A JSON view (``softmax_row``, or ``row`` as in URLs), read as its URL twin:
        unknown keys are ignored, values are checked as URL parameters are."""
        params: dict[str, str] = {}
        for field in VIEW_FIELDS:
            value = view.get(field.json_key, view.get(field.name))
            if value is not None:
                params[field.name] = str(value)
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
        """FieldError naming ``focus`` or ``head`` when it points outside the stages, or
        the field whose value is outside the declared bounds."""
        focus = self.for_tokens(len(stages.tokens)).focus_row
        problem = view_problem(stages, focus, self.head)
        if problem is not None:
            raise FieldError(*problem)
        for field in VIEW_FIELDS:
            value = getattr(self, field.name)
            message = None if value is None else field.problem(value)
            if message is not None:
                raise FieldError(field.name, message)

    @property
    def focus_row(self) -> int:
        """The focus once resolved (``for_tokens``); 1 before."""
        return FOCUS.default if self.focus is None else self.focus

    def figure_view(self, theme: DrawnTheme, figures: tuple[int, ...] = BUILT_FIGURES) -> View:
        """The figures' ``View`` (which calls the row ``softmax_row``, as JSON does)."""
        return View(focus=self.focus_row, head=self.head, stretch=self.stretch,
                    softmax_row=self.row, theme=theme, figures=figures)  # fmt: skip


DEFAULT_VIEW = ViewState()


class ViewRequest(BaseModel):
    """What the figures explain and how they look (the JSON form of ``ViewState``)."""

    model_config = ConfigDict(extra="forbid")

    focus: int | None = Field(
        None, ge=FOCUS.low, le=FOCUS.high, description=field_doc(FOCUS, json=True), examples=[1]
    )
    head: int = Field(
        HEAD.default, ge=HEAD.low, le=HEAD.high, description=field_doc(HEAD, json=True),
        examples=[0],
    )  # fmt: skip
    stretch: float = Field(
        STRETCH.default, allow_inf_nan=False, ge=STRETCH.low, le=STRETCH.high,
        description=field_doc(STRETCH, json=True), examples=[8.0],
    )  # fmt: skip
    softmax_row: Row = Field(ROW.default, description=field_doc(ROW, json=True), examples=["focus"])
    theme: DrawnTheme = Field(
        DRAWN_THEMES[0], description=field_doc(THEME, json=True), examples=["dark"]
    )
    figures: list[FigureNumber] | None = Field(
        None,
        max_length=32,
        description=f"Which figures to build (default all of {BUILT_FIGURES[0]} … "
        f"{BUILT_FIGURES[-1]}).",
        examples=[[6, 7]],
    )

    def state(self) -> ViewState:
        """The one view model for this JSON view."""
        return ViewState(self.focus, self.head, self.stretch, self.softmax_row, self.theme)

    def to_view(self, l_q: int) -> View:
        """The figures' View; the default focus is ``default_focus(l_q)``."""
        wanted = tuple(sorted(set(self.figures))) if self.figures else BUILT_FIGURES
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
