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
set: X neutral grey; Q blue; K vermillion; V bluish green; Z reddish purple (``ROLES``: lines,
bars, arrows). The grids' scales (``SCALES``, the one copy: ``app.figures.grid`` builds each
grid's palette from it, the SVG export and the Plotly converter read it too) diverge from a
neutral middle at 0: the role's hue above it and grey below (X: grey above, purple below);
scores blue / neutral / red; weights a single-hue orange sequential scale on a fixed 0 … 1
range so colours compare across edits.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    roles: dict[str, str]


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
    roles=ROLES,
)

THEMES = {"light": LIGHT, "dark": DARK}

# The figures' colour scales, one per role and theme (the grids' palettes, their legends,
# the SVG export and the Plotly converter all read this): (negative pole, middle,
# positive pole); weights, sequential on 0 … 1: (0, middle, 1).
SCALES: dict[str, dict[str, tuple[str, str, str]]] = {
    "light": {
        "x": ("#7b3294", "#f7f7f7", "#3d3d3d"),
        "q": ("#5a5a5a", "#f7f7f7", "#0072b2"),
        "k": ("#5a5a5a", "#f7f7f7", "#d55e00"),
        "v": ("#5a5a5a", "#f7f7f7", "#008060"),
        "z": ("#5a5a5a", "#f7f7f7", "#a8447f"),
        "scores": ("#2166ac", "#f7f7f7", "#b2182b"),
        "weights": ("#fff8ec", "#f2b84b", "#7a4200"),
    },
    "dark": {
        "x": ("#c39bd3", "#262626", "#e0e0e0"),
        "q": ("#a6a6a6", "#262626", "#5fb0e8"),
        "k": ("#a6a6a6", "#262626", "#ff8a4c"),
        "v": ("#a6a6a6", "#262626", "#3ccf9f"),
        "z": ("#a6a6a6", "#262626", "#e8a3c8"),
        "scores": ("#6aaee8", "#262626", "#f08080"),
        "weights": ("#241c10", "#a86f00", "#ffd27a"),
    },
}
