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
SUP_RISE = 0.35  # em the superscript is raised


def runs(label: str) -> list[tuple[str, bool]]:
    """ "W^Q, W^K" -> [("W", False), ("Q", True), (", W", False), ("K", True)]: the page's
    one notation for superscripts (as static/js/panels.js reads it)."""
    parts = _SUP.split(label)
    return [(part, i % 2 == 1) for i, part in enumerate(parts) if part]


def label_width(label: str, size: float, weight: str = "normal") -> float:
    """The width of a label with its "^" parts set as superscripts."""
    return sum(
        text_width(part, size * SUP_SCALE if sup else size, weight=weight)
        for part, sup in runs(label)
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
        edge for ``anchor`` start, middle or end. ``sup``: "W^Q" is set as W with a
        superscript Q (the line box then starts SUP_RISE em higher)."""
        pieces = runs(text) if sup else [(text, False)]
        raised = any(s for _, s in pieces)
        w = label_width(text, size, weight) if sup else text_width(text, size, weight=weight,
                                                                   mono=mono)  # fmt: skip
        rise = SUP_RISE * size if raised else 0.0
        left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        box = Box(left, top, w, LINE * size + rise, text)
        self.texts.append(box)
        baseline = top + rise + ASCENT * size
        attrs = f'x="{_n(x)}" y="{_n(baseline)}" font-size="{_n(size)}" fill={quoteattr(fill)}'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if weight != "normal":
            attrs += f' font-weight="{weight}"'
        if mono:
            attrs += f" font-family={quoteattr(MONO)}"
        body, up = "", False
        for part, is_sup in pieces:
            shift = "" if is_sup == up else f' dy="{_n(-rise if is_sup else rise)}"'
            small = f' font-size="{_n(size * SUP_SCALE)}"' if is_sup else ""
            text_part = escape(part)
            body += f"<tspan{shift}{small}>{text_part}</tspan>" if shift or small else text_part
            up = is_sup
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
