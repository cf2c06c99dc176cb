"""What a figure snapshot stores: the answer as a reviewer reads it, not as Plotly wants it.

``readable(answer)`` walks an answer of the figures API or a lab's figures.json and returns
the same structure with two changes:

- every grid description (a dict with ``grid``, ``shape`` and ``values``) becomes a grid you
  can read: ``values`` and ``text`` as aligned rows (a header of column labels, then one
  line per row, its label first; values to 6 significant digits, a blocked cell "-inf";
  ``text`` is "as values" when it prints exactly those),
  ``color`` one line of palette indices per row, the cells' hover lines ``"row,col: text"``
  (up to 16; a larger grid's as a summary and sha256), and its other fields as they are;
- the bulky machine parts (``export``: the Plotly version of a grids-only figure; ``config``:
  Plotly's toolbar settings; ``narrow``: a diagram's phone layout) become a short summary
  (their traces' types and names) and the sha256 of their JSON; and a list of more than 32
  plain values (a curve's samples, their hover texts, a large grid's hover lines) its count,
  range, first values and sha256: any change in them still fails, in one line.

A diagram's ``shapes`` and ``annotations`` (its boxes, arrows and labels) are kept one
line per item (the item's JSON, keys sorted), so a drawing of forty boxes reads as forty
lines. Everything else (titles, captions, readouts, tables, charts' data and layout, steps,
narration) is kept as it is. Numbers are rounded by the snapshot fixture (tests/conftest.py).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

DIGITS = 6
# Keys whose value is summarised and hashed, not stored: the Plotly version of a grids-only
# figure, Plotly's toolbar settings, and the phone layout of a diagram (the wide one is kept).
DIGESTED = ("export", "config", "narrow")
ONE_LINE = ("shapes", "annotations")  # lists of drawing items: one line each
SAME = "as values"
LONG = 32  # a longer list of plain values (a chart's samples) is summarised
HOVER = 16  # a grid with more hover lines than this (over 4 × 4) keeps their summary


def number(value: Any) -> str:
    """A grid value as a cell of the snapshot: 6 significant digits; null (blocked) as -inf."""
    if value is None:
        return "-inf"
    if isinstance(value, float):
        return f"{value:.{DIGITS}g}"
    return str(value)


def aligned(rows: list[str], cols: list[str], cells: list[list[str]]) -> list[str]:
    """A table as lines: a header of column labels, then each row's label and cells."""
    table = [["", *cols], *([label, *row] for label, row in zip(rows, cells, strict=True))]
    widths = [max(len(line[j]) for line in table) for j in range(len(table[0]))]
    return [
        "  ".join(cell.ljust(w) if j == 0 else cell.rjust(w) for j, (cell, w) in
                  enumerate(zip(line, widths, strict=True))).rstrip()
        for line in table
    ]  # fmt: skip


def is_grid(value: Any) -> bool:
    return isinstance(value, dict) and {"grid", "shape", "values"} <= value.keys()


def grid_view(desc: dict[str, Any]) -> dict[str, Any]:
    """A grid description as aligned rows of values, printed text and colour indices."""
    rows = [str(r) for r in desc.get("rows") or range(desc["shape"][0])]
    cols = [str(c) for c in desc.get("cols") or range(desc["shape"][1])]
    view: dict[str, Any] = {}
    for key, value in desc.items():
        if key in ("rows", "cols"):
            continue
        if key in ("values", "text") and value is not None:
            value = aligned(rows, cols, [[number(v) for v in row] for row in value])
        elif key == "color" and value is not None:  # palette indices, -1 blocked
            value = [" ".join(str(k) for k in row) for row in value]
        elif key == "masked" and value is not None:  # x: the mask blocks the cell
            value = [" ".join("x" if m else "." for m in row) for row in value]
            value = "none" if all(set(row) <= {".", " "} for row in value) else value
        elif key == "hover" and value is not None:
            lines = [
                f"{i},{j}: {text}"
                for i, row in enumerate(value)
                for j, text in enumerate(row)
                if text is not None
            ]
            value = list_summary(lines) if len(lines) > HOVER else lines
        view[key] = value
    if view.get("text") is not None and view["text"] == view.get("values"):
        view["text"] = SAME  # printed exactly as the values read: no second copy
    return view


def sha256(value: Any) -> str:
    """The first 16 hex digits of the sha256 of ``value``'s JSON (numbers to 6 digits)."""
    text = json.dumps(rounded(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def is_long_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) > LONG
        and all(not isinstance(v, dict | list) for v in value)
    )


def list_summary(values: list[Any]) -> dict[str, Any]:
    """Many plain values as their count, range (numbers), first four and sha256."""
    summary: dict[str, Any] = {"n": len(values)}
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(values):
        summary |= {"min": min(numbers), "max": max(numbers)}
    return summary | {"first": values[:4], "sha256": sha256(values)}


def digest(value: Any) -> dict[str, Any]:
    """A short summary of a machine part of a figure, and the sha256 of its JSON."""
    summary: dict[str, Any] = {"sha256": sha256(value)}
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        summary["traces"] = [f"{t.get('type', '?')} {t.get('name', '')}".strip()
                             for t in value["data"]]  # fmt: skip
        summary["frames"] = len(value.get("frames") or [])
    return summary


def one_line(items: list[Any]) -> list[str]:
    """Each drawing item as one line of JSON (numbers to DIGITS significant digits)."""
    return [
        json.dumps(rounded(item), sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
        for item in items
    ]


def block_grid_view(desc: dict[str, Any]) -> dict[str, Any]:
    """A grid drawn as colour blocks (no text: too many cells to print, e.g. E2's 50 × 64
    encoding): its values, colours and masked flags as a summary and sha256."""
    return {
        key: {"sha256": sha256(value)} if key in ("values", "color", "masked")
        else readable(value)
        for key, value in desc.items()
    }  # fmt: skip


def readable(value: Any) -> Any:
    """``value`` with grids as grids and the machine parts digested (see the module doc)."""
    if is_grid(value) and value.get("text") is None:
        return block_grid_view(value)
    if is_grid(value):
        return grid_view({k: readable(v) for k, v in value.items()})
    if is_long_list(value):
        return list_summary(value)
    if isinstance(value, dict):
        return {
            key: digest(item)
            if key in DIGESTED and item is not None
            else one_line(item)
            if key in ONE_LINE and isinstance(item, list)
            else readable(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [readable(item) for item in value]
    return value
