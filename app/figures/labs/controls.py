"""The controls of a lab figure: kinds, bounds, defaults, and their URL text form.

PURE (standard library only). A control's value travels in the URL query as text under
its key (LABS.md §2: the control's name in ``code``); ``Control.parse`` turns that text
into a value or raises ``ControlError`` naming the key, and ``Control.encode`` writes a
value back, so ``parse(encode(v)) == v`` and a reopened link computes the same numbers.

Text forms: numbers as Python writes them (``0.1``, ``-3``, ``1e-05``); a toggle ``1``
or ``0``; a vector ``2,1,0``; a matrix rows joined by ``;`` (``3,-3;1,1``); a choice its
value; a ``steps`` control (a slider over listed values, e.g. d_k = 1, 2, 4 … 1024) the
value itself; a ``multi`` control its chosen values joined by ``,``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["number", "int", "toggle", "choice", "steps", "vector", "matrix", "multi"]

MAX_TEXT = 2000  # characters of one control's URL text


class ControlError(ValueError):
    """A control value that cannot be used; ``key`` is the URL key to fix."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


def number_text(x: float) -> str:
    """The shortest text that reads back as the same float (``2.0`` -> ``2``)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def _number(key: str, text: str, lo: float | None, hi: float | None) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise ControlError(key, f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ControlError(key, "must be a finite number")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ControlError(
            key, f"must be between {number_text(lo or 0)} and {number_text(hi or 0)}"
        )
    return value


@dataclass(frozen=True)
class Control:
    """One control. ``choices`` are (value, label) pairs for choice, steps and multi.

    ``shape`` is (rows, cols) for a matrix, (n,) for a vector; ``labels`` name a
    vector's entries or a matrix's rows for the page (e.g. the keys' tokens).
    """

    name: str
    label: str
    kind: Kind
    default: Any
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple[tuple[Any, str], ...] = ()
    shape: tuple[int, ...] = ()
    labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    hint: str = ""
    # A slider whose drag asks for a small run (the page refines on release).
    drag_preview: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    # ---- text -> value ----
    def parse(self, text: str, key: str | None = None) -> Any:
        key = key or self.name
        if len(text) > MAX_TEXT:
            raise ControlError(key, f"is longer than {MAX_TEXT} characters")
        if self.kind == "number":
            return _number(key, text, self.lo, self.hi)
        if self.kind == "int":
            value = _number(key, text, self.lo, self.hi)
            if not value.is_integer():
                raise ControlError(key, "must be a whole number")
            return int(value)
        if self.kind == "toggle":
            if text not in ("0", "1"):
                raise ControlError(key, "must be 1 (on) or 0 (off)")
            return text == "1"
        if self.kind in ("choice", "steps"):
            return self._choice(key, text)
        if self.kind == "vector":
            return self._vector(key, text, self.shape[0] if self.shape else None)
        if self.kind == "matrix":
            return self._matrix(key, text)
        return self._multi(key, text)

    def _choice(self, key: str, text: str) -> Any:
        for value, _ in self.choices:
            if text == self._text(value):
                return value
        known = ", ".join(self._text(v) for v, _ in self.choices[:12])
        raise ControlError(key, f"{text!r} is not one of {known}")

    def _vector(self, key: str, text: str, n: int | None) -> tuple[float, ...]:
        parts = text.split(",") if text else []
        if n is not None and len(parts) != n:
            raise ControlError(key, f"needs {n} numbers separated by commas, got {len(parts)}")
        if self.extra.get("snap"):  # dragged on a chart: onto the step grid, within bounds
            return tuple(self._snap(_number(key, p, None, None)) for p in parts)
        return tuple(_number(key, p, self.lo, self.hi) for p in parts)

    def _snap(self, value: float) -> float:
        step, lo, hi = self.step or 1.0, self.lo, self.hi
        # Into the bounds first: 1e308 / step would overflow round() (a 500, not a clamp).
        value = max(lo, value) if lo is not None else value
        value = min(hi, value) if hi is not None else value
        snapped = round(round(value / step) * step, 10)
        snapped = max(lo, snapped) if lo is not None else snapped
        return min(hi, snapped) if hi is not None else snapped

    def _matrix(self, key: str, text: str) -> tuple[tuple[float, ...], ...]:
        rows = tuple(self._vector(key, r, None) for r in text.split(";"))
        square = self.extra.get("square")  # (least, most): any n × n, n in that range
        if square is not None:
            n = len(rows)
            if not square[0] <= n <= square[1] or any(len(r) != n for r in rows):
                raise ControlError(
                    key,
                    f"needs n rows of n numbers, n from {square[0]} to {square[1]} "
                    "(numbers separated by commas, rows by semicolons)",
                )
            return rows
        want_rows, want_cols = self.shape
        # extra["rows"] = (lo, hi): the number of rows may vary (a chosen length L)
        lo_rows, hi_rows = self.extra.get("rows", (want_rows, want_rows))
        if not lo_rows <= len(rows) <= hi_rows or any(len(r) != want_cols for r in rows):
            count = str(want_rows) if lo_rows == hi_rows else f"{lo_rows} to {hi_rows}"
            raise ControlError(
                key,
                f"needs {count} rows of {want_cols} numbers "
                "(numbers separated by commas, rows by semicolons)",
            )
        return rows

    def _multi(self, key: str, text: str) -> tuple[Any, ...]:
        chosen = {self._choice(key, p) for p in text.split(",") if p}
        if not chosen and not self.extra.get("empty_ok"):
            raise ControlError(key, "choose at least one")
        return tuple(v for v, _ in self.choices if v in chosen)

    # ---- value -> text ----
    @staticmethod
    def _text(value: Any) -> str:
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, int | float):
            return number_text(value)
        return str(value)

    def encode(self, value: Any) -> str:
        if self.kind in ("vector", "multi"):
            return ",".join(self._text(v) for v in value)
        if self.kind == "matrix":
            return ";".join(",".join(self._text(v) for v in row) for row in value)
        return self._text(value)

    def describe(self) -> dict[str, Any]:
        """What the page needs to draw and wire the control (JSON)."""
        return {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "default": self.encode(self.default),
            "lo": self.lo,
            "hi": self.hi,
            "step": self.step,
            "shape": list(self.shape),
            "choices": [[self._text(v), label] for v, label in self.choices],
            "drag_preview": self.drag_preview,
            "labels": list(self.labels),
            "size_by": self.extra.get("size_by"),
        }


def number(
    name: str, label: str, default: float, lo: float, hi: float, step: float, **kw: Any
) -> Control:
    return Control(name, label, "number", default, lo, hi, step, **kw)


def integer(name: str, label: str, default: int, lo: int, hi: int, **kw: Any) -> Control:
    return Control(name, label, "int", default, lo, hi, 1, **kw)


def toggle(name: str, label: str, default: bool, **kw: Any) -> Control:
    return Control(name, label, "toggle", default, **kw)


def choice(
    name: str, label: str, default: Any, choices: Sequence[tuple[Any, str]], **kw: Any
) -> Control:
    return Control(name, label, "choice", default, choices=tuple(choices), **kw)


def steps(
    name: str,
    label: str,
    default: Any,
    values: Sequence[Any],
    names: Sequence[str] | None = None,
    **kw: Any,
) -> Control:
    """A slider over listed values (a log slider over powers of two, say); ``names`` are
    what the page shows for each value (default: the value)."""
    shown = names or [Control._text(v) for v in values]
    pairs = tuple(zip(values, shown, strict=True))
    return Control(name, label, "steps", default, choices=pairs, **kw)


def vector(
    name: str, label: str, default: Sequence[float], lo: float, hi: float, step: float, **kw: Any
) -> Control:
    return Control(name, label, "vector", tuple(default), lo, hi, step, shape=(len(default),), **kw)


def matrix(
    name: str,
    label: str,
    default: Sequence[Sequence[float]],
    lo: float,
    hi: float,
    step: float,
    **kw: Any,
) -> Control:
    rows = tuple(tuple(float(v) for v in r) for r in default)
    return Control(name, label, "matrix", rows, lo, hi, step, shape=(len(rows), len(rows[0])), **kw)


def multi(
    name: str, label: str, default: Sequence[Any], values: Sequence[Any], **kw: Any
) -> Control:
    pairs = tuple((v, Control._text(v)) for v in values)
    return Control(name, label, "multi", tuple(default), choices=pairs, **kw)
