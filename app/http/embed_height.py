"""The height an embed draws at a given iframe width: the one rule for every fixed height.

A host that strips the embed's resize script (many LMS editors do) shows the iframe at the
height its snippet or oEmbed answer gave, so that height must be what the embed really
draws, not the Plotly layout's. It is computed here, on the server, from the figure's own
description (the same one the embed's script draws), laid out with the stylesheets' rules:
``static/css/embed.css`` (body padding, title, caption, status and "Open" lines),
``static/css/grid.css`` (number grids, panels that wrap or, at 640 px and below, stack
into a column), ``static/css/labs.css`` (a lab's grids, badges, tables) and
``static/css/figures.css`` (the player, data tables). Text is wrapped with the export's
font metrics (``app.export.text_metrics``, DejaVu Sans: as wide as or wider than the
faces a reader's machine falls back to, so a wrapped paragraph is never taller than
estimated). A chart is as tall as its Plotly layout says.

Every estimate leans high: ``SLACK`` then covers rounding and a font a little wider than
measured; ``benchmarks/embed_heights.py`` measures the real ``scrollHeight`` in Chromium
and ``tests/browser/test_embed_heights.py`` checks, at 375, 720 and 1200 px, that the
computed height is never short and never more than a quarter too tall.

Pure: descriptions (plain dicts) and numbers in, whole CSS pixels out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.export.text_metrics import text_width, wrap

REM = 15.0  # body font-size of every embed (embed.css)
LINE = 1.45 * REM  # its line height
BODY_PAD_Y = 2 * 8.0  # body.embed padding, top and bottom
BODY_PAD_X = 2 * 12.0  # and left and right
NARROW = 640  # grid.css and figures.css: at this iframe width and below, products stack
SLACK = 1.05  # a little room for rounding and a wider face
SLACK_PX = 8.0

# The player's buttons (templates/macros/stepper.html) and the widest step count it shows.
STEPPER_LABELS = ("◀ Step back", "▶ Play", "Step forward ▶", "↺ Replay", "Step 88 of 88")
# The hint under a grid figure before a cell is pointed at (static/js/charts.js GRID_HINT,
# static/js/labs/render.js's default); a test keeps them equal.
GRID_HINT = (
    "Point at a cell, or Tab into a grid and move with the arrow keys, to see its "
    "arithmetic; the cells it used are outlined."
)
LAB_GRID_HINT = "Point at a cell, or tab into a grid and use the arrow keys, to see its arithmetic."
# grid.js: a grid without printed numbers is a canvas of square cells of this many px
CANVAS_CELL = (2, 14)
CANVAS_MAX_HEIGHT = 720
# Widths decide what fits beside what, so they are not over-estimated as wrapped text is:
# the embeds' small sans labels (system-ui) measure about this fraction of DejaVu Sans.
SANS_WIDTH = 0.72
FIT_MARGIN = 1.25


def _label_w(texts: Iterable[Any], size: float) -> float:
    return max((text_width(str(t), size) * SANS_WIDTH for t in texts), default=0.0)


def _legend_w(desc: Mapping[str, Any]) -> float:
    """grid.css ``.grid-legend``: low number, ramp, high number, and the masked swatch's
    words when a cell is masked (grid_core.js ``legendOf``)."""
    size = 0.78 * REM
    w = 2 * text_width("-0.00", size, mono=True) + 4.5 * REM + 0.6 * REM
    masked = desc.get("masked")
    if masked is not None and any(bool(v) for row in masked for v in row):
        words = "masked (weight 0)" if desc.get("scale") == "weights" else (
            "masked (−∞, weight 0 after the softmax)")  # fmt: skip
        w += 0.75 * REM + 1.1 * REM + 0.3 * REM + _label_w([words], size)
    return w


def text_height(text: str, width: float, size: float = REM, line: float = LINE) -> float:
    """The height of ``text`` wrapped at ``width`` px, set at ``size`` px on ``line`` px."""
    if not text or not text.strip():
        return 0.0
    return len(wrap(text, max(width, size), size)) * line


def _flow(items: Sequence[tuple[float, float]], width: float, gap_x: float, gap_y: float) -> float:
    """The height of boxes (width, height) laid out as a wrapping flex row. Each box is
    taken ``FIT_MARGIN`` wider when deciding what fits: a wrap too many costs a line of
    room, one too few cuts the figure."""
    lines: list[float] = []
    used = math.inf
    for w0, h in items:
        w = min(w0 * FIT_MARGIN, width)
        if lines and used + gap_x + w <= width:
            used += gap_x + w
            lines[-1] = max(lines[-1], h)
        else:
            lines.append(h)
            used = w
    return sum(lines) + gap_y * max(len(lines) - 1, 0)


def _column(heights: Iterable[float], gap: float) -> float:
    hs = [h for h in heights if h > 0]
    return sum(hs) + gap * max(len(hs) - 1, 0)


def grid_box(desc: Mapping[str, Any], width: float, narrow: bool) -> tuple[float, float]:
    """(width, height) of one number grid as grid.js draws it into ``width`` px."""
    rows, cols = (int(n) for n in desc.get("shape", (0, 0)))
    legend = 0.25 * REM + 0.78 * REM * 1.3 + 2  # grid.css .grid-legend
    caption = 0.95 * REM * 1.3 + 0.2 * REM  # table.grid caption / .grid-title
    label_w = _label_w(desc.get("rows") or [], 0.78 * REM)
    head_w = max(min(label_w, 7 * REM) + 0.6 * REM, 2.3 * REM + 0.6 * REM) + 2
    if _legend_w(desc) > width:  # the legend wraps (a masked swatch's words)
        legend += 0.78 * REM * 1.3 + 0.2 * REM
    if not desc.get("text"):  # a canvas: cells shrink to fit the width and 720 px
        across = (width - head_w) // max(cols, 1)
        down = CANVAS_MAX_HEIGHT // max(rows, 1)
        cell = max(CANVAS_CELL[0], min(CANVAS_CELL[1], across, down))
        return max(head_w + cols * cell, _legend_w(desc)), caption + rows * cell + legend + 4
    mono = (0.85 if narrow else 0.95) * REM
    texts = [str(t) for row in desc["text"] for t in row]
    number_w = max((text_width(t, mono, mono=True) for t in texts), default=0.0)
    col_w = _label_w(desc.get("cols") or [], 0.78 * REM)
    cell_w = max(2.3 * REM, number_w + 0.6 * REM, col_w + 0.6 * REM) + 2
    cell_h = 0.95 * REM * 1.2 + 0.5 * REM + 2  # the wider rule's, also when narrow
    header = 0.78 * REM * 1.2 + 2
    return max(
        head_w + cols * cell_w, _legend_w(desc)
    ), caption + header + rows * cell_h + legend + 6


def _op_box(item: Mapping[str, Any], narrow: bool, width: float) -> tuple[float, float]:
    if item.get("arrow"):
        size = 0.95 * REM
        text = f"{item['arrow']} →"
        box = width if narrow else 8 * REM
        w = min(text_width(text, size), box)
        return w, text_height(text, box, size, 1.6 * size)
    return 1.8 * REM, 1.5 * REM


def panels_height(panels: Sequence[Sequence[Mapping[str, Any]]], width: float) -> float:
    """The height of a figure's ``panels`` (rows of grids and operators, grid.css
    ``.panels``): each row wraps, or below 640 px stacks into a column."""
    narrow = width + BODY_PAD_X <= NARROW
    heights = []
    for row in panels:
        boxes = [grid_box(i["grid"], width, narrow) if "grid" in i else _op_box(i, narrow, width)
                 for i in row]  # fmt: skip
        if narrow:
            heights.append(_column((h for _w, h in boxes), 0.5 * REM))
        else:
            heights.append(_flow(boxes, width, 0.75 * REM, 0.5 * REM))
    return 0.4 * REM + _column(heights, REM)


def stepper_height(width: float) -> float:
    """The player's buttons (figures.css ``.stepper``: a wrapping row) and its margins."""
    size = 0.9 * REM
    boxes = [(text_width(t, size) + 1.2 * REM + 2, size * 1.15 + 0.5 * REM + 2)
             for t in STEPPER_LABELS]  # fmt: skip
    return _flow(boxes, width, 0.4 * REM, 0.4 * REM) + 0.5 * REM


def _caption(spec: Mapping[str, Any], width: float) -> float:
    """figcaption: the caption paragraph and the readout list."""
    h = text_height(str(spec.get("caption") or ""), width) + 12
    readout = [str(line) for line in spec.get("readout") or []]
    if readout:
        h += sum(text_height(line, width - 1.2 * REM) for line in readout) + 8
    return h


def _tail(open_text: str, width: float, status: bool) -> float:
    """The folded "Numbers as a table", the status line, "Open in Attention Lab (…)"."""
    h = LINE + (1.2 * REM + 8 if status else 0)
    return h + 4 + text_height(open_text, width, 0.9 * REM, 0.9 * REM * 1.45)


def _finish(content: float) -> int:
    return math.ceil((content + BODY_PAD_Y) * SLACK + SLACK_PX)


def figure_height(
    spec: Mapping[str, Any], width: int, *, open_text: str, steps: Sequence[Any] = (),
    extra: float = 0.0,
) -> int:  # fmt: skip
    """The height of ``/embed/{n}`` drawing ``spec`` (a figure description as its embed
    gets it: panels of grids, or a Plotly chart) in an iframe ``width`` px wide, with
    the "Open" line reading ``open_text``; ``extra`` px for an editor or controls."""
    inner = width - BODY_PAD_X
    title = f"Figure 88. {spec.get('title', '')}"
    h = text_height(title, inner, 1.05 * REM, 1.05 * REM * 1.45) + 4
    frames = spec.get("steps") or spec.get("frames") or steps
    if frames:
        h += stepper_height(inner)
        narration = max((text_height(str(f.get("narration") or ""), inner)
                         for f in frames if isinstance(f, Mapping)), default=0.0)  # fmt: skip
        h += narration + 8
    if spec.get("panels"):
        h += panels_height(spec["panels"], inner)
        h += text_height(GRID_HINT, inner) + 16
    else:
        h += float((spec.get("layout") or {}).get("height", 420))
    return _finish(h + _caption(spec, inner) + _tail(open_text, inner, status=True) + extra)


def _data_tables(tables: Sequence[Mapping[str, Any]], width: float) -> float:
    """``data_tables`` (figures.css ``.data-table``): a caption, a header and the rows
    (the wider rule's row height, also on phones, where a long caption wraps, and the
    header's words wrap in a column's share of the width)."""
    size = 0.9 * REM
    row = size * 1.45 + 0.3 * REM + 1
    heights = []
    for t in tables:
        headers = [str(h) for h in t.get("col_headers") or []]
        share = width / (len(headers) + 1) - REM
        lines = max((len(wrap(h, max(share, size), size)) for h in headers), default=1)
        body = row * len(t.get("cells") or [])
        heights.append(text_height(str(t.get("caption") or ""), width) + row * lines + body)
    return _column(heights, 0.5 * REM)


def lab_grids_height(grids: Sequence[Mapping[str, Any]], width: float) -> float:
    """A lab figure's grids (labs.css ``.lab-grid``: a wrapping row of headed grids)."""
    narrow = width + BODY_PAD_X <= NARROW
    boxes = []
    for g in grids:
        w, h = grid_box(g["desc"], width, narrow)
        head = " ".join(str(t) for t in (g.get("heading"), g.get("badge")) if t)
        if head:  # a block above the grid: as wide as its words, up to the row's width
            w = max(w, min(_label_w([head], REM), width))
            h += text_height(head, w, REM, LINE) + 0.25 * REM
        pad = 2 * (0.5 * REM + 2) if g.get("badge") == "unmasked" else 0
        boxes.append((min(w + pad, width), h + pad))
    return _flow(boxes, width, 1.5 * REM, 0.75 * REM) + REM


def lab_height(
    spec: Mapping[str, Any], width: int, *, entry: str, badges: Sequence[str],
    open_text: str, controls: float = 0.0,
) -> int:  # fmt: skip
    """The height of ``/embed/labs/{id}/{figure}`` drawing the lab figure ``spec`` at
    ``width`` px: title, badges, player, primary tables, chart, grids, hint, caption;
    ``controls`` px for the figure's own controls (``controls=1``)."""
    inner = width - BODY_PAD_X
    h = text_height(f"{entry}. {spec.get('title', '')}", inner, 1.05 * REM, 1.05 * REM * 1.45)
    h += 4
    if badges:
        h += 0.8 * REM * 1.45 + 0.1 * REM + 2 + 0.5 * REM
    if spec.get("frames"):
        h += stepper_height(inner)
    if spec.get("table_view"):
        h += _data_tables(spec.get("tables") or [], inner) + 0.5 * REM
    plot = spec.get("plot")
    if plot:
        h += float((plot.get("layout") or {}).get("height", 420))
    grids = spec.get("grids") or []
    if grids:
        h += lab_grids_height(grids, inner)
        h += text_height(str(spec.get("grid_hint") or LAB_GRID_HINT), inner) + 16
    tail = _tail(open_text, inner, status=False)
    return _finish(h + _caption(spec, inner) + tail + controls)
