"""Request model of ``POST /api/v1/figures``: an AttentionRequest plus an optional ``view``.

The view says what the page looks at (focus row, head, Figure 12's stretch and row, theme,
which figures). Bounds that need the stages (focus < L_Q, head < heads) are checked by the
route after the engine has run, and answer 422 naming ``view.focus`` / ``view.head``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.attention import Stages
from app.figures import FIGURE_NUMBERS, View
from app.inputs.body import AttentionRequest
from app.inputs.errors import FieldError
from app.inputs.limits import Shape
from app.settings import Settings


class ViewRequest(BaseModel):
    """What the figures explain and how they look."""

    model_config = ConfigDict(extra="forbid")

    focus: int | None = Field(
        None, ge=0, le=4095,
        description="0-based query row that Figures 3, 6, 8, 9 and 12 explain; "
        "default 1 (the second token), or 0 when there is only one.",
        examples=[1],
    )  # fmt: skip
    head: int = Field(
        0, ge=0, le=511, description="0-based head shown by single-head figures.", examples=[0]
    )
    stretch: float = Field(
        8.0, allow_inf_nan=False, ge=0.1, le=64,
        description="Figure 12: the factor the scores are multiplied by.", examples=[8.0],
    )  # fmt: skip
    softmax_row: Literal["textbook", "focus"] = Field(
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

    def to_view(self, l_q: int) -> View:
        """The figures' View; the default focus is row 1 when it exists."""
        focus = self.focus if self.focus is not None else min(1, l_q - 1)
        wanted = tuple(sorted(set(self.figures))) if self.figures else FIGURE_NUMBERS
        return View(
            focus=focus, head=self.head, stretch=self.stretch, softmax_row=self.softmax_row,
            theme=self.theme, figures=wanted,
        )  # fmt: skip


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
