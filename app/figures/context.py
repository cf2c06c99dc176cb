"""What every figure builder reads: the stages, the view, and each grid's display strings.

``Ctx`` formats each stage once per request (cached), so Figures 3, 6, 7 and 8 share the
same strings and derivations instead of recomputing them; that matters at 64 tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np

from app.attention import HeadStages, Stages
from app.attention.ops import Matrix
from app.figures import fmt
from app.figures.style import Json, Theme, heatmap, theme, value_range

FIGURE_NUMBERS = tuple(range(3, 14))


# Plotly reads text as its own pseudo-HTML (<a href>, <b>, <span style>, &entities;) in
# ticks, annotations, hover and titles. Labels enter the figures only through Ctx, which
# replaces the three markup characters with look-alikes that are plain text everywhere
# (Plotly, textContent, Jinja): nothing to double-escape, nothing to interpret.
_LABEL_TEXT = str.maketrans({"<": "‹", ">": "›", "&": "＆"})


def label_text(label: str) -> str:
    """A token label as text no renderer interprets as markup."""
    return label.translate(_LABEL_TEXT)


@dataclass(frozen=True)
class View:
    """What the page is looking at: focus row, head, Figure 12's stretch and row, theme."""

    focus: int = 1
    head: int = 0
    stretch: float = 8.0
    softmax_row: Literal["textbook", "focus"] = "textbook"
    theme: Literal["light", "dark"] = "light"
    figures: tuple[int, ...] = FIGURE_NUMBERS


class Ctx:
    """Stages + view, with the head's grids formatted and derived once."""

    def __init__(self, stages: Stages, view: View) -> None:
        self.stages = stages
        self.view = view
        self.h: HeadStages = stages.heads[view.head]
        self.t: Theme = theme(view.theme)
        self.focus = view.focus
        # Labels are user text: every builder reads them from here, never from stages.
        self.tokens = [label_text(t) for t in stages.tokens]
        self.key_tokens = [label_text(t) for t in stages.key_tokens]
        self.l_q, self.l_k = self.h.weights.shape
        self.d_k = self.h.d_k
        self.d_v = int(self.h.v.shape[1])
        self.num_heads = len(stages.heads)

    # --- words -------------------------------------------------------------------------
    @property
    def head_note(self) -> str:
        """'' for one head, else ' (head 2 of 2)': every single-head figure says which."""
        if self.num_heads == 1:
            return ""
        return f" (head {self.view.head + 1} of {self.num_heads})"

    @property
    def focus_token(self) -> str:
        return self.tokens[self.focus]

    @cached_property
    def divisor_text(self) -> str:
        return fmt.divisor_text(self.h.divisor, self.d_k, self.stages.scale)

    @cached_property
    def mask_why(self) -> str:
        """What blocks cells, in words: 'the causal mask', 'padding', …."""
        allowed = self.stages.allowed
        reasons = []
        if self.stages.mask == "causal":
            reasons.append("the causal mask")
            allowed = allowed | ~np.tril(np.ones(allowed.shape, dtype=bool))
        if not allowed.all():
            reasons.append("padding or a custom mask")
        return " and ".join(reasons) or "the mask"

    @cached_property
    def blocked_rows(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(~self.stages.allowed.any(axis=1))]

    @property
    def masked_any(self) -> bool:
        return not bool(self.stages.allowed.all())

    # --- display strings ---------------------------------------------------------------
    @cached_property
    def q_text(self) -> list[list[str]]:
        return fmt.grid(self.h.q)

    @cached_property
    def k_text(self) -> list[list[str]]:
        return fmt.grid(self.h.k)

    @cached_property
    def v_text(self) -> list[list[str]]:
        return fmt.grid(self.h.v)

    @cached_property
    def scores_text(self) -> list[list[str]]:
        return fmt.grid(self.h.scores)

    @cached_property
    def scaled_text(self) -> list[list[str]]:
        return fmt.grid(self.h.scaled)

    @cached_property
    def masked_text(self) -> list[list[str]]:
        return fmt.grid(self.h.masked)

    @cached_property
    def weights_text(self) -> list[list[str]]:
        return fmt.grid(self.h.weights, dp=2)

    @cached_property
    def output_text(self) -> list[list[str]]:
        return [[fmt.fixed(v) for v in row] for row in self.h.output.tolist()]

    # --- derivations -------------------------------------------------------------------
    def projection_derivation(self, which: str) -> list[list[str]]:
        """'q₁₁ = 0·0 + 0·0 + 1·1 + 1·1 = 2' for Q, K or V of this head."""
        return self._projection(which)

    def _projection(self, which: str) -> list[list[str]]:
        key = f"_deriv_{which}"
        cached: list[list[str]] | None = self.__dict__.get(key)
        if cached is not None:
            return cached
        text = {"q": self.q_text, "k": self.k_text, "v": self.v_text}[which]
        w = self.head_weight(which)
        src = self.stages.source_x if which != "q" and self.stages.cross else self.stages.x
        if w is None or src is None:  # direct mode: Q, K, V were given, not projected
            out = [
                [f"{which}{fmt.sub2(i + 1, j + 1)} = {c} (given)" for j, c in enumerate(row)]
                for i, row in enumerate(text)
            ]
        else:
            out = fmt.dot_grid(self.factors(src), fmt.factors(w.T), text, which)
        self.__dict__[key] = out
        return out

    def factors(self, m: Matrix) -> list[list[str]]:
        """``fmt.factors(m)``, once per matrix (X feeds K and V as well as Q)."""
        key = f"_factors_{id(m)}"
        found: list[list[str]] | None = self.__dict__.get(key)
        if found is None:
            found = self.__dict__[key] = fmt.factors(m)
        return found

    def head_weight(self, which: str) -> Matrix | None:
        """This head's columns of W^Q, W^K or W^V (None in direct mode)."""
        w: Matrix | None = {"q": self.stages.w_q, "k": self.stages.w_k, "v": self.stages.w_v}[which]
        if w is None:
            return None
        width = w.shape[1] // self.num_heads
        return w[:, self.view.head * width : (self.view.head + 1) * width]

    @cached_property
    def scores_deriv(self) -> list[list[str]]:
        return fmt.score_grid(fmt.factors(self.h.q), fmt.factors(self.h.k), self.scores_text)

    @cached_property
    def scaled_deriv(self) -> list[list[str]]:
        return fmt.scaled_grid(
            self.scores_text,
            self.scaled_text,
            self.stages.allowed,
            self.divisor_text,
            self.mask_why,
        )

    @cached_property
    def weights_deriv(self) -> list[list[str]]:
        return fmt.weight_grid(self.h.masked, self.h.exps, self.h.exp_shift, self.h.weights)

    @cached_property
    def output_deriv(self) -> list[list[str]]:
        return fmt.output_grid(self.h.weights, self.h.v, self.h.output)

    # --- arrays for the wire -----------------------------------------------------------
    def masked_z(self) -> list[list[float | None]]:
        """The masked grid with None (a gap) where a cell is blocked."""
        allowed = self.stages.allowed.tolist()
        return [
            [v if ok else None for v, ok in zip(row, arow, strict=True)]
            for row, arow in zip(self.h.masked.tolist(), allowed, strict=True)
        ]

    def weights_heatmap(self, xaxis: str = "x", yaxis: str = "y") -> Json:
        """A, on the fixed 0–1 weights scale, as Figures 6, 7 and 8 draw it."""
        return heatmap(
            self.h.weights, self.weights_text, self.weights_deriv, self.t.scales["weights"],
            zmin=0.0, zmax=1.0, xaxis=xaxis, yaxis=yaxis, name="A",
        )  # fmt: skip

    def values_heatmap(self, xaxis: str = "x", yaxis: str = "y") -> Json:
        """V on its own colour range, with each cell's projection on hover (Figures 8, 9)."""
        lo, hi = value_range(self.h.v)
        return heatmap(
            self.h.v, self.v_text, self.projection_derivation("v"), self.t.scales["v"],
            zmin=lo, zmax=hi, xaxis=xaxis, yaxis=yaxis, name="V",
        )  # fmt: skip


def figure(
    number: int,
    title: str,
    caption: str,
    alt: str,
    data: list[dict[str, Any]],
    layout: dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    """The response entry of one figure (CONTRACT.md): every key present, in one order."""
    from app.figures.style import CONFIG, small

    # Keyboard derivations only for grids that print their numbers; for bigger grids the
    # same strings are in the trace's customdata (hover), and doubling them costs megabytes.
    extra["derivations"] = {k: v for k, v in extra.get("derivations", {}).items() if small(v)}
    entry: dict[str, Any] = {
        "number": number,
        "title": title,
        "caption": caption,
        "readout": [],
        "alt": alt,
        "data": data,
        "layout": layout,
        "config": dict(CONFIG),
        "tables": [],
        "frames": None,
        "derivations": {},
    }
    entry.update(extra)
    return entry


def table(caption: str, cols: list[str], rows: list[str], cells: list[list[str]]) -> dict[str, Any]:
    return {"caption": caption, "col_headers": cols, "row_headers": rows, "cells": cells}
