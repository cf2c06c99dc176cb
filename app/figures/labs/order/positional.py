"""E2, sinusoidal positions: the encoding's heatmap and chosen dimensions' curves, from
``app.labs.positional`` (the same function as ``POST /api/v1/positional-encoding``). PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure
from app.figures.labs.controls import Control, integer, number
from app.figures.labs.order.common import dim_names
from app.figures.labs.parts import chart, matrix_grid, preset_body
from app.figures.labs.words import source_of
from app.labs.positional import sinusoidal

WIDTHS = (2, 4, 8, 16, 32, 64, 128, 256, 512)


def _curves(pe: Any, t: Any, dims: Sequence[int] = ()) -> Json:
    d = pe.shape[1]
    chosen = sorted({j for j in dims if j < d}) or sorted(
        {0, 1, min(2, d - 1), d - 2 if d > 2 else d - 1, d - 1}
    )
    palette = [t.roles["q"], t.roles["k"], t.roles["v"], t.roles["z"], t.roles["weights"]]
    pos = list(range(pe.shape[0]))
    data = [
        charts.line(
            pos,
            pe[:, j].tolist(),
            palette[n % len(palette)],
            f"dim {j} ({'sin' if j % 2 == 0 else 'cos'})",
            mode="lines+markers",
            hover=[f"PE({p}, {j}) = {fmt.significant(pe[p, j], 10)}" for p in pos],
        )
        for n, j in enumerate(chosen)
    ]
    layout = charts.layout(
        t,
        300,
        charts.value_axis(t, "position pos", [-0.2, max(pe.shape[0] - 0.8, 1)]),
        charts.value_axis(t, "PE", [-1.15, 1.15], dtick=0.5),
        **charts.legend(t),
    )
    return chart(data, layout)


MAX_CURVES = 8


def _chosen_dims(dims: Sequence[float]) -> list[int]:
    """The dimensions the learner asked to draw (the control allows whole numbers, at
    most MAX_CURVES of them)."""
    return [int(j) for j in dims]


def build_positional(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, theme = ctx.theme, ctx.theme.name
    d, positions, base = int(v["d"]), int(v["T"]), float(v["base"])
    pe = sinusoidal(positions, d, base)
    grids = [
        grid_item(
            matrix_grid(
                "pe",
                "PE",
                pe,
                [f"pos {p}" for p in range(positions)],
                dim_names(d),
                theme,
                role="scores",
                row_title="position",
                col_title="dimension",
            ),
            f"PE: {positions} positions × {d} dimensions (sines in even, cosines in odd "
            "dimensions)",
        )
    ]
    body = preset_body("dog-bit-man")
    x = np.asarray(body["x"], dtype=np.float64)
    pe_x = sinusoidal(x.shape[0], x.shape[1])
    names = body["tokens"]
    for name, label, m in (("x", "X", x), ("pe-x", "PE", pe_x), ("x-plus-pe", "X + PE", x + pe_x)):
        grids.append(
            grid_item(
                matrix_grid(
                    name,
                    label,
                    m,
                    names,
                    dim_names(x.shape[1]),
                    theme,
                    role="x" if name == "x" else "scores",
                ),
                f"{label} for “The dog bit the man” (d_model 4, base 10000)",
            )
        )
    slow = base ** (2 * ((d - 1) // 2) / d)
    caption = (
        f"Dimension 0 turns once every 2π ≈ 6.3 positions; the last pair turns once every "
        f"2π·{fmt.significant(slow, 4)} positions"
        + (
            f", so over these {fmt.count(positions)} positions the left of the heatmap "
            "changes from row to row while the right barely moves."
            if 2 * math.pi * slow > positions > 2 * math.pi
            else "."
        )
        + " “The” (row 1, pos = 0) and “the” (row 4, pos = 3) share an embedding but not a "
        "position, so X + PE gives them different rows. The formula's pos counts from 0: row "
        "t has pos = t − 1."
    )
    return lab_figure(
        POSITIONAL,
        caption=caption,
        alt=f"A heatmap of the sinusoidal encoding for {positions} positions and {d} "
        "dimensions, and curves of chosen dimensions against position.",
        grids=grids,
        plot=_curves(pe, t, _chosen_dims(v["dims"])),
        readout=[
            f"PE(pos, 2i) = sin(pos ÷ {fmt.significant(base)} to the power 2i/{d}), "
            "PE(pos, 2i + 1) = cos of the same; pos counts from 0"
        ],
        quotes=[
            {
                **source_of("textbook"),
                "text": "“the original transformer adds "
                "sinusoids of different frequencies” (Eq. 16.4).",
            }
        ],
    )


POSITIONAL = LabFigure(
    name="positional-encoding",
    entry="E2",
    title="Sinusoidal positional encoding",
    intro="Each position gets a vector of sines and cosines at falling frequencies; it is "
    "added to X before the projections. Widen d and lengthen T to see the pattern.",
    teaching="Position vectors make the same word at two positions two different inputs, so "
    "a shuffle now changes the outputs. Low dimensions oscillate fast, high ones slowly.",
    build=build_positional,
    numpy="positional-encoding",
    controls=(
        integer("d", "Width d", 64, 2, 512, extra={"slider": True}),
        Control(
            "dims",
            "Curves of dimensions (0-based, e.g. 0,1,6,7)",
            "vector",
            (0, 6, 16, 40),
            0,
            511,
            1,
            extra={"single": True, "whole": True, "most": MAX_CURVES},
            hint="Dimensions past d − 1 are left out; 2i is a sine, 2i+1 its cosine.",
        ),
        integer("T", "Positions T", 50, 1, 128),
        number("base", "Base (advanced)", 10000, 2, 1_000_000, 1),
    ),
)
