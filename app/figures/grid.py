"""Number grids as data: what ``static/js/grid.js`` draws and ``app.figures.to_plotly`` converts.

A grid description is a plain dict (JSON, no NaN), self-contained, made by ``grid()``:

    grid      the stage's API name ("x", "w_q", "q", "scores", "weights", "output", …);
              the page sets it as ``data-grid`` on the drawn element
    label     display name ("Q", "W^Q", "A"); ``shape`` [rows, cols]
    rows/cols header labels (token names for token rows, 1-based numbers otherwise)
    row_title/col_title  what the headers are ("query tokens", "d_k column")
    values    full precision, ``null`` for a blocked cell
    text      the printed numbers (``fmt``), or null for large grids (drawn without text)
    color     per cell an index into ``palette`` (-1: blocked, drawn as a hatched gap)
    masked    per cell true when the mask blocks it ([[bool]], the shape of ``values``):
              the renderer hatches these cells and names them in its legend. A blocked
              score is −∞ (``null``) and a blocked weight is exactly 0, so the value alone
              cannot say which zeros are the mask's; all false when nothing is blocked
    palette   [[background, ink], …]: only the colours this grid uses, ink chosen per
              colour for the higher contrast (black or white: always ≥ 4.58 : 1)
    hover     per cell the arithmetic behind it, or null
    uses      what a hovered cell (i, j) was made from, to outline:
              [{"grid": "x", "row": "i", "col": null}, {"grid": "w_q", "row": null, "col": "j"}]
              ("i"/"j" = the hovered row/column index, null = every row/column)
    outline   {"rows": [...], "cols": [...], "cells": [[i, j], …]} drawn outlined (focus)
    tiles     optional, added by a lab figure: {"rows": [...], "cols": [...]}, the 0-based
              rows and columns where a tile starts (the flash lab's B_r × B_c tiles); the
              renderer draws a line above and left of them (grid_core.js ``tileEdges``)
    domain    [lo, hi] of the colour scale; ``scale`` the role's scale id
    scale_colors  [low, middle, high]: the backgrounds at the scale's ends and middle (the
              legend under each grid draws them beside the domain's numbers)
    masked    per cell true where the mask removed the cell (a blocked score, or its weight
              0 after the softmax), or null when nothing is masked: drawn hatched and named
              in the legend. Blocked (non-finite) cells are always masked.

Colour: one scale per role, the same in every figure. Signed roles are diverging and
centred on 0 over a symmetric domain rounded up to a 1-2-5 step (so colours stay put across
edits unless the values outgrow the step); attention weights are sequential on a fixed 0 … 1.
Hues come from the Okabe–Ito colour-blind-safe set; numbers are printed wherever the grid is
small enough, so colour never carries a value alone.

PURE: numpy and the standard library only.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from app.figures.palette import SCALES

Json = dict[str, Any]

# Grids with more cells (or columns) than this are drawn without text, one block per cell.
MAX_TEXT_CELLS = 400
MAX_TEXT_COLS = 16
# Colours per scale (odd: the middle one is exactly 0 on a diverging scale).
STEPS = 33
LADDER = (1.0, 2.0, 5.0)

SEQUENTIAL = frozenset({"weights"})
# Stage API names -> colour role.
ROLE_OF = {
    "x": "x", "source_x": "x", "w_q": "q", "w_k": "k", "w_v": "v", "q": "q", "k": "k",
    "v": "v", "scores": "scores", "scaled": "scores", "masked": "scores", "weights": "weights",
    "output": "z", "concat": "z", "w_o": "x", "final": "z",
}  # fmt: skip


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    return (int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255)


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + bytes(round(max(0.0, min(1.0, c)) * 255) for c in rgb).hex()


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance of an sRGB colour."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in _rgb(hex_colour)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours (1 … 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (never below 4.58 : 1)."""
    return (
        "#000000"
        if contrast(background, "#000000") >= contrast(background, "#ffffff")
        else ("#ffffff")
    )


@cache
def palette(theme: str, role: str) -> tuple[tuple[str, str], ...]:
    """STEPS colours of a role's scale, low to high, each with its ink."""
    lo, mid, hi = (_rgb(c) for c in SCALES.get(theme, SCALES["light"])[role])
    out = []
    for s in range(STEPS):
        t = 2 * s / (STEPS - 1) - 1  # -1 … 1
        a, b = (mid, hi) if t >= 0 else (mid, lo)
        f = abs(t)
        colour = _hex(
            (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f)
        )
        out.append((colour, ink(colour)))
    return tuple(out)


def nice_bound(value: float) -> float:
    """The smallest 1-2-5 step ≥ ``value`` (1 when the values are all 0)."""
    if not value > 0 or not math.isfinite(value):
        return 1.0
    exp = math.floor(math.log10(value))
    for e in (exp - 1, exp, exp + 1):
        for m in LADDER:
            if m * 10.0**e >= value * (1 - 1e-12):
                return m * 10.0**e
    return 10.0 ** (exp + 1)


def domain(values: np.ndarray[Any, Any], role: str) -> tuple[float, float]:
    """The colour domain of a grid: fixed 0 … 1 for weights, else ±(a 1-2-5 step)."""
    if role in SEQUENTIAL:
        return 0.0, 1.0
    a = np.abs(values[np.isfinite(values)])
    bound = nice_bound(float(a.max()) if a.size else 0.0)
    return -bound, bound


def colour_index(values: np.ndarray[Any, Any], lo: float, hi: float) -> np.ndarray[Any, Any]:
    """Per cell the step of the scale (0 … STEPS-1), -1 where the value is not finite."""
    finite = np.isfinite(values)
    pos = (np.where(finite, values, lo) - lo) / (hi - lo)
    idx = np.rint(np.clip(pos, 0.0, 1.0) * (STEPS - 1)).astype(np.int64)
    return np.where(finite, idx, -1)


def _wire_values(values: np.ndarray[Any, Any]) -> list[list[float | None]]:
    rows: list[list[float]] = values.tolist()
    if np.isfinite(values).all():
        return rows  # type: ignore[return-value]
    return [[v if math.isfinite(v) else None for v in row] for row in rows]


def grid(
    name: str,
    label: str,
    values: Any,
    *,
    rows: list[str],
    cols: list[str],
    theme: str = "light",
    role: str | None = None,
    text: list[list[str]] | None = None,
    hover: list[list[str]] | None = None,
    row_title: str = "",
    col_title: str = "",
    uses: list[Json] | None = None,
    outline: Json | None = None,
    masked: Any = None,
) -> Json:
    """One grid description (see the module docstring). ``text`` and ``hover`` are
    dropped for grids over MAX_TEXT_CELLS cells: those are drawn as colour blocks.
    ``masked`` (booleans of the values' shape) marks cells the mask removed."""
    m = np.asarray(values, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"grid {name!r}: values must be 2-D, got shape {m.shape}")
    r, c = m.shape
    if len(rows) != r or len(cols) != c:
        raise ValueError(f"grid {name!r}: {r} × {c} values with {len(rows)} × {len(cols)} labels")
    # "weights-h2" (a lab's per-head grid) takes the role of "weights": one hue per role
    role = role or ROLE_OF.get(name) or ROLE_OF.get(name.split("-")[0], "x")
    lo, hi = domain(m, role)
    idx = colour_index(m, lo, hi)
    used = sorted(int(i) for i in np.unique(idx) if i >= 0)
    remap = np.full(STEPS + 1, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    colours = palette(theme, role)
    big = r * c > MAX_TEXT_CELLS or c > MAX_TEXT_COLS
    given = np.zeros(m.shape, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    if given.shape != m.shape:
        raise ValueError(f"grid {name!r}: masked has shape {given.shape}, values {m.shape}")
    cut = given | ~np.isfinite(m)
    return {
        "grid": name,
        "label": label,
        "shape": [r, c],
        "rows": rows,
        "cols": cols,
        "row_title": row_title,
        "col_title": col_title,
        # large grids keep numpy arrays: orjson writes them ten times faster than lists
        # (and turns a blocked cell's −inf into null just the same)
        "values": np.ascontiguousarray(m) if big else _wire_values(m),
        "text": None if big else text,
        "color": np.ascontiguousarray(remap[idx]) if big else remap[idx].tolist(),
        "palette": [list(colours[i]) for i in used],
        "hover": None if big else hover,
        "uses": uses or [],
        "outline": outline or {},
        "scale": role,
        "domain": [lo, hi],
        "scale_colors": [colours[0][0], colours[STEPS // 2][0], colours[-1][0]],
        "masked": (np.ascontiguousarray(cut) if big else cut.tolist()) if cut.any() else None,
    }


def product_uses(left: str, right: str, right_axis: str = "col") -> list[Json]:
    """A matrix product's cell (i, j) uses row i of ``left`` and column j of ``right``
    (``right_axis="row"``: row j, as in Q Kᵀ where K's rows are Kᵀ's columns)."""
    right_use = {"grid": right, "row": "j", "col": None} if right_axis == "row" else {
        "grid": right, "row": None, "col": "j"}  # fmt: skip
    return [{"grid": left, "row": "i", "col": None}, right_use]


def same_cell(source: str) -> list[Json]:
    """Cell (i, j) is made from cell (i, j) of ``source`` (scaling, masking)."""
    return [{"grid": source, "row": "i", "col": "j"}]


def same_row(source: str) -> list[Json]:
    """Cell (i, j) depends on the whole row i of ``source`` (softmax)."""
    return [{"grid": source, "row": "i", "col": None}]
