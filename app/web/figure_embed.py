"""What every figure embed draws: the figure built for its theme(s), its shared grids put
back in place, and the JSON block the embed's script reads. ``app.web.embed`` (a state's
link) and ``app.web.model_embed`` (a real model's head) both render ``embed.html`` from it.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from app.figures import build_figures
from app.figures.view_fields import DRAWN_THEMES, DrawnTheme
from app.inputs.resolve import Resolved
from app.wire import json_block


def script_json(payload: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``."""
    return Markup(json_block(payload))


def figure_specs(
    resolved: Resolved, number: int, *, plotly: bool = False
) -> dict[str, dict[str, Any]]:
    """The figure in the theme asked for, or in both when the theme is ``auto``.

    An embed draws a figure made of number grids as the page does (static/js/panels.js),
    so by default it gets the grid descriptions only (``draw=tables``: every grid inline,
    every table alternative) and no Plotly conversion is computed or sent; charts keep
    the Plotly data their builders make. ``plotly=True``: the converted figure (oEmbed
    reads its height)."""
    view = resolved.link.view
    themes: tuple[DrawnTheme, ...] = DRAWN_THEMES if view.theme == "auto" else (view.theme,)
    specs: dict[str, dict[str, Any]] = {}
    for theme in themes:
        v = view.figure_view(theme, (number,))
        built = build_figures(resolved.stages, v, plotly=plotly, defer_tables=False)
        specs[theme] = inline_grids(built["figures"][str(number)], built.get("grids", {}))
    return specs


def inline_grids(fig: dict[str, Any], grids: dict[str, Any]) -> dict[str, Any]:
    """Put the shared grid descriptions of a lean answer back into the figure's panels
    (the page does this in static/js/charts.js; an embed has one figure, so nothing is
    shared), and drop the empty Plotly keys of a grid figure."""
    if not fig.get("panels"):
        return fig
    for row in fig["panels"]:
        for k, item in enumerate(row):
            if "ref" in item:
                row[k] = {"grid": {**grids[item["ref"]], "outline": item["outline"]}}
    for key in ("data", "layout", "frames"):
        if not fig.get(key):
            fig.pop(key, None)
    return fig
