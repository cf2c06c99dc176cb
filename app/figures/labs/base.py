"""What a lab is: its figures, each figure's controls, and how values are written in a URL
(``state_query``; ``app.inputs.lab_controls`` reads a query back into values).

PURE (standard library and ``app.figures`` only). A ``Lab`` is data: id, title, one-line
summary, status (``ready`` or ``coming``) and its ``LabFigure``s. A figure's ``build``
receives the parsed control values and a ``FigureContext`` (theme, the run size, and the
computations the route hands in) and returns a figure description (``lab_figure``): text,
a Plotly chart, a grid for the grid renderer, tables. The browser only draws it.

URL keys (LABS.md §2): a control's key is its name; when two figures of one lab have a
control of the same name, the page's key is ``figure.name`` (``saturation.dk``), so one
link holds every figure's state. An embed of one figure accepts the page key or the bare
name. Only values that differ from the default are written to a link.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.figures.labs.controls import Control
from app.figures.labs.words import prose_parts
from app.figures.style import CONFIG, Theme

Json = dict[str, Any]
Status = Literal["ready", "coming"]
# Body-level keys every figure that ``uses_body`` shares (a main-page state).
BODY_KEYS = ("preset", "s")


@dataclass(frozen=True)
class FigureContext:
    """What a builder may use besides its values. ``run`` names the computations the
    route provides (``attention``: body -> Stages, ``experiment``: (name, body) -> dict)."""

    theme: Theme
    preview: bool = False  # a small run while a slider drags
    run: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    body: Mapping[str, Any] | None = None  # the resolved main-page state, if used
    # The control values of the figures this one ``reads`` (figure -> control -> value).
    others: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class LabFigure:
    """One figure of a lab: ``name`` is its ``data-figure`` and embed path segment."""

    name: str
    entry: str  # "A1"
    title: str
    teaching: str  # the teaching point, in our words
    build: Callable[[Mapping[str, Any], FigureContext], Json]
    controls: tuple[Control, ...] = ()
    intro: str = ""  # what the learner does here
    badges: tuple[str, ...] = ()  # "reconstructed", "our example"
    experiment: str | None = None  # the seeded experiment it runs (Copy as NumPy)
    # The experiment runs the figure needs: (values, preview) -> [(name, API body)]
    runs: Callable[[Mapping[str, Any], bool], list[tuple[str, Json]]] | None = None
    uses_body: bool = False  # reads the page's `preset`/`s` attention state
    # Figures of the same lab whose control values this one also uses (ctx.others); the
    # page redraws this figure when theirs change (a shared matrix, D1's mask in D2).
    reads: tuple[str, ...] = ()
    # Makes parsed values agree with each other (a matrix resized to a length control).
    settle: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # "Copy as NumPy" of a figure without an experiment: the name of its script, written by
    # app.export.numpy_scripts.labs (SCRIPTS[numpy](values, ctx)).
    numpy: str | None = None
    # It carries its own stop-and-try question (the description's ``reveal``: choices, the
    # right one and why, computed from its controls), which a lesson step may ask
    # (``section_question``, app.lessons.section).
    asks: bool = False

    def intro_parts(self) -> list[tuple[str, str]]:
        """The intro as (words, href) pieces: sources named and linked (words.py)."""
        return prose_parts(self.intro)

    def teaching_parts(self) -> list[tuple[str, str]]:
        return prose_parts(self.teaching)


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    summary: str  # one line, for the index
    entries: str  # "A1–A5"
    status: Status
    figures: tuple[LabFigure, ...] = ()
    intro: str = ""
    # The main page's figure this lab explores: (number, title), linked as /#fig-<number>.
    main_figure: tuple[int, str] | None = None

    def intro_parts(self) -> list[tuple[str, str]]:
        return prose_parts(self.intro)

    def figure(self, name: str) -> LabFigure | None:
        return next((f for f in self.figures if f.name == name), None)

    def keys(self) -> dict[tuple[str, str], str]:
        """(figure, control) -> its URL key on the lab page."""
        count: dict[str, int] = {}
        for f in self.figures:
            for c in f.controls:
                count[c.name] = count.get(c.name, 0) + 1
        return {
            (f.name, c.name): c.name if count[c.name] == 1 else f"{f.name}.{c.name}"
            for f in self.figures
            for c in f.controls
        }


def state_query(
    lab: Lab, values: Mapping[str, Mapping[str, Any]], extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The page query (key -> text) holding ``values`` (figure -> control -> value);
    defaults are left out. ``extra`` (preset, s, theme) is kept as given."""
    keys = lab.keys()
    out: dict[str, str] = {}
    for f in lab.figures:
        for c in f.controls:
            value = values.get(f.name, {}).get(c.name, c.default)
            if c.encode(value) != c.encode(c.default):
                out[keys[(f.name, c.name)]] = c.encode(value)
    out.update(extra or {})
    return out


def lab_figure(
    fig: LabFigure,
    *,
    caption: str,
    alt: str,
    readout: list[str] | None = None,
    plot: Json | None = None,
    grids: list[Json] | None = None,
    tables: list[Json] | None = None,
    table_view: bool = False,
    **extra: Any,
) -> Json:
    """The description of one lab figure, every key present.

    ``plot`` is {data, layout} for Plotly; ``grids`` number grids for the grid renderer,
    each ``grid_item(desc, heading, badge)`` (a description of app/figures/grid.py);
    ``tables`` the data-table alternative ({caption, col_headers, row_headers, cells}),
    shown open when ``table_view`` (the table IS the figure, e.g. A1's softmax table).
    """
    if plot is not None:
        plot = {**plot, "config": {**CONFIG, **plot.get("config", {})}}
    entry: Json = {
        "name": fig.name,
        "entry": fig.entry,
        "title": fig.title,
        "caption": caption,
        "alt": alt,
        "readout": readout or [],
        "plot": plot,
        "grids": grids or [],
        "tables": tables or [],
        "table_view": table_view,
        "badges": list(fig.badges),
        "experiment": fig.experiment,
        "quotes": [],
        "warnings": [],
    }
    entry.update(extra)
    return entry


def table(caption: str, cols: list[str], rows: list[str], cells: list[list[str]]) -> Json:
    return {"caption": caption, "col_headers": cols, "row_headers": rows, "cells": cells}


def grid_item(desc: Json, heading: str = "", badge: str = "") -> Json:
    """One number grid of a lab figure: the grid renderer's description, a heading above
    it and an optional badge (e.g. "symmetric")."""
    return {"desc": desc, "heading": heading, "badge": badge}
