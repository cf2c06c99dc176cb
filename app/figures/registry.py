"""The one figure registry: Figures 1–13, each with its number, title, builder and facts.

Everything that lists figures reads this table: the figure builds (``build_figures``), the
page (its placeholder titles, and through ``#initial-state`` the lists the JS asks for
when a view key changes), embeds and oEmbed (which figures exist, which show the input
matrices), and the export CLI. Builders print the titles they are given
(``Ctx.titles``, from ``headings``: ``per_head`` figures append " (head h of H)" when
there are several), so the page's placeholder never changes when the figures arrive.

PURE like the rest of ``app.figures`` (the lab figures live in ``app.figures.labs``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from app.figures import (
    blend,
    flows,
    grids,
    mixing,
    pathlength,
    projections,
    saturation,
    shapes,
    stepper,
    weights,
    wiring,
)
from app.figures.context import Ctx, head_note
from app.figures.view_fields import BY_NAME, VIEW_FIELDS

Builder = Callable[[Ctx], dict[str, Any]]
Kind = Literal["static", "grid", "chart"]
ViewKey = Literal["focus", "stretch", "row"]
# The view fields only some figures read (the declaration's readers "own"): each entry's
# ``reads`` names those it redraws for (the head and the theme redraw every figure).
VIEW_KEYS = cast("tuple[ViewKey, ...]", tuple(f.name for f in VIEW_FIELDS if f.readers == "own"))


@dataclass(frozen=True)
class FigureEntry:
    """One figure. Every live figure reads the head and the theme; ``reads`` names the
    other view keys whose change redraws it."""

    number: int
    title: str
    kind: Kind  # static: drawn by its template (no builder); grid: our renderer; chart: Plotly
    builder: Builder | None = None
    reads: frozenset[ViewKey] = frozenset()
    inputs: bool = False  # its numbers come from the input matrices (not the shapes alone)
    # Figure 12's row choice: with row="focus" it shows the focus token's scaled scores,
    # so it then follows the focus row and the input matrices as well.
    row_focus: bool = False
    narrow: bool = False  # has a portrait variant (``narrow``) that a phone shows
    per_head: bool = False  # shows one head: with several, its title says which

    @property
    def labs(self) -> tuple[tuple[str, str], ...]:
        """The lab sections that explore this figure, as (lab id, lab figure name)."""
        return LAB_LINKS.get(self.number, ())

    def follows_focus(self, row: str) -> bool:
        """Whether a new focus row changes this figure, given the view's ``row``."""
        return "focus" in self.reads or (self.row_focus and row == "focus")

    def shows_inputs(self, row: str) -> bool:
        """Whether its numbers depend on the input matrices, given the view's ``row``."""
        return self.inputs or (self.row_focus and row == "focus")


def _focus_grid(number: int, title: str, builder: Builder) -> FigureEntry:
    """A grid figure that explains or highlights the focus row of the input matrices."""
    return FigureEntry(
        number, title, "grid", builder, frozenset({"focus"}), inputs=True, per_head=True
    )


_STRETCH_ROW: frozenset[ViewKey] = frozenset({"stretch", "row"})

FIGURES: tuple[FigureEntry, ...] = (
    FigureEntry(1, "One step after another, or every pair at once", "static"),
    FigureEntry(2, "Three generations of sequence models", "static"),
    _focus_grid(3, "The whole computation, step by step", stepper.build),
    _focus_grid(4, "Three projections of one X", projections.build),
    FigureEntry(
        5, "The dataflow of Equation 1", "chart", flows.build_5, narrow=True, per_head=True
    ),
    _focus_grid(6, "The attention weight matrix", weights.build),
    _focus_grid(7, "One grid, three stages", grids.build),
    _focus_grid(8, "A × V = Z", mixing.build_8),
    _focus_grid(9, "One output row as a blend", blend.build_9),
    FigureEntry(
        10,
        "One step between any two positions",
        "chart",
        pathlength.build,
        inputs=True,
        narrow=True,
    ),
    FigureEntry(11, "Self- versus cross-attention", "grid", wiring.build, inputs=True),
    FigureEntry(
        12,
        "Softmax saturation",
        "chart",
        saturation.build,
        _STRETCH_ROW,
        row_focus=True,
        narrow=True,
    ),
    FigureEntry(13, "Shape rules", "chart", shapes.build, narrow=True),
)

# Where a lab lets the learner do what a figure shows: figure number -> (lab id, lab figure
# name), best first; the page writes "Try it in lab …" under the figure (app.web.crosslinks).
LAB_LINKS: dict[int, tuple[tuple[str, str], ...]] = {
    1: (("cost", "growth"),),
    3: (("step-by-step", "stepper"),),
    4: (("one-query", "two-maps"),),
    5: (("step-by-step", "per-position"), ("masks", "mask-kinds")),
    6: (("masks", "mask-kinds"), ("heads", "four-heads")),
    7: (("one-query", "two-maps"), ("why-scale", "scaling-table")),
    8: (("one-query", "worked-query"),),
    9: (("one-query", "softmax-table"),),
    10: (("cost", "growth"), ("heads", "split-concat")),
    12: (("why-scale", "flat-line"), ("why-scale", "saturation")),
    13: (("heads", "split-concat"), ("cost", "params")),
}

BY_NUMBER: dict[int, FigureEntry] = {f.number: f for f in FIGURES}
# Every figure of the page (1 … 13, static ones included): what a lesson step may show.
ALL_FIGURES: tuple[int, ...] = tuple(f.number for f in FIGURES)
# The figures the server builds (3 … 13), in order: the default of every request.
BUILT_FIGURES: tuple[int, ...] = tuple(f.number for f in FIGURES if f.builder is not None)
BUILDERS: dict[int, Builder] = {f.number: f.builder for f in FIGURES if f.builder is not None}


def title(number: int) -> str:
    """The figure's title (single head); KeyError for a number that is not a figure."""
    return BY_NUMBER[number].title


def headings(head: int = 0, heads: int = 1) -> dict[int, str]:
    """Every figure's title as its builder prints it for ``head`` of ``heads``: the page's
    placeholders, so a multi-head link shows no title that then changes either."""
    return {f.number: f.title + (head_note(head, heads) if f.per_head else "") for f in FIGURES}


def known_figures() -> str:
    """'3, 4, …, 13': the built figures, for error messages that list the choices."""
    return ", ".join(str(n) for n in BUILT_FIGURES)


def page_lists() -> dict[str, Any]:
    """What the page's JS needs to know about the figures, as numbers (``#initial-state``):
    ``live`` (built by the server, in order), ``reads`` (view key -> figures it redraws),
    ``row_focus`` (those that follow the focus row too when ``row`` is "focus") and
    ``narrow`` (those redrawn when the screen crosses the phone breakpoint)."""
    live = [f for f in FIGURES if f.builder is not None]
    return {
        "live": [f.number for f in live],
        "reads": {key: [f.number for f in live if key in f.reads] for key in VIEW_KEYS},
        "row_focus": [f.number for f in live if f.row_focus],
        "narrow": [f.number for f in live if f.narrow],
    }


def focus_figures_text() -> str:
    """'Figures 3, 4, 6, 7, 8 and 9 (and Figure 12, when its row is the focus)': what a
    focus row changes, in words, for the page's hint and the API's documentation."""
    return readers_text("focus")


def readers_text(name: str) -> str:
    """'Figure 12', 'Figures 3, 4, 6, 7, 8 and 9 (and Figure 12, when its row is the
    focus)', 'Figures 3, 4, …': the built figures that read the view field ``name``, in
    words, for its documentation (``app.figures.view_fields.describe``)."""
    live = [f for f in FIGURES if f.builder is not None]
    every = BY_NAME[name].readers == "every"
    numbers = [str(f.number) for f in live if every or name in f.reads]
    words = _figures_text(numbers)
    extra = [f.number for f in live if f.row_focus] if name == "focus" else []
    return words + (f" (and {_figures_text([str(n) for n in extra])}, when its row is the "
                    "focus)" if extra else "")  # fmt: skip


def _figures_text(numbers: list[str]) -> str:
    if len(numbers) == 1:
        return f"Figure {numbers[0]}"
    return f"Figures {', '.join(numbers[:-1])} and {numbers[-1]}"
