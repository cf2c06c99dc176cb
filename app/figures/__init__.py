"""Figures 3–13 as plain Plotly figure dicts, built from the engine's stages on request.

PURE: imports numpy, the standard library and ``app.attention`` only (a test walks the
imports). ``build_figures(stages, view)`` returns the body of ``POST /api/v1/figures``
(CONTRACT.md) except ``state``, which the route echoes. Every number a figure prints is
formatted here; the browser only calls ``Plotly.react`` and fills in text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.attention import Stages
from app.figures import fmt, grids, mixing, projections, weights
from app.figures.context import FIGURE_NUMBERS, Ctx, View

__all__ = ["BUILDERS", "FIGURE_NUMBERS", "View", "build_figures", "check_view"]

Builder = Callable[[Ctx], dict[str, Any]]

BUILDERS: dict[int, Builder] = {
    4: projections.build,
    6: weights.build,
    7: grids.build,
    8: mixing.build_8,
    9: mixing.build_9,
}


def check_view(stages: Stages, view: View) -> tuple[str, str] | None:
    """(field, message) when the view points outside the stages, else None."""
    l_q = len(stages.tokens)
    if not 0 <= view.focus < l_q:
        return "view.focus", f"focus must be a query row from 0 to {l_q - 1}, got {view.focus}"
    if not 0 <= view.head < len(stages.heads):
        return "view.head", (
            f"head must be from 0 to {len(stages.heads) - 1} (there {_heads(len(stages.heads))}), "
            f"got {view.head}"
        )
    return None


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


def build_figures(stages: Stages, view: View) -> dict[str, Any]:
    """Every requested figure (default 3 … 13) for ``stages`` as seen through ``view``."""
    problem = check_view(stages, view)
    if problem:
        raise ValueError(f"{problem[0]}: {problem[1]}")
    c = Ctx(stages, view)
    wanted = [n for n in view.figures if n in BUILDERS]
    warnings = list(stages.warnings)
    return {
        "figures": {str(n): BUILDERS[n](c) for n in wanted},
        "tokens": c.tokens,
        "key_tokens": c.key_tokens,
        "warnings": warnings,
        "announce": announce(c),
    }


def _heads(n: int) -> str:
    return "is 1 head" if n == 1 else f"are {n} heads"
