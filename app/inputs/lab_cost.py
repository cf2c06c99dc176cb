"""The price of every lab figure, from its control values: one table keyed by (lab, figure).

A lab figure is built from its controls (and, for some, from the main page's attention
state or from seeded experiment runs). Before anything is built the route asks
``figure_price(lab_id, figure, values)`` for a ``Price``: the ``Cost`` the cost model
checks against the budget (``check_cost``, a 422 naming ``field``) and admits by (heavy
work leaves the event loop under a slot). The parts priced elsewhere are added by the
route: experiment runs (``app.labs.experiments``: cells drawn) and the main-page state of
a figure that reads one (``body_figures``: how many of the main page's figures it is
worth, for ``app.inputs.limits.figures_cost``; it also obeys ``MAX_FIGURE_TOKENS``).

Calibrated by building the largest admissible state of each figure
(``benchmarks/lab_costs.py``): grid figures cost about 13 µs and 23 answer bytes per
drawn cell (order's positional encoding at T = 128, d = 512: 65,536 cells, 0.87 s,
1.5 MB); every other figure without an experiment measured at most 40 ms and 110 KB (the
stepper at L = 8, the discriminator's first build) and is priced as a small fixed cost,
the stepper by its size. Keyed by strings, so this module needs nothing from
``app.figures``; a test checks that every figure of ``LABS`` has a row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.inputs.limits import FIGURE_CELLS_PER_CELL, Cost

Values = Mapping[str, Any]

# A figure built from a handful of numbers: measured ≤ 40 ms and ≤ 110 KB at its largest.
SMALL = Cost(2_000, 120_000)
# Bytes answered per cell of a drawn grid (value, colour, hover text): 1.5 MB / 65,536.
GRID_BYTES_PER_CELL = 24


@dataclass(frozen=True)
class Price:
    """What a figure costs, and the control to name (and what to reduce) when too much."""

    cost: Cost
    field: str = "figures"
    reduce: str = "the figures asked for"


def _small(_: Values) -> Price:
    return Price(SMALL)


def _grid(rows: int, cols: int) -> Cost:
    """A drawn grid of rows × cols: its cells as the main figures' are, and its bytes."""
    cells = rows * cols
    return Cost(cells * FIGURE_CELLS_PER_CELL, cells * GRID_BYTES_PER_CELL + SMALL.response_bytes)


def _positional(values: Values) -> Price:
    """E2: the T × d heatmap of PE, plus one curve per chosen dimension."""
    t, d = int(values.get("T", 50)), int(values.get("d", 64))  # the controls' defaults
    curves = len(values.get("dims", ())) * t
    return Price(_grid(t, d) + Cost(curves, curves * 20), "d", "T or d")


# Work measured in time, as cells at the rate lab figures are built (2 M cells/s): a
# figure past INLINE_CELLS (25 ms) leaves the event loop.
CELLS_PER_MS = 2_000


def _stepper(values: Values) -> Price:
    """B1: every stage of L × L attention, one frame per step: 39 ms and 108 KB at
    L = 8, growing with L² (the grids of every frame)."""
    size = int(values.get("L", 2))
    return Price(Cost(39 * CELLS_PER_MS * size * size // 64, 110_000 * size * size // 64 + 8_000))


def _flash_steps(_: Values) -> Price:
    """H2: one frame per column tile, each a few grids of at most 16 × 16; its largest
    state (N = 16, M = 4·d: 16 frames) is priced as a 16 × 16 grid per frame."""
    return Price(_grid(16, 16 * 16), "n", "N")


def _decode_steps(_: Values) -> Price:
    """I1: one frame per decoding step, each five grids of at most 8 × 8; its largest
    state (8 tokens of width 4: 8 frames) is priced as a 16 × 16 grid per frame."""
    return Price(_grid(16, 8 * 16), "tokens", "the tokens L")


def _experiment(_: Values) -> Price:
    """The figure's own drawing; its runs are priced by the experiments' cost model."""
    return Price(SMALL)


PRICES: dict[tuple[str, str], Callable[[Values], Price]] = {
    ("one-query", "softmax-table"): _small,
    ("one-query", "alignment"): _small,
    ("one-query", "worked-query"): _small,
    ("one-query", "discriminate"): _small,
    ("one-query", "two-maps"): _small,  # + its main-page state (body_figures)
    ("step-by-step", "stepper"): _stepper,
    ("step-by-step", "per-position"): _small,  # + its main-page state
    ("why-scale", "score-histogram"): _experiment,
    ("why-scale", "saturation"): _experiment,
    ("why-scale", "scaling-table"): _experiment,
    ("why-scale", "flat-line"): _small,
    ("masks", "mask-kinds"): _small,
    ("masks", "mask-order"): _small,
    ("masks", "empty-row"): _small,
    ("order", "shuffle"): _small,
    ("order", "positional-encoding"): _positional,
    ("order", "reversed"): _small,
    ("heads", "four-heads"): _small,
    ("heads", "split-concat"): _small,
    ("heads", "head-width"): _small,  # closed-form counts, whatever the sizes
    ("cost", "flops"): _small,
    ("cost", "params"): _small,
    ("cost", "growth"): _small,
    ("flash", "tiles"): _small,  # at most a 16 × 16 grid
    ("flash", "online"): _flash_steps,
    ("flash", "traffic"): _small,  # ten points of two closed forms
    ("generation", "decode"): _decode_steps,
    ("generation", "cache"): _small,  # seven products of five integers and a bar chart
    ("generation", "shared"): _small,  # at most 8 heads of 6 × 6 weights, five grids
    ("generation", "windows"): _small,  # three grids of at most 16 × 16
    ("rotary", "rotation"): _small,  # three grids of at most 8 × 8: 5 ms, 18 KB at its largest
    ("rotary", "wavelengths"): _small,  # two lines of 512 points, their table: 3 ms, 90 KB
    ("rotary", "alibi"): _small,  # two 16 × 16 grids, a 64-row table: 9 ms, 44 KB
}

# Figures that read the main page's state (`preset`/`s`): how many main-page figures one
# is worth (measured at 128 tokens: two-maps 240 ms, like all eleven figures; the
# per-position equations 50 ms, like two).
BODY_FIGURES: dict[tuple[str, str], int] = {
    ("one-query", "two-maps"): 11,
    ("step-by-step", "per-position"): 2,
}


def figure_price(lab_id: str, figure: str, values: Values) -> Price:
    """The price of one figure for its parsed control values (a figure missing from the
    table is priced as the largest one could be: the test keeps the table complete)."""
    pricer = PRICES.get((lab_id, figure))
    if pricer is None:
        return Price(_grid(128, 512), "figures", f"the figures ({figure})")
    return pricer(values)
