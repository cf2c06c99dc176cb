"""The controls of a lab figure, declared as data: kinds, bounds, defaults, and how a
value is written in a URL.

PURE (standard library only). A control's value travels in the URL query as text under
its key (LABS.md §2: the control's name in ``code``); ``Control.encode`` writes a value,
and ``app.inputs.lab_controls.parse_control`` reads it back (or refuses it with an error
naming the key), so ``parse(encode(v)) == v`` and a reopened link computes the same
numbers. ``extra`` adds rules the reader checks: ``square=(lo, hi)`` or ``rows=(lo, hi)``
for a matrix, ``snap=True`` (a vector dragged on a chart: snapped to ``step`` and clamped
to ``lo``/``hi``), ``whole=True`` (whole entries), ``most=n`` (at most n entries),
``permutation=True`` (0 … n−1 once each), ``empty_ok=True`` (a multi-choice may be empty).

Text forms: numbers as Python writes them (``0.1``, ``-3``, ``1e-05``); a toggle ``1``
or ``0``; a vector ``2,1,0``; a matrix rows joined by ``;`` (``3,-3;1,1``); a choice its
value; a ``steps`` control (a slider over listed values, e.g. d_k = 1, 2, 4 … 1024) the
value itself; a ``multi`` control its chosen values joined by ``,``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["number", "int", "toggle", "choice", "steps", "vector", "matrix", "multi"]


def number_text(x: float) -> str:
    """The shortest text that reads back as the same float (``2.0`` -> ``2``)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


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

    # ---- value -> text ----
    @staticmethod
    def text_of(value: Any) -> str:
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, int | float):
            return number_text(value)
        return str(value)

    def encode(self, value: Any) -> str:
        if self.kind in ("vector", "multi"):
            return ",".join(self.text_of(v) for v in value)
        if self.kind == "matrix":
            return ";".join(",".join(self.text_of(v) for v in row) for row in value)
        return self.text_of(value)

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
            "choices": [[self.text_of(v), label] for v, label in self.choices],
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
    shown = names or [Control.text_of(v) for v in values]
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
    pairs = tuple((v, Control.text_of(v)) for v in values)
    return Control(name, label, "multi", tuple(default), choices=pairs, **kw)
