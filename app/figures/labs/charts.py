"""Plotly pieces the lab figures share: themed layouts, weight bars on a fixed 0–1 axis,
histograms drawn as bars, and lines. PURE: plain dicts, numbers formatted here."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from app.figures import fmt
from app.figures.style import MONO_FAMILY, Theme, base_layout

Json = dict[str, Any]


def value_axis(t: Theme, title: str = "", rng: Sequence[float] | None = None, **kw: Any) -> Json:
    ax: Json = {
        "type": "linear",
        "color": t.fg,
        "gridcolor": t.grid,
        "zeroline": False,
        "fixedrange": True,
        "ticklabeloverflow": "allow",
    }
    if title:
        ax["title"] = {"text": title, "font": {"size": 12, "color": t.muted}}
    if rng is not None:
        ax["range"] = list(rng)
    ax.update(kw)
    return ax


def label_axis(t: Theme, labels: Sequence[str], title: str = "") -> Json:
    ax = value_axis(t, title, [-0.5, len(labels) - 0.5])
    ax.update(
        tickmode="array",
        tickvals=list(range(len(labels))),
        ticktext=list(labels),
        showgrid=False,
        tickangle=0,
    )
    return ax


def layout(t: Theme, height: int, x: Json, y: Json, **extra: Any) -> Json:
    out = base_layout(t, height, xaxis=x, yaxis=y)
    out["margin"] = {"l": 56, "r": 16, "t": 16, "b": 48}
    out.update(extra)
    # Every x axis's labels a little lower: the two axes' "0" meet at the origin and
    # would touch.
    for key in [k for k in out if k.startswith("xaxis")]:
        out[key] = {"ticklabelstandoff": 6, **out[key]}
    return out


def bars(
    labels: Sequence[str],
    values: Sequence[float],
    texts: Sequence[str],
    hover: Sequence[str],
    color: str,
    t: Theme,
    name: str = "",
    **kw: Any,
) -> Json:
    trace: Json = {
        "type": "bar",
        "x": list(range(len(labels))),
        "y": [float(v) for v in values],
        "text": list(texts),
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"family": MONO_FAMILY, "color": t.fg},
        "customdata": list(hover),
        "hovertemplate": "%{customdata}<extra></extra>",
        "marker": {"color": color, "line": {"color": t.outline, "width": 1}},
        "name": name,
    }
    trace.update(kw)
    return trace


def count_bars(
    t: Theme,
    labels: Sequence[str],
    values: Sequence[float],
    texts: Sequence[str],
    hover: Sequence[str],
    color: str,
    title: str,
    height: int = 260,
) -> tuple[Json, Json]:
    """Counts (parameters, cells) as bars on an axis from 0, with headroom for the printed
    counts above them: the trace and its layout."""
    trace = bars(labels, values, texts, hover, color, t)
    axes = label_axis(t, labels), value_axis(t, title, [0, max(values) * 1.25])
    return trace, layout(t, height, *axes)


def weight_bars(
    t: Theme,
    labels: Sequence[str],
    weights: Sequence[float],
    dp: int = 3,
    height: int = 240,
    title: str = "weight",
) -> Json:
    """Weights as bars on a fixed 0–1 axis (colours and heights compare across edits)."""
    texts = [fmt.weight(w, dp) for w in weights]
    hover = [
        f"{lab}: weight {fmt.significant(w, 10)}" for lab, w in zip(labels, weights, strict=True)
    ]
    data = [bars(labels, weights, texts, hover, t.roles["weights"], t)]
    return {
        "data": data,
        "layout": layout(
            t, height, label_axis(t, labels), value_axis(t, title, [0, 1.12], dtick=0.25)
        ),
    }


def line(
    x: Sequence[float],
    y: Sequence[float],
    color: str,
    name: str,
    *,
    dash: str = "solid",
    hover: Sequence[str] | None = None,
    mode: str = "lines",
    **kw: Any,
) -> Json:
    trace: Json = {
        "type": "scatter",
        "mode": mode,
        "x": [float(v) for v in x],
        "y": [float(v) for v in y],
        "name": name,
        "line": {"color": color, "dash": dash, "width": 2},
    }
    if hover is not None:
        trace["customdata"] = list(hover)
        trace["hovertemplate"] = "%{customdata}<extra></extra>"
    trace.update(kw)
    return trace


def histogram_bars(
    edges: Sequence[float], heights: Sequence[float], color: str, name: str, hover: Sequence[str]
) -> Json:
    """A histogram already counted on the server, drawn as touching bars."""
    centres = [(a + b) / 2 for a, b in itertools.pairwise(edges)]
    widths = [b - a for a, b in itertools.pairwise(edges)]
    return {
        "type": "bar",
        "x": centres,
        "y": [float(h) for h in heights],
        "width": widths,
        "name": name,
        "marker": {"color": color, "opacity": 0.75, "line": {"width": 0}},
        "customdata": list(hover),
        "hovertemplate": "%{customdata}<extra></extra>",
    }


def legend(t: Theme) -> Json:
    return {
        "showlegend": True,
        "legend": {"orientation": "h", "y": -0.25, "x": 0, "font": {"color": t.fg}},
    }
