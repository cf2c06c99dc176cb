"""An SVG drawn element by element, keeping the box of every text it places.

``Canvas`` is what ``app.export.grid_svg`` draws on: rectangles, lines and text, each
positioned by its top-left corner in px. Every text's box (estimated with
``app.export.text_metrics``) is kept in ``texts``, so a test can prove that no two
overlap and none leaves the picture without a browser. ``svg()`` writes the document;
every string is XML-escaped here, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from app.export.text_metrics import ASCENT, LINE, MONO, SANS, text_width
from app.notation import script_runs


@dataclass(frozen=True)
class Box:
    """A placed text: its top-left corner, size and string."""

    x: float
    y: float
    w: float
    h: float
    text: str

    def overlaps(self, other: Box) -> bool:
        return (
            self.x < other.x + other.w
            and other.x < self.x + self.w
            and self.y < other.y + other.h
            and other.y < self.y + self.h
        )


def _n(x: float) -> str:
    """A coordinate, short."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


_SUP = re.compile(r"\^([A-Za-z]+)")
SUP_SCALE = 0.7
SUP_RISE = 0.35  # em a superscript is raised
SUB_DROP = 0.25  # em a subscript is lowered


def runs(label: str) -> list[tuple[str, int]]:
    """ "W^Q and d_k" -> [("W", 0), ("Q", 1), (" and d", 0), ("k", -1)]: the product's one
    notation (app.notation: the page's MathML vocabulary), and any other "^letters" (a
    grid name such as "K^T") raised as static/js/panels.js raises it."""
    out: list[tuple[str, int]] = []
    for text, level in script_runs(label):
        if level:
            out.append((text, level))
            continue
        parts = _SUP.split(text)
        out += [(part, i % 2) for i, part in enumerate(parts) if part]
    return out


def label_width(label: str, size: float, weight: str = "normal") -> float:
    """The width of a text with its scripts set small."""
    return sum(
        text_width(part, size * SUP_SCALE if level else size, weight=weight)
        for part, level in runs(label)
    )


@dataclass
class Canvas:
    """Elements of one SVG and the boxes of its texts."""

    parts: list[str] = field(default_factory=list)
    texts: list[Box] = field(default_factory=list)
    defs: list[str] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, **attrs: str) -> None:
        extra = "".join(f" {k.replace('_', '-')}={quoteattr(v)}" for k, v in attrs.items())
        self.parts.append(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
            f"fill={quoteattr(fill)}{extra}/>"
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str, width: float) -> None:
        self.parts.append(
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" '
            f'stroke={quoteattr(colour)} stroke-width="{_n(width)}"/>'
        )

    def raw(self, markup: str) -> None:
        """Markup built by the caller from escaped parts only."""
        self.parts.append(markup)

    def text(
        self,
        x: float,
        top: float,
        text: str,
        size: float,
        fill: str,
        *,
        anchor: str = "start",
        weight: str = "normal",
        mono: bool = False,
        sup: bool = False,
        title: str | None = None,
    ) -> Box:
        """Text whose line box starts at ``top``; ``x`` is its left edge, centre or right
        edge for ``anchor`` start, middle or end. ``sup``: the notation is set with its
        scripts, "W^Q" as W with a superscript Q and "d_k" as d with a subscript k (the
        line box then starts SUP_RISE em higher and ends SUB_DROP em lower)."""
        pieces = runs(text) if sup else [(text, 0)]
        rise = SUP_RISE * size if any(level > 0 for _, level in pieces) else 0.0
        drop = SUB_DROP * size if any(level < 0 for _, level in pieces) else 0.0
        w = label_width(text, size, weight) if sup else text_width(text, size, weight=weight,
                                                                   mono=mono)  # fmt: skip
        left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        box = Box(left, top, w, LINE * size + rise + drop, text)
        self.texts.append(box)
        baseline = top + rise + ASCENT * size
        attrs = f'x="{_n(x)}" y="{_n(baseline)}" font-size="{_n(size)}" fill={quoteattr(fill)}'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if weight != "normal":
            attrs += f' font-weight="{weight}"'
        if mono:
            attrs += f" font-family={quoteattr(MONO)}"
        offset = {1: -rise, 0: 0.0, -1: drop}  # each level's distance from the baseline
        body, now = "", 0
        for part, level in pieces:
            move = offset[level] - offset[now]
            shift = f' dy="{_n(move)}"' if move else ""
            small = f' font-size="{_n(size * SUP_SCALE)}"' if level else ""
            text_part = escape(part)
            body += f"<tspan{shift}{small}>{text_part}</tspan>" if shift or small else text_part
            now = level
        hint = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(f"<text {attrs}>{hint}{body}</text>")
        return box

    def svg(
        self, width: float, height: float, background: str, title: str, desc: str, ident: str
    ) -> str:
        """The document: ``width`` × ``height`` px on ``background``; ``ident`` prefixes
        its ids (several pictures may share one HTML file)."""
        w, h = _n(width), _n(height)
        defs = f"<defs>{''.join(self.defs)}</defs>" if self.defs else ""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" role="img" aria-labelledby="{ident}-title {ident}-desc" '
            f"font-family={quoteattr(SANS)}>"
            f'<title id="{ident}-title">{escape(title)}</title>'
            f'<desc id="{ident}-desc">{escape(desc)}</desc>'
            f'{defs}<rect width="100%" height="100%" fill={quoteattr(background)}/>'
            + "".join(self.parts)
            + "</svg>"
        )
