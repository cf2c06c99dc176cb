"""Fonts and trace/layout helpers shared by every figure, light and dark.

The colours are ``app.figures.palette``'s (the page's and the figures' one palette),
re-exported here for the figure modules. Numbers are printed in every cell (colour never
carries a value alone); plotly.js picks the text colour per cell for contrast when
``textfont.color`` is left unset ("auto").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures.palette import DARK as DARK
from app.figures.palette import LIGHT as LIGHT
from app.figures.palette import OKABE_ITO as OKABE_ITO
from app.figures.palette import ROLES as ROLES
from app.figures.palette import THEMES as THEMES
from app.figures.palette import Theme as Theme

Json = dict[str, Any]

FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', sans-serif"
MONO_FAMILY = "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'Noto Sans Mono', monospace"

# Grids with more cells than this hide the printed numbers (hover and tables keep them).
MAX_TEXT_CELLS = 400
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


def heatmap(
    z: Any,
    text: list[list[str]],
    hover: list[list[str]] | None,
    scale: list[list[Any]],
    *,
    zmin: float | None = None,
    zmax: float | None = None,
    zmid: float | None = None,
    xaxis: str = "x",
    yaxis: str = "y",
    name: str = "",
) -> Json:
    """A heatmap trace with printed numbers and the derivation of each cell on hover.

    Grids over MAX_TEXT_CELLS cells print no numbers and send no ``text`` (hover keeps
    the derivation); ``hover=None`` (animation frames of big grids) hovers the value only.
    """
    rows = len(text)
    cols = len(text[0]) if rows else 0
    if isinstance(z, np.ndarray):  # head slices are views; orjson needs C-contiguous arrays
        z = np.ascontiguousarray(z)
    trace: Json = {
        "type": "heatmap",
        "z": z,
        "x": list(range(cols)),
        "y": list(range(rows)),
        "colorscale": scale,
        "showscale": False,
        # cell borders help read small grids; on big ones they would wash out the colours
        "xgap": 1 if cols <= 24 else 0,
        "ygap": 1 if rows <= 24 else 0,
        "xaxis": xaxis,
        "yaxis": yaxis,
        "name": name,
        "hoverongaps": False,
    }
    if hover is None:
        trace["hovertemplate"] = "%{z}<extra>" + name + "</extra>"
    else:
        trace["customdata"] = hover
        trace["hovertemplate"] = "%{customdata}<extra>" + name + "</extra>"
    if rows * cols <= MAX_TEXT_CELLS:
        trace["text"] = text
        trace["texttemplate"] = "%{text}"
        trace["textfont"] = {"family": MONO_FAMILY, "size": _text_size(rows, cols)}
    for key, val in (("zmin", zmin), ("zmax", zmax), ("zmid", zmid)):
        if val is not None:
            trace[key] = val
    return trace


def small(grid: list[list[str]]) -> bool:
    """True when a grid prints its numbers (and so carries keyboard derivations)."""
    return len(grid) * (len(grid[0]) if grid else 0) <= MAX_TEXT_CELLS


def _text_size(rows: int, cols: int) -> int:
    big = max(rows, cols)
    return 14 if big <= 4 else 12 if big <= 8 else 10 if big <= 14 else 8


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


def symmetric_range(values: Any) -> float:
    """Half-width of a colour range centred on 0 that covers every finite value."""
    a = np.abs(np.asarray(values, dtype=np.float64))
    finite = a[np.isfinite(a)]
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def subplot_axes(
    t: Theme,
    n: int,
    xdom: list[float],
    ydom: list[float],
    xlabels: list[str],
    ylabels: list[str],
    xtitle: str = "",
) -> Json:
    """Axis pair number ``n`` (1 = 'x'/'y') over the given domains, rows top to bottom."""
    sfx = "" if n == 1 else str(n)
    x = axis(t, xlabels, xtitle)
    x.update(domain=xdom, anchor=f"y{sfx}")
    y = axis(t, ylabels, reverse=True)
    y.update(domain=ydom, anchor=f"x{sfx}")
    return {f"xaxis{sfx}": x, f"yaxis{sfx}": y}


def numbered(n: int) -> list[str]:
    """Matrix row/column labels from 1 (FIGURES.md Conventions)."""
    return [str(i + 1) for i in range(n)]


def value_range(values: Any) -> tuple[float, float]:
    """(lo, hi) of the finite values of an array, widened when they are all equal."""
    a = np.asarray(values, dtype=np.float64)
    finite = a[np.isfinite(a)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    return (lo, hi) if hi > lo else (lo - 1.0, hi + 1.0)
