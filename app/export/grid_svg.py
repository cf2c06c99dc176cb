"""A figure's number grids as one SVG, laid out from its content: the server-side twin of
the page's grid drawing (``static/js/panels.js`` + ``grid.js``) for exports.

``figure_svg`` draws a main-page figure's ``panels`` (rows of grids with "×", "=", "+"
and labelled arrows; ``app.figures.to_plotly`` documents the shape), ``lab_svg`` a lab
figure's ``grids`` (each with its heading). Each grid has its name and shape, headers,
cells in the figure's palette with the numbers exactly as the description prints them,
blocked cells hatched, outlines where the figure outlines; a legend names every colour
scale and the hatching. ``framed`` adds the figure's heading above and its caption under
(the PNG and SVG buttons); the offline HTML prints those itself.

Nothing is placed at a fixed size: every width comes from the text it holds
(``app.export.text_metrics``), every row from its tallest item, the picture from its
rows, so no text overlaps or leaves the picture at any size. ``Picture.boxes`` keeps
each text's box for the tests that prove it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.export import grid_layout as gl
from app.export.svg_canvas import Box, Canvas, label_width
from app.export.text_metrics import LINE, text_width, wrap
from app.figures import fmt
from app.figures.palette import PAGE, SCALES

Json = dict[str, Any]

SIZES = {"heading": 17.0, "op": 22.0, "arrow": 13.0, "legend": 12.0, "caption": 13.0}
MARGIN = 20.0
ITEM_GAP = 18.0
ROW_GAP = 30.0
FRAMED_MIN_W = 560.0  # a framed picture is at least this wide, so its caption reads well
LAB_ROW_W = 960.0  # a lab figure's grids wrap onto a new row past this width
ARROW_TEXT_W = 140.0
BAR_W, BAR_H = 150.0, 12.0


@dataclass(frozen=True)
class Picture:
    svg: str
    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)


@dataclass
class Item:
    kind: str  # grid, op or arrow
    width: float
    text: str = ""
    lines: list[str] = field(default_factory=list)
    grid: gl.Measured | None = None


def _item(raw: Json) -> Item:
    if "grid" in raw:
        m = gl.measure(raw["grid"], raw.get("heading", ""), raw.get("badge", ""))
        return Item("grid", m.width, grid=m)
    if "arrow" in raw:
        lines = wrap(str(raw["arrow"]), ARROW_TEXT_W, SIZES["arrow"])
        w = max([text_width(x, SIZES["arrow"]) for x in lines] + [36.0])
        return Item("arrow", w + 12, lines=lines)
    op = str(raw.get("op", ""))
    return Item("op", text_width(op, SIZES["op"]) + 12, text=op)


@dataclass
class Row:
    items: list[Item]
    width: float
    head: float  # from the row's top to its cells
    height: float


def _row(items: list[Item]) -> Row:
    grids = [i.grid for i in items if i.grid is not None]
    head = max(g.head_h for g in grids)
    bottom = max(g.head_h + g.cells_h + g.foot for g in grids)
    width = sum(i.width for i in items) + ITEM_GAP * (len(items) - 1)
    return Row(items, width, head, bottom)


def _centre(row: Row, k: int) -> float:
    """Where an op or arrow sits: level with the middle of its smaller neighbour grid."""
    near = [i.grid for i in row.items[max(0, k - 1) : k + 2] if i.grid is not None]
    return row.head + min(g.cells_h for g in near) / 2 if near else row.head


def _draw_row(c: Canvas, row: Row, x0: float, top: float, theme: str, ident: str) -> None:
    page = PAGE[theme]
    x = x0
    for k, item in enumerate(row.items):
        if item.grid is not None:
            gl.draw(c, item.grid, x, top + row.head, theme, ident)
        elif item.kind == "op":
            size = SIZES["op"]
            c.text(x + item.width / 2, top + _centre(row, k) - LINE * size / 2, item.text, size,
                   page.text, anchor="middle")  # fmt: skip
        else:
            _arrow(c, item, x, top + _centre(row, k), page.text)
        x += item.width + ITEM_GAP


def _arrow(c: Canvas, item: Item, x: float, mid: float, ink: str) -> None:
    size = SIZES["arrow"]
    top = mid - 4 - len(item.lines) * LINE * size
    for k, text in enumerate(item.lines):
        c.text(x + item.width / 2, top + k * LINE * size, text, size, ink, anchor="middle")
    x1, x2 = x + 4, x + item.width - 4
    c.line(x1, mid + 2, x2 - 6, mid + 2, ink, 1.6)
    c.raw(f'<path d="M{x2 - 9:.1f},{mid - 3:.1f} L{x2:.1f},{mid + 2:.1f} '
          f'L{x2 - 9:.1f},{mid + 7:.1f} z" fill="{ink}"/>')  # fmt: skip


def _rows_of(panels: list[list[Json]]) -> list[Row]:
    return [_row([_item(raw) for raw in row]) for row in panels if row]


def _lab_rows(grids: list[Json]) -> list[Row]:
    """A lab figure's grids, left to right, a new row whenever LAB_ROW_W is passed."""
    rows: list[list[Item]] = [[]]
    width = 0.0
    for g in grids:
        item = _item({"grid": g["desc"], "heading": g.get("heading", ""),
                      "badge": g.get("badge", "")})  # fmt: skip
        if rows[-1] and width + ITEM_GAP + item.width > LAB_ROW_W:
            rows.append([])
            width = 0.0
        width += (ITEM_GAP if rows[-1] else 0.0) + item.width
        rows[-1].append(item)
    return [_row(items) for items in rows if items]


def _grids(rows: list[Row]) -> list[Json]:
    return [i.grid.desc for r in rows for i in r.items if i.grid is not None]


def _legend_groups(descs: list[Json]) -> list[tuple[str, tuple[float, float], list[str]]]:
    """(scale, domain, the labels of the grids drawn in it), in order of appearance."""
    groups: dict[tuple[str, float, float], list[str]] = {}
    for d in descs:
        key = (d["scale"], float(d["domain"][0]), float(d["domain"][1]))
        labels = groups.setdefault(key, [])
        if d["label"] not in labels:
            labels.append(d["label"])
    return [(s, (lo, hi), labels) for (s, lo, hi), labels in groups.items()]


def _hatched(descs: list[Json]) -> bool:
    return any(
        d.get("masked") is not None or any(k < 0 for row in gl.colour_rows(d["color"]) for k in row)
        for d in descs
    )


def _legend(c: Canvas, descs: list[Json], x0: float, top: float, width: float, theme: str,
            ident: str) -> float:  # fmt: skip
    """Draw the legend from ``top`` within ``width``; return its height."""
    page, size = PAGE[theme], SIZES["legend"]
    line = LINE * size
    cells: list[tuple[float, float, Any]] = []
    for scale, (lo, hi), labels in _legend_groups(descs):
        name = ", ".join(labels)
        names = wrap(name, max(BAR_W, 240.0), size) if "^" not in name else [name]
        w = max([BAR_W + 24] + [label_width(n, size) for n in names])
        cells.append((w, len(names) * line + 4 + BAR_H + 4 + line, (scale, lo, hi, names)))
    if _hatched(descs):
        cells.append((_hatch_entry_width(), max(line, 16.0), ("hatch", HATCH_TEXT)))
    x, y, row_h = x0, top, 0.0
    for w, h, what in cells:
        if x > x0 and x + w > x0 + width:
            x, y, row_h = x0, y + row_h + 10, 0.0
        if what[0] == "hatch":
            c.rect(x, y, 26, 16, f"url(#{gl.hatch_id(ident)})", stroke=page.muted)
            c.text(x + 34, y + (16 - line) / 2, what[1], size, page.text)
        else:
            _ramp(c, x, y, what, theme, ident, len(c.defs))
        x += w + 24
        row_h = max(row_h, h)
    return y + row_h - top if cells else 0.0


def _ramp(c: Canvas, x: float, y: float, what: Any, theme: str, ident: str, n: int) -> None:
    scale, lo, hi, names = what
    page, size = PAGE[theme], SIZES["legend"]
    line = LINE * size
    for k, name in enumerate(names):
        c.text(x, y + k * line, name, size, page.text, sup=True)
    bar = y + len(names) * line + 4
    gid = f"{ident}-ramp-{n}"
    stops = SCALES[theme][scale]
    c.defs.append(f'<linearGradient id="{gid}">' + "".join(
        f'<stop offset="{k / 2:g}" stop-color="{colour}"/>' for k, colour in enumerate(stops)
    ) + "</linearGradient>")  # fmt: skip
    c.rect(x, bar, BAR_W, BAR_H, f"url(#{gid})", stroke=page.muted, stroke_width="0.5")
    ticks = bar + BAR_H + 4
    c.text(x, ticks, fmt.value(lo), size, page.muted)
    c.text(x + BAR_W / 2, ticks, fmt.value((lo + hi) / 2), size, page.muted, anchor="middle")
    c.text(x + BAR_W, ticks, fmt.value(hi), size, page.muted, anchor="end")


def _hatch_def(ident: str, theme: str) -> str:
    page = PAGE[theme]
    return (
        f'<pattern id="{gl.hatch_id(ident)}" patternUnits="userSpaceOnUse" width="6" '
        f'height="6" patternTransform="rotate(45)"><rect width="6" height="6" '
        f'fill="{page.surface}"/><line x1="0" y1="0" x2="0" y2="6" stroke="{page.muted}" '
        f'stroke-width="2"/></pattern>'
    )


def _picture(rows: list[Row], theme: str, ident: str, *, heading: str, caption: str,
             alt: str) -> Picture:  # fmt: skip
    page = PAGE[theme]
    c = Canvas(defs=[_hatch_def(ident, theme)])
    content = max(r.width for r in rows)
    descs = _grids(rows)
    framed = bool(heading or caption)
    if framed:
        content = max(content, FRAMED_MIN_W)
    content = max(content, _legend_width(descs))
    y = MARGIN
    if heading:
        for text in wrap(heading, content, SIZES["heading"], weight="bold"):
            y += c.text(MARGIN, y, text, SIZES["heading"], page.text, weight="bold", sup=True).h
        y += 12
    for r in rows:
        _draw_row(c, r, MARGIN, y, theme, ident)
        y += r.height + ROW_GAP
    y += _legend(c, descs, MARGIN, y - ROW_GAP + 18, content, theme, ident) - ROW_GAP + 18
    if caption:
        y += 14
        for text in wrap(caption, content, SIZES["caption"]):
            y += c.text(MARGIN, y, text, SIZES["caption"], page.text, sup=True).h
    width, height = content + 2 * MARGIN, y + MARGIN
    svg = c.svg(width, height, page.surface, heading or alt, alt, ident)
    return Picture(svg, width, height, c.texts)


HATCH_TEXT = "hatched: a blocked (masked) cell"


def _hatch_entry_width() -> float:
    return 34 + text_width(HATCH_TEXT, SIZES["legend"])  # swatch, gap, words


def _legend_width(descs: list[Json]) -> float:
    """The widest single legend entry (the legend wraps entries, never cuts one)."""
    widest = max(BAR_W + 24, _hatch_entry_width() if _hatched(descs) else 0.0)
    size = SIZES["legend"]
    for _, _, labels in _legend_groups(descs):
        name = ", ".join(labels)
        names = wrap(name, max(BAR_W, 240.0), size) if "^" not in name else [name]
        widest = max([widest] + [label_width(n, size) for n in names])
    return widest


def figure_svg(fig: Json, theme: str, *, framed: bool = True) -> Picture:
    """Figure N (a description with ``panels``) as a picture; ``framed``: with its
    heading "Figure N. Title" and caption."""
    n = fig.get("number", "")
    heading = f"Figure {n}. {fig.get('title', '')}" if framed else ""
    return _picture(_rows_of(fig["panels"]), theme, f"fig-{n}-svg", heading=heading,
                    caption=fig.get("caption", "") if framed else "",
                    alt=fig.get("alt") or fig.get("title", ""))  # fmt: skip


def lab_svg(fig: Json, theme: str, *, framed: bool = True) -> Picture:
    """A lab figure's number grids (``grids``) as a picture."""
    heading = f"{fig.get('entry', '')}. {fig.get('title', '')}" if framed else ""
    return _picture(_lab_rows(fig["grids"]), theme, f"{fig.get('name', 'lab')}-svg",
                    heading=heading, caption=fig.get("caption", "") if framed else "",
                    alt=fig.get("alt") or fig.get("title", ""))  # fmt: skip
