"""Lab controls read from a URL: the text under each key becomes a value, or a
``ControlError`` (a ``FieldError``) naming that key.

The declarations (names, kinds, bounds, defaults: ``app.figures.labs.controls``) stay
data next to the figures; this module is how a query is read against them, so every lab
route, embed and oEmbed reads a control the same way. Numbers follow THE number grammar
of a URL (``app.inputs.query.decimal``: ASCII decimals only, finite), the one the page's
own parameters use: ``١٢``, ``１２``, ``1_2``, `` 12``, ``0x10``, ``inf`` and ``nan`` are
refused. Vector and matrix entries are bounded too (by the control's ``lo``/``hi``, or
by ``MAX_MAGNITUDE`` for a vector dragged on a chart, which is snapped and clamped), so
no derived number can overflow.

Text forms (LABS.md §2): a toggle ``1`` or ``0``; a vector ``2,1,0``; a matrix rows
joined by ``;`` (``3,-3;1,1``); a choice or a ``steps`` value as the control writes it;
a ``multi`` control its chosen values joined by ``,``. ``parse(encode(v)) == v``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures.labs.base import Lab, LabFigure
from app.figures.labs.controls import Control, number_text
from app.inputs.errors import FieldError
from app.inputs.query import decimal, shown

MAX_TEXT = 2000  # characters of one control's URL text
MAX_MAGNITUDE = 1e6  # |entry| of a snapped vector: the snap's arithmetic stays exact
# A lab link's figure in its query (/labs/why-scale?figure=saturation#saturation): the
# fragment only scrolls, browsers never send it, so the query is what the server reads.
FIGURE_KEY = "figure"


class ControlError(FieldError):
    """A control value that cannot be used; ``key`` (= ``field``) is the URL key to fix."""

    @property
    def key(self) -> str:
        return self.field


def parse_number(key: str, text: str, lo: float | None = None, hi: float | None = None) -> float:
    value = decimal(text)
    if value is None:
        raise ControlError(
            key, f"{shown(text)!r} is not a number (ASCII digits, e.g. 2, -0.5 or 1e-3)"
        )
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ControlError(
            key, f"must be between {number_text(lo or 0)} and {number_text(hi or 0)}"
        )
    return value


def parse_control(c: Control, text: str, key: str | None = None) -> Any:
    """The value of control ``c`` written ``text`` in a URL, or ControlError naming ``key``
    (default: the control's name)."""
    key = key or c.name
    if len(text) > MAX_TEXT:
        raise ControlError(key, f"is longer than {MAX_TEXT} characters")
    if c.kind == "number":
        return parse_number(key, text, c.lo, c.hi)
    if c.kind == "int":
        value = parse_number(key, text, c.lo, c.hi)
        if not value.is_integer():
            raise ControlError(key, "must be a whole number")
        return int(value)
    if c.kind == "toggle":
        if text not in ("0", "1"):
            raise ControlError(key, "must be 1 (on) or 0 (off)")
        return text == "1"
    if c.kind in ("choice", "steps"):
        return _choice(c, key, text)
    if c.kind == "vector":
        return _vector(c, key, text, c.shape[0] if c.shape else None)
    if c.kind == "matrix":
        return _matrix(c, key, text)
    return _multi(c, key, text)


def _choice(c: Control, key: str, text: str) -> Any:
    for value, _ in c.choices:
        if text == c.text_of(value):
            return value
    known = ", ".join(c.text_of(v) for v, _ in c.choices[:12])
    raise ControlError(key, f"{shown(text)!r} is not one of {known}")


def _vector(c: Control, key: str, text: str, n: int | None) -> tuple[float, ...]:
    parts = text.split(",") if text else []
    if n is not None and len(parts) != n:
        raise ControlError(key, f"needs {n} numbers separated by commas, got {len(parts)}")
    most = c.extra.get("most")
    if most is not None and len(parts) > most:
        raise ControlError(key, f"at most {most} numbers at a time")
    if c.extra.get("snap"):  # dragged on a chart: onto the step grid, within bounds
        values = tuple(_snap(c, _bounded(key, parse_number(key, p))) for p in parts)
    else:
        values = tuple(parse_number(key, p, c.lo, c.hi) for p in parts)
    if c.extra.get("whole") and not all(v.is_integer() for v in values):
        raise ControlError(key, "must be whole numbers")
    if c.extra.get("permutation") and sorted(values) != list(range(len(values))):
        listed = ", ".join(str(i) for i in range(len(values) - 1))
        raise ControlError(
            key, f"must list the positions {listed} and {len(values) - 1} once each "
            "(a permutation)"
        )  # fmt: skip
    return values


def _bounded(key: str, value: float) -> float:
    """A dragged entry before it is snapped: past ±MAX_MAGNITUDE, value / step and the
    products the figure forms from it overflow."""
    if abs(value) > MAX_MAGNITUDE:
        raise ControlError(key, f"entries beyond ±{MAX_MAGNITUDE:,.0f} are refused")
    return value


def _snap(c: Control, value: float) -> float:
    step, lo, hi = c.step or 1.0, c.lo, c.hi
    snapped = round(round(value / step) * step, 10)
    snapped = max(lo, snapped) if lo is not None else snapped
    return min(hi, snapped) if hi is not None else snapped


def _matrix(c: Control, key: str, text: str) -> tuple[tuple[float, ...], ...]:
    rows = tuple(_vector(c, key, r, None) for r in text.split(";"))
    square = c.extra.get("square")  # (least, most): any n × n, n in that range
    if square is not None:
        n = len(rows)
        if not square[0] <= n <= square[1] or any(len(r) != n for r in rows):
            raise ControlError(
                key,
                f"needs n rows of n numbers, n from {square[0]} to {square[1]} "
                "(numbers separated by commas, rows by semicolons)",
            )
        return rows
    want_rows, want_cols = c.shape
    # extra["rows"] = (lo, hi): the number of rows may vary (a chosen length L)
    lo_rows, hi_rows = c.extra.get("rows", (want_rows, want_rows))
    if not lo_rows <= len(rows) <= hi_rows or any(len(r) != want_cols for r in rows):
        count = str(want_rows) if lo_rows == hi_rows else f"{lo_rows} to {hi_rows}"
        raise ControlError(
            key,
            f"needs {count} rows of {want_cols} numbers "
            "(numbers separated by commas, rows by semicolons)",
        )
    return rows


def _multi(c: Control, key: str, text: str) -> tuple[Any, ...]:
    chosen = {_choice(c, key, p) for p in text.split(",") if p}
    if not chosen and not c.extra.get("empty_ok"):
        raise ControlError(key, "choose at least one")
    return tuple(v for v, _ in c.choices if v in chosen)


# ---- a lab's query -> each figure's values


def figure_values(
    lab: Lab, fig: LabFigure, params: Mapping[str, str], embed: bool = False
) -> dict[str, Any]:
    """The figure's control values from a query (defaults where absent); ControlError
    names the key of the first bad value. An embed also reads bare names."""
    keys = lab.keys()
    values: dict[str, Any] = {}
    for c in fig.controls:
        key = keys[(fig.name, c.name)]
        text = params.get(key)
        if text is None and embed:
            text, key = params.get(c.name), c.name
        values[c.name] = c.default if text is None else parse_control(c, text, key)
    return fig.settle(values) if fig.settle is not None else values


def read_values(
    lab: Lab, fig: LabFigure, params: Mapping[str, str], embed: bool = False
) -> dict[str, dict[str, Any]]:
    """The values of the figures ``fig`` reads (figure -> control -> value)."""
    out: dict[str, dict[str, Any]] = {}
    for name in fig.reads:
        other = lab.figure(name)
        if other is not None:
            out[name] = figure_values(lab, other, params, embed=embed)
    return out


def known_keys(lab: Lab) -> set[str]:
    return set(lab.keys().values())


def lab_figure(lab: Lab, params: Mapping[str, str]) -> LabFigure | None:
    """The figure the query's ``figure`` names, None when it names none; ControlError
    naming ``figure`` when the lab has no such figure."""
    name = params.get(FIGURE_KEY)
    if not name:
        return None
    fig = lab.figure(name)
    if fig is None:
        names = ", ".join(f.name for f in lab.figures)
        raise ControlError(FIGURE_KEY, f"the lab {lab.title!r} has no figure {shown(name)!r} "
                           f"({names})")  # fmt: skip
    return fig


def check_unknown(lab: Lab, params: Mapping[str, str], allowed: set[str]) -> None:
    """ControlError for a query key this lab does not know (a typo in a link)."""
    for key in params:
        if key not in known_keys(lab) and key not in allowed:
            raise ControlError(key, f"the lab {lab.title!r} has no control {shown(key)!r}")
