"""No number is formatted in ``app/figures`` outside ``app/figures/fmt.py``.

The check parses every module with ``ast`` and refuses each way Python formats a number:
an f-string field with a format spec (``f"{x:.2f}"``), ``str.format``, ``format()``,
``%``-formatting of a string, ``round(x, n)`` (rounding for display) and ``str(x)`` of a
float literal or a ``float(...)`` call. The failing examples below prove it sees each one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FIGURES = Path(__file__).resolve().parents[2] / "app" / "figures"
FORMATTER = FIGURES / "fmt.py"


def _is_str_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_floaty(node: ast.expr) -> bool:
    """A float literal or a ``float(...)`` call: ``str()`` of it prints repr's digits."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float)
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
    )


def _problem(node: ast.AST) -> str | None:
    """What is wrong with ``node``, or None when it formats no number."""
    if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
        return "an f-string format spec"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str_constant(node.left):
        return "%-formatting"
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "format":  # "…".format or NAME.format
        return "str.format"
    if isinstance(func, ast.Name):
        if func.id == "format":
            return "format()"
        if func.id == "round" and (len(node.args) > 1 or node.keywords):
            return "round(x, n) for display"
        if func.id == "str" and node.args and _is_floaty(node.args[0]):
            return "str() of a float"
    return None


def problems(source: str, name: str = "<source>") -> list[str]:
    """'name:line: what' for every number formatted in ``source``."""
    return [
        f"{name}:{node.lineno}: {what}"  # type: ignore[attr-defined]
        for node in ast.walk(ast.parse(source))
        if (what := _problem(node)) is not None
    ]


def figure_modules() -> list[Path]:
    return [p for p in sorted(FIGURES.rglob("*.py")) if p != FORMATTER]


def test_only_fmt_formats_numbers_in_the_figures() -> None:
    found = [
        line
        for path in figure_modules()
        for line in problems(path.read_text(encoding="utf-8"), str(path.relative_to(FIGURES)))
    ]
    assert found == [], "format numbers with a role of app/figures/fmt.py:\n" + "\n".join(found)


def test_the_scan_covers_the_figure_modules() -> None:
    names = {p.name for p in figure_modules()}
    assert {"context.py", "derive.py", "saturation.py", "weights.py"} <= names
    assert {"parts.py", "charts.py", "worked_query.py", "score_histogram.py"} <= names  # labs
    assert "fmt.py" not in names


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ('t = f"{x:.2f}"', "an f-string format spec"),
        ('t = f"{x:{width}}"', "an f-string format spec"),
        ('t = f"{x:,}"', "an f-string format spec"),
        ('t = "{:.3f}".format(x)', "str.format"),
        ('t = "{}".format(x)', "str.format"),
        ("t = TEMPLATE.format(x=x)", "str.format"),
        ('t = format(x, ".2f")', "format()"),
        ('t = "%.3f" % x', "%-formatting"),
        ('t = "%d items" % (n,)', "%-formatting"),
        ("t = round(x, 2)", "round(x, n) for display"),
        ("t = round(x, ndigits=2)", "round(x, n) for display"),
        ("t = str(float(x))", "str() of a float"),
        ("t = str(0.1)", "str() of a float"),
    ],
)
def test_the_check_catches_each_pattern(source: str, what: str) -> None:
    assert problems(source) == [f"<source>:1: {what}"]


@pytest.mark.parametrize(
    "source",
    [
        't = f"{x}"',  # no spec: a string or a number passed through a role first
        't = f"{name!r}"',  # a conversion, not a number format
        "t = fmt.value(x)",
        "n = round(k * k)",  # rounding to an int for arithmetic, not for display
        "t = str(n)",  # an int or a label
        "r = a % b",  # arithmetic
    ],
)
def test_the_check_lets_other_code_through(source: str) -> None:
    assert problems(source) == []
