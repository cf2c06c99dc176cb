"""The one converter from a figure description to a Plotly figure (data, layout, frames).

The page draws number grids itself (``static/js/grid.js``); exports (PNG, SVG, standalone
HTML), embeds and API clients that ask for Plotly get this conversion of the very same
description, so both show the same numbers, colours, outlines and words.

A description's ``panels`` is a list of rows; each row a list of items: ``{"grid": desc}``
(``app.figures.grid``), ``{"op": "×"}`` or ``{"arrow": "÷ 2"}``. Rows stack top to bottom;
within a row, items sit left to right with widths in proportion to their columns. Its
``steps`` (Figure 3) become Plotly ``frames``: each step reveals the first ``show[name]``
cells of a grid in reading order and outlines ``marks[name]``.

Plotly reads text as its own pseudo-HTML (``<a href>``, ``<b>``, ``&entities;``). A
description writes plain text with the product's ASCII notation (W^Q, d_k, √d_k, e^1.5)
and only three of Plotly's tags, for its layout: ``<br>``, ``<b>`` and the hover box's
``<extra>``. ``plotly_texts`` is the ONE place that text becomes Plotly's markup: every
text of a chart (trace names, cell and bar text, hover text, axis titles, tick labels,
annotations, legend titles) goes through ``app.notation.plotly_markup`` (the notation as
<sub>/<sup>, everything else escaped: a label never becomes live markup in an exported
SVG). ``convert`` applies it to every main figure, ``with_export`` to every lab figure
(``app.http.lab_state.build_one`` calls it for the page, embeds and exports alike). Labels
are also made ``plain`` (look-alikes for <, >, &) once here, as the grid renderer's
``textContent`` shows them, while the description keeps them exact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.figures.context import label_text
from app.figures.palette import SCALES
from app.figures.style import (
    FONT_FAMILY,
    MONO_FAMILY,
    Json,
    Theme,
    annotation,
    base_layout,
    outline,
    theme,
    ticks,
)
from app.notation import plotly_markup

OP_UNITS = 1.6  # width of "×" or "=" in columns
ARROW_UNITS = 3.2
TITLE_PX = 44  # room above each row for the grids' names and shapes
ROW_GAP_PX = 30


GRIDS_PER_ROW = 3  # a lab figure's grids, side by side in its export


def plain(text: Any) -> Any:
    """Text (or nested lists of it) with the markup characters replaced by look-alikes
    (``app.figures.context.label_text``); numbers and None pass through."""
    if isinstance(text, str):
        return label_text(text)
    if isinstance(text, list):
        return [plain(x) for x in text]
    return text


# The only tags a description writes, for layout, and only in a hover template and an
# annotation's text; everywhere else (names, cells, hover data, ticks, titles) every
# character is text, so a label or a cell never turns into markup.
_TAGS = re.compile(r"(<br>|</?b>|</?extra>)")
# Plotly's text attributes of a trace (x and y: the names of categories).
_TRACE_TEXTS = ("name", "text", "hovertext", "customdata", "texttemplate", "x", "y")
# The layout's parts with a title or tick labels.
_TITLED = re.compile(r"^([xy]axis\d*|legend|title)$")


def plotly_text(text: Any, tags: bool = False) -> Any:
    """A description's text (or nested lists of it) in Plotly's markup: the notation as
    <sub>/<sup>, all else escaped (``tags``: the description's own three tags kept);
    numbers and None pass."""
    if isinstance(text, str):
        if not tags:
            return plotly_markup(text)
        parts = _TAGS.split(text)
        return "".join(p if i % 2 else plotly_markup(p) for i, p in enumerate(parts))
    if isinstance(text, list):
        return [plotly_text(x, tags) for x in text]
    return text


def _texts_of(part: Json, keys: tuple[str, ...], tagged: tuple[str, ...] = ()) -> Json:
    return {
        k: plotly_text(v, k in tagged) if k in keys or k in tagged else v for k, v in part.items()
    }


def _layout_texts(layout: Json) -> Json:
    """A layout with its titles, tick labels and annotations' texts in Plotly's markup."""
    out = dict(layout)
    for key, value in layout.items():
        if not (_TITLED.match(key) and isinstance(value, dict)):
            continue
        part = _texts_of(value, ("ticktext", "text"))  # "title": {"text": …} itself
        if isinstance(part.get("title"), dict):
            part["title"] = _texts_of(part["title"], ("text",))
        out[key] = part
    if "annotations" in layout:
        notes = layout["annotations"]
        out["annotations"] = [_texts_of(a, ("hovertext",), ("text",)) for a in notes]
    return out


def plotly_texts(plot: Json) -> Json:
    """A copy of ``plot`` ({data, layout, frames?, narrow?}) with every text in Plotly's markup;
    the one place text meets Plotly (not twice: markup would be escaped again)."""
    out = dict(plot)
    if "data" in plot:
        out["data"] = [_texts_of(t, _TRACE_TEXTS, ("hovertemplate",)) for t in plot["data"]]
    if "layout" in plot:
        out["layout"] = _layout_texts(plot["layout"])
    if plot.get("frames"):
        out["frames"] = [plotly_texts(frame) for frame in plot["frames"]]
    if plot.get("narrow"):  # a diagram's portrait variant for a phone
        out["narrow"] = plotly_texts(plot["narrow"])
    return out


def _cell_px(rows: int) -> int:
    return max(6, min(40, 300 // max(rows, 1)))


def _text_size(rows: int, cols: int) -> int:
    big = max(rows, cols)
    return 14 if big <= 4 else 12 if big <= 8 else 10 if big <= 14 else 8


def _shown(reveal: Any, cols: int) -> Callable[[int, int], bool]:
    """Which cells a step shows: the first ``reveal`` in reading order, or
    ``{"row": i, "cols": n}``: the first n cells of row i only."""
    if isinstance(reveal, dict):
        row, upto = reveal["row"], reveal["cols"]
        return lambda i, j: i == row and j < upto
    return lambda i, j: i * cols + j < reveal


def _trace(g: Json, t: Theme, n: int, reveal: Any = None) -> Json:
    """A heatmap of grid ``g`` on axis pair ``n``; ``reveal``: only some cells shown."""
    rows, cols = g["shape"]
    lo, mid, hi = SCALES[t.name][g["scale"]]
    z = g["values"]
    text = g["text"]  # numbers (">0.9999" too): plotly_texts escapes them, once
    hover = g["hover"] or text
    if reveal is not None:
        keep = _shown(reveal, cols)
        z = [[v if keep(i, j) else None for j, v in enumerate(r)] for i, r in enumerate(z)]
        if text is not None:
            text = [[s if keep(i, j) else "" for j, s in enumerate(r)] for i, r in enumerate(text)]
    sfx = "" if n == 1 else str(n)
    trace: Json = {
        "type": "heatmap",
        "z": z,
        "x": list(range(cols)),
        "y": list(range(rows)),
        "colorscale": [[0.0, lo], [0.5, mid], [1.0, hi]],
        "zmin": g["domain"][0],
        "zmax": g["domain"][1],
        "showscale": False,
        "xgap": 1 if cols <= 24 else 0,
        "ygap": 1 if rows <= 24 else 0,
        "xaxis": f"x{sfx}",
        "yaxis": f"y{sfx}",
        "name": plain(g["label"]),
        "hoverongaps": False,
    }
    if hover is not None:
        trace["customdata"] = hover
        trace["hovertemplate"] = "%{customdata}<extra>" + plain(g["label"]) + "</extra>"
    else:
        trace["hovertemplate"] = "%{z}<extra>" + plain(g["label"]) + "</extra>"
    if text is not None:
        trace["text"] = text
        trace["texttemplate"] = "%{text}"
        trace["textfont"] = {"family": MONO_FAMILY, "size": _text_size(rows, cols)}
    return trace


def _units(item: Json) -> float:
    if "grid" in item:
        return float(item["grid"]["shape"][1])
    return ARROW_UNITS if "arrow" in item else OP_UNITS


def _axes(t: Theme, g: Json, n: int, xdom: list[float], ydom: list[float]) -> Json:
    rows, cols = g["shape"]
    sfx = "" if n == 1 else str(n)
    xv, xt = ticks(plain(g["cols"]))
    yv, yt = ticks(plain(g["rows"]))
    common = {"type": "linear", "tickmode": "array", "showgrid": False, "zeroline": False,
              "ticks": "", "color": t.fg, "fixedrange": True, "ticklabeloverflow": "allow",
              "tickfont": {"size": 11 if max(rows, cols) <= 12 else 9}}  # fmt: skip
    x = {**common, "tickvals": xv, "ticktext": xt, "range": [-0.5, cols - 0.5],
         "domain": xdom, "anchor": f"y{sfx}", "side": "top", "tickangle": 0}  # fmt: skip
    y = {**common, "tickvals": yv, "ticktext": yt, "range": [rows - 0.5, -0.5],
         "domain": ydom, "anchor": f"x{sfx}"}  # fmt: skip
    return {f"xaxis{sfx}": x, f"yaxis{sfx}": y}


def _outlines(t: Theme, g: Json, n: int, marks: Json) -> list[Json]:
    rows, cols = g["shape"]
    sfx = "" if n == 1 else str(n)
    xr, yr = f"x{sfx}", f"y{sfx}"
    out = [outline(t, -0.5, cols - 0.5, r - 0.5, r + 0.5, xr, yr) for r in marks.get("rows", [])]
    out += [outline(t, c - 0.5, c + 0.5, -0.5, rows - 0.5, xr, yr) for c in marks.get("cols", [])]
    for i, j in marks.get("cells", []):
        out.append(outline(t, j - 0.5, j + 0.5, i - 0.5, i + 0.5, xr, yr))
    return out


def _build(fig: Json, t: Theme, step: Json | None) -> tuple[list[Json], Json]:
    panels: list[list[Json]] = fig["panels"]
    bands = [max(i["grid"]["shape"][0] for i in row if "grid" in i) for row in panels]
    heights = [b * _cell_px(b) + TITLE_PX for b in bands]
    total = sum(heights) + ROW_GAP_PX * (len(panels) - 1)
    width_units = max(sum(_units(i) for i in row) for row in panels)
    data: list[Json] = []
    layout_axes: Json = {}
    anns: list[Json] = []
    shapes: list[Json] = []
    top = total
    n = 0
    for row, h, band in zip(panels, heights, bands, strict=True):
        left = 0.0
        for item in row:
            u = _units(item)
            x0, x1 = left / width_units, (left + u) / width_units
            if "grid" in item:
                g = item["grid"]
                n += 1
                rows = g["shape"][0]
                y1 = (top - TITLE_PX) / total
                y0 = (top - TITLE_PX - (h - TITLE_PX) * rows / band) / total
                shown = step["show"].get(g["grid"]) if step else None
                data.append(_trace(g, t, n, shown))
                layout_axes.update(_axes(t, g, n, [x0, x1], [y0, y1]))
                marks = (step or {}).get("marks", {}).get(g["grid"], g.get("outline") or {})
                shapes += _outlines(t, g, n, marks)
                title = f"<b>{plain(g['label'])}</b>  {rows} × {g['shape'][1]}"
                anns.append(annotation(title, (x0 + x1) / 2, top / total, t, yanchor="top"))
            else:
                text = item.get("op") or f"{item['arrow']} →"
                mid = (top - TITLE_PX - (h - TITLE_PX) / 2) / total
                size = 20 if "op" in item else 12
                font = {"size": size, "color": t.fg}
                anns.append(annotation(text, (x0 + x1) / 2, mid, t, font=font))
            left += u
        top -= h + ROW_GAP_PX
    layout = base_layout(t, total + 40, "", annotations=anns, shapes=shapes, **layout_axes)
    layout["margin"].update(t=20, b=20, l=70)
    layout["font"]["family"] = FONT_FAMILY
    return data, layout


def convert(fig: Json, theme_name: str) -> Json:
    """A main figure as Plotly: ``data``, ``layout`` and (for steps) ``frames`` filled from
    its panels, or a chart's own; their texts in Plotly's markup (``plotly_texts``)."""
    if not fig.get("panels"):
        return plotly_texts(fig) if "data" in fig else fig
    t = theme(theme_name)
    fig["data"], fig["layout"] = _build(fig, t, None)
    steps: list[Json] | None = fig.get("steps")
    if steps:
        frames = []
        for step in steps:
            data, layout = _build(fig, t, step)
            frames.append({"data": data, "layout": layout, "narration": step["narration"]})
        fig["frames"] = frames
        fig["data"], fig["layout"] = frames[-1]["data"], frames[-1]["layout"]
    return plotly_texts(fig)


def with_export(fig: Json, theme_name: str) -> Json:
    """A lab figure as Plotly: its chart's texts in Plotly's markup, or, drawn only as
    number grids, ``export``: the same grids as a Plotly figure, by this converter, for its
    PNG and SVG buttons (rows of GRIDS_PER_ROW)."""
    if fig.get("plot") is not None:
        return {**fig, "plot": plotly_texts(fig["plot"])}
    if not fig.get("grids"):
        return fig
    items = [{"grid": g["desc"]} for g in fig["grids"]]
    gap = [{"op": " "}, {"op": " "}]  # room for the next grid's row labels
    rows = []
    for i in range(0, len(items), GRIDS_PER_ROW):
        row: list[Json] = []
        for item in items[i : i + GRIDS_PER_ROW]:
            row += [*gap, item] if row else [item]
        rows.append(row)
    drawn = convert({"panels": rows}, theme_name)
    return {**fig, "export": {"data": drawn["data"], "layout": drawn["layout"]}}
