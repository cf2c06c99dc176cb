"""The one palette: the page's colours and the figures', light and dark.

``PAGE`` holds what the page, every embed, the labs and the exported HTML are painted
with: ``static/css/palette.css`` writes each field as a CSS custom property (``cell_bg``
-> ``--cell-bg``), light and dark in one ``light-dark()``, and
``tests/unit/test_palette.py`` fails if the two disagree or if another stylesheet
declares a colour of its own. The figures take their text, muted text and plot
background from the same ``PAGE`` (``Theme.fg``, ``muted``, ``bg``), so a chart's
background is the panel it sits on. One dark background, one light background:
``PAGE[theme].surface``, behind every panel, embed, figure and export.

Colour roles of the figures (FIGURES.md Conventions), from the Okabe–Ito colour-blind-safe
set: X neutral grey; Q blue; K vermillion; V bluish green; Z reddish purple; raw and scaled
scores a diverging sky-blue / neutral / grey scale centred on 0; weights a single-hue
orange sequential scale on a fixed 0 … 1 range so colours compare across edits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OKABE_ITO = {
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}


@dataclass(frozen=True)
class Page:
    """The page's colours in one theme (each a CSS custom property of palette.css)."""

    bg: str  # the page behind its panels
    surface: str  # panels, embeds, figures' plot area, exported files: THE background
    text: str
    muted: str  # secondary text, still ≥ 4.5 : 1 on bg and surface
    border: str
    accent: str  # links and primary buttons
    accent_text: str  # text on an accent background
    focus: str  # the keyboard focus ring
    error: str
    error_bg: str
    cell_bg: str  # editable cells and fields
    code_bg: str


PAGE = {
    "light": Page(
        bg="#f7f7f5", surface="#ffffff", text="#1a1a1a", muted="#5c5c5c", border="#d4d5dd",
        accent="#0a5bb5", accent_text="#ffffff", focus="#c2410c", error="#b3261e",
        error_bg="#fdecea", cell_bg="#ffffff", code_bg="#eef0f4",
    ),
    "dark": Page(
        bg="#131418", surface="#1b1b1b", text="#ececec", muted="#b0b0b0", border="#3b3e4a",
        accent="#7ab4ff", accent_text="#0b1320", focus="#ffb870", error="#ffb4ab",
        error_bg="#3a1c1a", cell_bg="#14161b", code_bg="#262933",
    ),
}  # fmt: skip


@dataclass(frozen=True)
class Theme:
    """Colours of one theme for the figures. ``bg`` is the plot area (the page's surface),
    ``paper`` the figure's margin (transparent: the panel shows through)."""

    name: str
    fg: str
    muted: str
    grid: str
    bg: str
    paper: str
    box: str
    outline: str
    scales: dict[str, list[list[Any]]]
    roles: dict[str, str]


def _ramp(lo: str, hi: str) -> list[list[Any]]:
    return [[0.0, lo], [1.0, hi]]


ROLES = {
    "x": "#7F7F7F",
    "q": OKABE_ITO["blue"],
    "k": OKABE_ITO["vermillion"],
    "v": OKABE_ITO["green"],
    "z": OKABE_ITO["purple"],
    "weights": OKABE_ITO["orange"],
    "scores": OKABE_ITO["sky"],
}

LIGHT = Theme(
    name="light",
    fg=PAGE["light"].text,
    muted=PAGE["light"].muted,
    grid="#d9d9d9",
    bg=PAGE["light"].surface,
    paper="rgba(0,0,0,0)",
    box="#f4f4f4",
    outline="#000000",
    scales={
        "x": _ramp("#f7f7f7", "#525252"),
        "q": _ramp("#eef5fb", "#0072B2"),
        "k": _ramp("#fcf0e8", "#D55E00"),
        "v": _ramp("#e8f6f1", "#007a58"),
        "z": _ramp("#faf0f5", "#a8447f"),
        "weights": [[0.0, "#fff8ec"], [0.5, "#f2b84b"], [1.0, "#8a4b00"]],
        "scores": [[0.0, "#1f6f99"], [0.5, "#f5f5f5"], [1.0, "#4d4d4d"]],
    },
    roles=ROLES,
)

DARK = Theme(
    name="dark",
    fg=PAGE["dark"].text,
    muted=PAGE["dark"].muted,
    grid="#444444",
    bg=PAGE["dark"].surface,
    paper="rgba(0,0,0,0)",
    box="#2b2b2b",
    outline="#ffffff",
    scales={
        "x": _ramp("#262626", "#cfcfcf"),
        "q": _ramp("#13222e", "#5fb0e8"),
        "k": _ramp("#2e1a10", "#ff8a4c"),
        "v": _ramp("#0f2620", "#3ccf9f"),
        "z": _ramp("#2a1722", "#e8a3c8"),
        "weights": [[0.0, "#241c10"], [0.5, "#a86f00"], [1.0, "#ffcf66"]],
        "scores": [[0.0, "#56B4E9"], [0.5, "#262626"], [1.0, "#d9d9d9"]],
    },
    roles=ROLES,
)

THEMES = {"light": LIGHT, "dark": DARK}
