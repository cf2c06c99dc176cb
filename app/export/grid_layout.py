"""One number grid measured and drawn for an exported SVG (``app.export.grid_svg``).

``measure`` works out, from the grid description alone (``app.figures.grid``), how much
room the grid needs: its name and shape above, column headers, row headers, cells wide
enough for their printed numbers and headers, an optional heading (a lab's) wrapped to
the grid's width. ``draw`` paints it at a position. Sizes and fonts live in ``SIZES``
and the text widths in ``app.export.text_metrics``, so what is measured is what is drawn.
Big grids (no printed numbers) become blocks of colour with thinned headers, spaced so
that no two headers touch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.export.svg_canvas import Canvas, label_width
from app.export.text_metrics import ASCENT, LINE, shorten, text_width, wrap
from app.figures.palette import PAGE, THEMES

Json = dict[str, Any]

SIZES = {"label": 14.0, "shape": 12.0, "header": 12.0, "cell": 13.0, "heading": 13.0}
CELL_H = 26.0  # a printed cell's height
CELL_PAD = 8.0  # room left and right of a cell's number
MIN_CELL_W = 36.0
BLOCK_SPAN = 420.0  # the longer side of a grid drawn as blocks, before clamping
BLOCK = (3.0, 14.0)  # a block cell's side, smallest and largest
HEADER_MAX = 130.0  # a header longer than this is shortened with "…"
GAP = 6.0  # between a header and the cells, and between text lines
HEADING_MIN = 220.0  # a lab heading wraps at the grid's width, but never narrower


def hatch_id(ident: str) -> str:
    return f"{ident}-hatch"


@dataclass(frozen=True)
class Measured:
    """A grid's layout: sizes in px relative to the grid's own left edge and top."""

    desc: Json
    heading: list[str]
    title: str
    cell_w: float
    cell_h: float
    row_head_w: float
    rows_shown: list[int]
    cols_shown: list[int]
    left_pad: float  # room for a column header that sticks out left of the cells
    width: float
    head_h: float  # from the top to the cells
    cells_h: float
    foot: float  # below the cells: row headers centred on a thin last row

    @property
    def cells_x(self) -> float:
        return self.left_pad + self.row_head_w


def _shown(n: int, cell: float, need: float) -> list[int]:
    """Which of ``n`` headers to print when each needs ``need`` px along ``cell``-px cells."""
    step = max(1, math.ceil(need / cell))
    return list(range(0, n, step))


def _header(text: Any) -> str:
    return shorten(str(text), HEADER_MAX, SIZES["header"])


def measure(desc: Json, heading: str = "", badge: str = "") -> Measured:
    """The room grid ``desc`` needs (see the module docstring)."""
    rows, cols = desc["shape"]
    hs = SIZES["header"]
    line = LINE * hs
    row_labels = [_header(r) for r in desc["rows"]]
    col_labels = [_header(c) for c in desc["cols"]]
    col_w = [text_width(c, hs) for c in col_labels]
    if desc.get("text") is not None:
        widest = max((text_width(t, SIZES["cell"], mono=True) for r in desc["text"] for t in r),
                     default=0.0)  # fmt: skip
        cell_w = max(MIN_CELL_W, widest + 2 * CELL_PAD, max(col_w, default=0.0) + CELL_PAD)
        cell_h, rows_shown, cols_shown = CELL_H, list(range(rows)), list(range(cols))
    else:
        side = min(BLOCK[1], max(BLOCK[0], BLOCK_SPAN / max(rows, cols)))
        cell_w = cell_h = side
        rows_shown = _shown(rows, side, line + 2)
        cols_shown = _shown(cols, side, max(col_w, default=0.0) + 8)
    row_head_w = max((text_width(row_labels[i], hs) for i in rows_shown), default=0.0) + GAP
    # a centred column header may stick out beyond the first or last cell
    first = col_w[cols_shown[0]] / 2 - cell_w / 2 if cols_shown else 0.0
    last = col_w[cols_shown[-1]] / 2 - cell_w / 2 if cols_shown else 0.0
    left_pad = max(0.0, first - row_head_w)
    right_pad = max(0.0, last)
    title = f"{rows} × {cols}" + (f" · {badge}" if badge else "")
    title_w = (
        label_width(desc["label"], SIZES["label"], "bold") + 10 + text_width(title, SIZES["shape"])
    )
    body_w = left_pad + row_head_w + cols * cell_w + right_pad
    heading_w = max(body_w, title_w, HEADING_MIN)
    lines = wrap(heading, heading_w, SIZES["heading"]) if heading else []
    if lines:
        heading_w = max(text_width(x, SIZES["heading"]) for x in lines)
    width = max(body_w, title_w, heading_w)
    head_h = len(lines) * LINE * SIZES["heading"] + _title_h() + GAP + line + GAP
    foot = max(0.0, line / 2 - cell_h / 2) if len(rows_shown) < rows or cell_h < line else 0.0
    return Measured(desc, lines, title, cell_w, cell_h, row_head_w, rows_shown, cols_shown,
                    left_pad, width, head_h, rows * cell_h, foot)  # fmt: skip


def _title_h() -> float:
    # the label's line box, raised for a superscript (svg_canvas.SUP_RISE)
    return LINE * SIZES["label"] + 0.35 * SIZES["label"]


def draw(c: Canvas, m: Measured, x: float, cells_top: float, theme: str, ident: str) -> None:
    """Paint measured grid ``m`` with its left edge at ``x`` and its cells from ``cells_top``."""
    page, t = PAGE[theme], THEMES[theme]
    d = m.desc
    hs = SIZES["header"]
    line = LINE * hs
    top = cells_top - m.head_h
    for k, text in enumerate(m.heading):
        c.text(x, top + k * LINE * SIZES["heading"], text, SIZES["heading"], page.muted)
    y = top + len(m.heading) * LINE * SIZES["heading"]
    label = c.text(x, y, d["label"], SIZES["label"], page.text, weight="bold", sup=True)
    rise = 0.35 * SIZES["label"] if label.h > LINE * SIZES["label"] + 0.01 else 0.0
    c.text(label.x + label.w + 10, y + rise + (SIZES["label"] - SIZES["shape"]) * ASCENT, m.title,
           SIZES["shape"], page.muted)  # fmt: skip
    cx = x + m.cells_x
    for j in m.cols_shown:
        c.text(cx + (j + 0.5) * m.cell_w, cells_top - GAP - line, _header(d["cols"][j]), hs,
               page.text, anchor="middle")  # fmt: skip
    for i in m.rows_shown:
        c.text(cx - GAP, cells_top + (i + 0.5) * m.cell_h - line / 2, _header(d["rows"][i]), hs,
               page.text, anchor="end")  # fmt: skip
    _cells(c, m, cx, cells_top, page.surface, ident)
    _outlines(c, m, cx, cells_top, t.outline)


def _cells(c: Canvas, m: Measured, cx: float, top: float, surface: str, ident: str) -> None:
    d = m.desc
    colours, palette, text = d["color"], d["palette"], d.get("text")
    hover = d.get("hover")
    # the description's per-cell booleans (None when no cell is masked; a numpy array
    # for a large grid)
    flags = d.get("masked")
    masked = set() if flags is None else {tuple(ij) for ij in np.argwhere(np.asarray(flags))}
    gap = "1" if text is not None else "0"
    for i, row in enumerate(colour_rows(colours)):
        for j, k in enumerate(row):
            x, y = cx + j * m.cell_w, top + i * m.cell_h
            hatched = k < 0 or (i, j) in masked
            fill = f"url(#{hatch_id(ident)})" if hatched else palette[k][0]
            c.rect(x, y, m.cell_w, m.cell_h, fill, stroke=surface, stroke_width=gap)
            if text is None or not text[i][j]:
                continue
            ink = palette[k][1] if k >= 0 and not hatched else PAGE_INK[surface]
            title = hover[i][j] if hover else None
            if hatched:  # the number on a plain patch, readable over the hatching
                w = text_width(text[i][j], SIZES["cell"], mono=True) + 4
                c.rect(x + (m.cell_w - w) / 2, y + 4, w, m.cell_h - 8, surface)
            c.text(x + m.cell_w / 2, y + (m.cell_h - LINE * SIZES["cell"]) / 2, text[i][j],
                   SIZES["cell"], ink, anchor="middle", mono=True, title=title)  # fmt: skip


# The ink of a number printed on a hatched (blocked) cell: the page's text colour.
PAGE_INK = {page.surface: page.text for page in PAGE.values()}


def colour_rows(colours: Any) -> list[list[int]]:
    return colours.tolist() if hasattr(colours, "tolist") else colours  # type: ignore[no-any-return]


def _outlines(c: Canvas, m: Measured, cx: float, top: float, colour: str) -> None:
    rows, cols = m.desc["shape"]
    marks = m.desc.get("outline") or {}
    boxes = [(cx, top + r * m.cell_h, cols * m.cell_w, m.cell_h) for r in marks.get("rows", [])]
    boxes += [(cx + k * m.cell_w, top, m.cell_w, rows * m.cell_h) for k in marks.get("cols", [])]
    boxes += [(cx + j * m.cell_w, top + i * m.cell_h, m.cell_w, m.cell_h)
              for i, j in marks.get("cells", [])]  # fmt: skip
    for x, y, w, h in boxes:
        c.rect(x + 1, y + 1, w - 2, h - 2, "none", stroke=colour, stroke_width="2.5")
