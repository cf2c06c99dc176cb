"""Figures 3–13 as data (grid descriptions; Plotly dicts for charts), built on request.

Which figures exist, their titles and builders: ``app.figures.registry`` (the one list).

PURE: imports numpy, the standard library, ``app.attention`` and, for the lab figures,
``app.labs`` and ``app.presets`` (pure data), never ``app.inputs``
(tests/unit/test_layers.py walks the imports).
``build_figures(stages, view)`` returns the body of ``POST /api/v1/figures`` (documented
in app/api/figures.py) except ``state``, which the route echoes. Every number a figure
prints is formatted here; the browser draws grids with static/js/grid.js, charts with
Plotly.react.
"""

from __future__ import annotations

from typing import Any

from app.attention import Stages
from app.figures import fmt, to_plotly
from app.figures.context import Ctx, View, resolve_tables
from app.figures.registry import ALL_FIGURES, BUILDERS, BUILT_FIGURES, FIGURES, headings

__all__ = [
    "ALL_FIGURES", "BUILDERS", "BUILT_FIGURES", "FIGURES", "View", "build_figures", "check_view",
    "view_problem",
]  # fmt: skip


def view_problem(stages: Stages, focus: int, head: int) -> tuple[str, str] | None:
    """(key, message) when the focus row or the head is not in ``stages``, else None: the
    one rule for both, whether the view comes from JSON (``check_view``) or a link
    (``app.inputs.view.ViewState.check``)."""
    l_q, n_heads = len(stages.tokens), len(stages.heads)
    if not 0 <= focus < l_q:
        return "focus", f"focus must be a query row from 0 to {l_q - 1}, got {focus}"
    if not 0 <= head < n_heads:
        return "head", f"head must be from 0 to {n_heads - 1} (there {_heads(n_heads)}), got {head}"
    return None


def check_view(stages: Stages, view: View) -> tuple[str, str] | None:
    """(field, message) when the view points outside the stages, else None (the field as
    a JSON body names it: ``view.focus``, ``view.head``)."""
    problem = view_problem(stages, view.focus, view.head)
    return None if problem is None else (f"view.{problem[0]}", problem[1])


def announce(c: Ctx) -> str:
    """One sentence for the page's aria-live line, computed from the focus row."""
    f = c.focus
    if f in c.blocked_rows:
        return f"Weights updated: {c.focus_token} has no allowed key, so its weights are all 0."
    j = c.h.row_argmax[f]
    to = "itself" if (not c.stages.cross and j == f) else c.key_tokens[j]
    return (
        f"Weights updated{c.head_note}: {c.focus_token} attends "
        f"{fmt.weight(float(c.h.row_max[f]))} to {to}."
    )


def build_figures(
    stages: Stages, view: View, *, plotly: bool = True, defer_tables: bool = True
) -> dict[str, Any]:
    """Every requested figure (default 3 … 13) for ``stages`` as seen through ``view``.

    Figures made of number grids carry ``panels`` (grid descriptions, which the page draws
    itself); with ``plotly`` they also get ``data``/``layout``/``frames`` from the one
    converter (exports, embeds, API clients). Without it those stay empty: a lean edit,
    which also defers the tables of large grids unless ``defer_tables`` is False."""
    problem = check_view(stages, view)
    if problem:
        raise ValueError(f"{problem[0]}: {problem[1]}")
    c = Ctx(stages, view, headings(view.head, len(stages.heads)))
    asked = BUILT_FIGURES if view.figures is None else view.figures
    wanted = [n for n in asked if n in BUILDERS]
    warnings = list(stages.warnings)
    defer = defer_tables and not plotly
    figures = {str(n): _finish(BUILDERS[n](c), view, plotly, defer) for n in wanted}
    out: dict[str, Any] = {
        "figures": figures,
        "tokens": c.tokens,
        "key_tokens": c.key_tokens,
        "warnings": warnings,
        "announce": announce(c),
    }
    if not plotly:
        out["grids"] = share_grids(figures)
    return out


def share_grids(figures: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The lean answer sends each stage's grid once: panels then hold ``{"ref": name,
    "outline": …}`` and the descriptions sit in the returned dict (the page resolves them).
    Figures whose grids are too large to print keep their table alternative for later
    (``tables_deferred``, see ``_finish``): it is asked for when the reader opens it."""
    shared: dict[str, Any] = {}
    for fig in figures.values():
        for row in fig.get("panels") or []:
            for k, item in enumerate(row):
                desc = item.get("grid")
                if desc is None:
                    continue
                name = desc["grid"]
                base = {**desc, "outline": {}}
                if shared.get(name, base)["values"] is not base["values"]:
                    continue  # a figure's own grid of that name (Figure 9's rows): keep inline
                shared[name] = base
                row[k] = {"ref": name, "outline": desc["outline"]}
    return shared


def _finish(fig: dict[str, Any], view: View, plotly: bool, defer: bool) -> dict[str, Any]:
    """Plotly conversion when asked for (a chart is always Plotly: its texts in Plotly's
    markup); tables formatted unless a lean answer defers them."""
    big = any(
        item["grid"]["text"] is None for row in fig.get("panels") or [] for item in row
        if "grid" in item
    )  # fmt: skip
    if defer and big and fig.get("tables"):
        fig["tables"] = []
        fig["tables_deferred"] = True
    resolve_tables(fig)
    if plotly or not fig.get("panels"):
        return to_plotly.convert(fig, view.theme)
    return fig


def _heads(n: int) -> str:
    return "is 1 head" if n == 1 else f"are {n} heads"
