"""What every figure builder reads: the stages, the view, and each grid's display strings.

``Ctx`` formats each stage once per request (cached), so Figures 3, 6, 7 and 8 share the
same strings and derivations instead of recomputing them; that matters at 64 tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from app.attention import HeadStages, Stages
from app.attention.ops import Matrix
from app.figures import derive, fmt
from app.figures import grid as gridmod
from app.figures.grid import MAX_TEXT_CELLS
from app.figures.style import CONFIG, Json, Theme, numbered, small, theme
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
)

# Plotly reads text as its own pseudo-HTML (<a href>, <b>, <span style>, &entities;) in
# ticks, annotations, hover and titles. Labels enter the figures only through Ctx, which
# replaces the three markup characters with look-alikes that are plain text everywhere
# (Plotly, textContent, Jinja): nothing to double-escape, nothing to interpret.
_LABEL_TEXT = str.maketrans({"<": "‹", ">": "›", "&": "＆"})


def label_text(label: str) -> str:
    """A token label as text no renderer interprets as markup."""
    return label.translate(_LABEL_TEXT)


def head_note(head: int, heads: int) -> str:
    """'' for one head, else ' (head 2 of 2)': what a single-head figure adds to its title
    and captions (the page's placeholder titles too, through the registry)."""
    return "" if heads == 1 else f" (head {head + 1} of {heads})"


@dataclass(frozen=True)
class View:
    """What the page is looking at: focus row, head, Figure 12's stretch and row, theme,
    as the declaration (``app.figures.view_fields``) bounds them, named as JSON names
    them; drawn in one theme. ValueError naming the field outside its bounds."""

    focus: int = FOCUS.default
    head: int = HEAD.default
    stretch: float = STRETCH.default
    softmax_row: Row = ROW.default
    theme: DrawnTheme = DRAWN_THEMES[0]
    # Which figures to build; None: every figure the server builds (the registry's
    # BUILT_FIGURES, read by ``build_figures``: this module is below the registry).
    figures: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for declared in VIEW_FIELDS:
            choices = DRAWN_THEMES if declared is THEME else None
            problem = declared.problem(getattr(self, declared.json_key), choices)
            if problem is not None:
                raise ValueError(f"{declared.json_key}: {problem}")


class Ctx:
    """Stages + view, with the head's grids formatted and derived once."""

    def __init__(self, stages: Stages, view: View, titles: Mapping[int, str]) -> None:
        self.stages = stages
        # Each figure's title, from the registry (``registry.headings``): one place.
        self.titles = titles
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
        return head_note(self.view.head, self.num_heads)

    @property
    def head_words(self) -> str:
        """'' for one head, else ', head 2 of 2': the head after a parenthesis ("love
        (row 2), head 2 of 2"), where a second parenthesis would read badly."""
        return f", {self.head_note.strip(' ()')}" if self.head_note else ""

    @property
    def focus_token(self) -> str:
        return self.tokens[self.focus]

    @cached_property
    def divisor_text(self) -> str:
        return derive.divisor_text(self.h.divisor, self.d_k, self.stages.scale)

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
        return [[fmt.output(v) for v in row] for row in self.h.output.tolist()]

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
            out = derive.dot_grid(self.factors(src), fmt.factors(w.T), text, which)
        self.__dict__[key] = out
        return out

    def output_row(self, i: int) -> list[str]:
        """Row ``i`` of ``output_deriv``, without the whole grid when big."""
        h = self.h
        if "output_deriv" in self.__dict__ or h.output.size <= MAX_TEXT_CELLS:
            return self.output_deriv[i]
        return derive.output_grid(h.weights[i : i + 1], h.v, h.output[i : i + 1], i)[0]

    def output_cell(self, i: int, j: int) -> str:
        """``output_deriv[i][j]`` without formatting all of V when the grid is big."""
        h = self.h
        if "output_deriv" in self.__dict__ or h.output.size <= MAX_TEXT_CELLS:
            return self.output_deriv[i][j]
        out = h.output[i : i + 1, j : j + 1]
        return derive.output_grid(h.weights[i : i + 1], h.v[:, j : j + 1], out, i, j)[0][0]

    def projection_cell(self, which: str, i: int, j: int) -> str:
        """``projection_derivation(which)[i][j]`` without the whole grid when big."""
        key = f"_deriv_{which}"
        m = {"q": self.h.q, "k": self.h.k, "v": self.h.v}[which]
        w = self.head_weight(which)
        src = self.stages.source_x if which != "q" and self.stages.cross else self.stages.x
        if key in self.__dict__ or m.size <= MAX_TEXT_CELLS or w is None or src is None:
            return self.projection_derivation(which)[i][j]
        text = [[fmt.value(float(m[i, j]))]]
        left, right = fmt.factors(src[i : i + 1]), fmt.factors(w[:, j : j + 1].T)
        return derive.dot_grid(left, right, text, which, i, j)[0][0]

    def text_row(self, name: str, i: int) -> list[str]:
        """Row ``i`` of a stage's printed numbers, without formatting the whole grid."""
        if f"{name}_text" in self.__dict__:
            return list(getattr(self, f"{name}_text")[i])
        h = self.h
        m = {"q": h.q, "k": h.k, "v": h.v, "scores": h.scores, "masked": h.masked,
             "weights": h.weights, "output": h.output}[name]  # fmt: skip
        if name == "weights":
            return fmt.grid(m[i : i + 1], dp=2)[0]
        if name == "output":
            return [fmt.output(v) for v in m[i].tolist()]
        return fmt.grid(m[i : i + 1])[0]

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
        return derive.score_grid(fmt.factors(self.h.q), fmt.factors(self.h.k), self.scores_text)

    @cached_property
    def scaled_deriv(self) -> list[list[str]]:
        return derive.scaled_grid(
            self.scores_text,
            self.scaled_text,
            self.stages.allowed,
            self.divisor_text,
            self.mask_why,
        )

    @cached_property
    def weights_deriv(self) -> list[list[str]]:
        return derive.weight_grid(self.h.masked, self.h.exps, self.h.exp_shift, self.h.weights)

    @cached_property
    def output_deriv(self) -> list[list[str]]:
        return derive.output_grid(self.h.weights, self.h.v, self.h.output)

    # --- grid descriptions (app/figures/grid.py), built once per request -------------
    @property
    def masked_name(self) -> str:
        """API name of the scaled grid as the softmax sees it: 'masked' when a mask is on."""
        return "masked" if self.masked_any else "scaled"

    def grid(self, name: str, **outline: list[Any]) -> Json:
        """The grid description of stage ``name`` (x, source_x, w_q, w_k, w_v, q, k, v,
        scores, scaled/masked, weights, output) for this head; ``outline`` (rows, cols,
        cells) gives a figure its own outlined cells on a shallow copy."""
        cache: dict[str, Json] = self.__dict__.setdefault("_grids", {})
        if name not in cache:
            cache[name] = self._make_grid(name)
        return {**cache[name], "outline": outline} if outline else cache[name]

    def _make_grid(self, name: str) -> Json:
        st, h = self.stages, self.h
        src = "source_x" if st.cross else "x"
        keys = self.key_tokens
        projected = st.w_q is not None
        spec: tuple[Any, ...]
        if name in ("x", "source_x"):
            m = st.x if name == "x" else st.source_x
            assert m is not None
            spec = ("X" if name == "x" else "S", m, self.tokens if name == "x" else keys,
                    numbered(m.shape[1]), lambda: fmt.grid(m), None, None,
                    "tokens", "d_model column")  # fmt: skip
        elif name in ("w_q", "w_k", "w_v"):
            w = self.head_weight(name[2])
            assert w is not None
            d = "d_v" if name == "w_v" else "d_k"
            spec = (f"W^{name[2].upper()}", w, numbered(w.shape[0]), numbered(w.shape[1]),
                    lambda: fmt.grid(w), None, None, "d_model row", f"{d} column")  # fmt: skip
        elif name in ("q", "k", "v"):
            m = {"q": h.q, "k": h.k, "v": h.v}[name]
            uses = gridmod.product_uses("x" if name == "q" else src, f"w_{name}")
            spec = (name.upper(), m, self.tokens if name == "q" else keys,
                    numbered(m.shape[1]), lambda: getattr(self, f"{name}_text"),
                    lambda: self.projection_derivation(name), uses if projected else None,
                    "tokens", f"d_{'v' if name == 'v' else 'k'} column")  # fmt: skip
        elif name == "scores":
            spec = ("Q Kᵀ", h.scores, self.tokens, keys, lambda: self.scores_text,
                    lambda: self.scores_deriv, gridmod.product_uses("q", "k", "row"),
                    "query tokens", "key tokens")  # fmt: skip
        elif name in ("scaled", "masked"):
            spec = (f"Q Kᵀ ÷ {self.divisor_text.split(' ≈ ')[0]}", h.masked, self.tokens, keys,
                    lambda: self.masked_text, lambda: self.scaled_deriv,
                    gridmod.same_cell("scores"), "query tokens", "key tokens")  # fmt: skip
        elif name == "weights":
            spec = ("A", h.weights, self.tokens, keys, lambda: self.weights_text,
                    lambda: self.weights_deriv, gridmod.same_row(self.masked_name),
                    "query tokens (attending from)", "key tokens (attending to)")  # fmt: skip
        elif name == "output":
            spec = ("Z", h.output, self.tokens, numbered(self.d_v), lambda: self.output_text,
                    lambda: self.output_deriv, gridmod.product_uses("weights", "v"),
                    "query tokens", "d_v column")  # fmt: skip
        else:
            raise KeyError(name)
        label, values, row_labels, col_labels, text, hover, used, row_title, col_title = spec
        text_of: Callable[[], list[list[str]]] = text
        hover_of: Callable[[], list[list[str]]] | None = hover
        shape = np.shape(values)
        # The mask's cells: hatched where the mask acts (after scaling, and the weights);
        # the raw scores are computed for every pair, so none of theirs is marked.
        blocked = ~st.allowed if name in ("scaled", "masked", "weights") else None
        small = shape[0] * shape[1] <= gridmod.MAX_TEXT_CELLS and shape[1] <= gridmod.MAX_TEXT_COLS
        return gridmod.grid(
            name, label, values, rows=row_labels, cols=col_labels, theme=self.t.name,
            text=text_of() if small else None, hover=hover_of() if small and hover_of else None,
            uses=used, row_title=row_title, col_title=col_title, masked=blocked,
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
    """The response entry of one figure (POST /api/v1/figures): every key present, in one order."""
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
        "panels": None,
        "steps": None,
    }
    entry.update(extra)
    return entry


def table(
    caption: str,
    cols: list[str],
    rows: list[str],
    cells: list[list[str]] | Callable[[], list[list[str]]],
) -> dict[str, Any]:
    """A table alternative; ``cells`` may be a callable, formatted only when the table is
    sent (``resolve_tables``): a large state's lean answer defers its tables."""
    return {"caption": caption, "col_headers": cols, "row_headers": rows, "cells": cells}


def resolve_tables(fig: dict[str, Any]) -> None:
    for t in fig.get("tables") or []:
        if callable(t["cells"]):
            t["cells"] = t["cells"]()
