"""Fonts, the one Plotly config and the layout helpers of every Plotly figure (charts,
diagrams, the converter's layouts), light and dark: base layout, axes and ticks, outlines,
annotations, arrows, matrix labels.

The colours are ``app.figures.palette``'s (the page's and the figures' one palette):
``Theme`` is re-exported for the figure modules and ``theme`` picks one by name.
"""

from __future__ import annotations

from typing import Any

from app.figures.grid import MAX_TEXT_CELLS
from app.figures.palette import LIGHT, THEMES
from app.figures.palette import Theme as Theme

Json = dict[str, Any]

FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', sans-serif"
MONO_FAMILY = "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'Noto Sans Mono', monospace"

# Rows or columns beyond this get thinned tick labels.
MAX_TICKS = 12


# The one Plotly config of every chart the product draws (page, labs, embeds, exports):
# nothing in the modebar leaves the machine. plotly.js 4 shows a "Share chart…" button by
# default (``showSendToCloud``) that uploads the figure to Plotly's cloud; it is switched
# off, removed by name, and given no server to send to. The logo links out: off too.
CLOUD_OFF: Json = {
    "displaylogo": False,
    "showSendToCloud": False,
    "plotlyServerURL": "",
}
CONFIG: Json = {
    **CLOUD_OFF,
    "responsive": True,
    "displayModeBar": "hover",
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "sendChartToCloud"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}  # fmt: skip


def theme(name: str) -> Theme:
    return THEMES.get(name, LIGHT)


def base_layout(t: Theme, height: int, title: str = "", **extra: Any) -> Json:
    """Transparent background, themed fonts, no legend, compact margins."""
    layout: Json = {
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 40 if title else 20, "b": 40},
        "paper_bgcolor": t.paper,
        "plot_bgcolor": t.bg,
        "font": {"family": FONT_FAMILY, "size": 13, "color": t.fg},
        "showlegend": False,
        "hoverlabel": {"font": {"family": MONO_FAMILY, "size": 12}, "align": "left"},
    }
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left", "font": {"size": 15}}
    layout.update(extra)
    return layout


def ticks(labels: list[str]) -> tuple[list[int], list[str]]:
    """Tick positions and labels, thinned to at most MAX_TICKS for long sequences."""
    step = max(1, -(-len(labels) // MAX_TICKS))
    idx = list(range(0, len(labels), step))
    return idx, [labels[i] for i in idx]


def axis(
    t: Theme, labels: list[str], title: str = "", reverse: bool = False, side: str = ""
) -> Json:
    """A categorical-looking axis on integer positions (duplicate token names stay apart)."""
    vals, text = ticks(labels)
    ax: Json = {
        "type": "linear",  # stated, so plotly.js does not scan the data to guess it
        "tickmode": "array",
        "tickvals": vals,
        "ticktext": text,
        "showgrid": False,
        "zeroline": False,
        "ticks": "",
        "color": t.fg,
        "fixedrange": True,
        "range": [len(labels) - 0.5, -0.5] if reverse else [-0.5, len(labels) - 0.5],
        # thinned labels fit unrotated; rotated ones would run into the panel titles
        "tickangle": 0,
        "tickfont": {"size": 11 if len(labels) <= MAX_TICKS else 9},
        # "allow": the labels sit inside the margins; the default ("hide past div") measures
        # every label's box on every redraw, about a quarter of a figure's drawing time
        "ticklabeloverflow": "allow",
    }
    if title:
        ax["title"] = {"text": title, "font": {"size": 12, "color": t.muted}}
    if side:
        ax["side"] = side
    return ax


def hidden_axis(lo: float, hi: float) -> Json:
    """An invisible axis for diagrams drawn with shapes and annotations."""
    return {"type": "linear", "visible": False, "range": [lo, hi], "fixedrange": True}


def small(grid: list[list[str]]) -> bool:
    """True when a grid prints its numbers (and so carries keyboard derivations)."""
    return len(grid) * (len(grid[0]) if grid else 0) <= MAX_TEXT_CELLS


def outline(
    t: Theme, x0: float, x1: float, y0: float, y1: float, xref: str = "x", yref: str = "y"
) -> Json:
    """A rectangle drawn over cells, e.g. the focus row."""
    return {
        "type": "rect",
        "xref": xref,
        "yref": yref,
        "x0": x0,
        "x1": x1,
        "y0": y0,
        "y1": y1,
        "line": {"color": t.outline, "width": 3},
        "fillcolor": "rgba(0,0,0,0)",
    }


def annotation(text: str, x: float, y: float, t: Theme, **extra: Any) -> Json:
    ann: Json = {
        "text": text,
        "x": x,
        "y": y,
        "xref": "paper",
        "yref": "paper",
        "showarrow": False,
        "font": {"color": t.fg, "size": 13},
    }
    ann.update(extra)
    return ann


def arrow(
    tip: tuple[float, float], tail: tuple[float, float], color: str, width: float, **extra: Any
) -> Json:
    """A Plotly arrow annotation from ``tail`` to ``tip``, both in data coordinates."""
    return {
        "x": tip[0], "y": tip[1], "ax": tail[0], "ay": tail[1],
        "xref": "x", "yref": "y", "axref": "x", "ayref": "y",
        "showarrow": True, "arrowhead": 2, "arrowsize": 1.2, "arrowwidth": width,
        "arrowcolor": color, "text": "", **extra,
    }  # fmt: skip


def numbered(n: int) -> list[str]:
    """Matrix row/column labels from 1 (FIGURES.md Conventions)."""
    return [str(i + 1) for i in range(n)]
