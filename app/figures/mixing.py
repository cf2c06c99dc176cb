"""Figure 8: A × V = Z, every cell filled, with the focus row of A and of Z outlined and
joined, and the first entry of that Z row written out as a sum of weight × value.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import (
    Json,
    annotation,
    base_layout,
    heatmap,
    numbered,
    outline,
    subplot_axes,
    value_range,
)
from app.figures.weights import grid_height

XDOMS = ([0.0, 0.28], [0.4, 0.62], [0.74, 1.0])
# Paper width kept clear left of a grid for its row labels (token names).
LABEL_ROOM = 0.07


def _row_y(f: int, rows: int, ydom: list[float]) -> float:
    """Paper y of the centre of row ``f`` in a reversed axis spanning ``ydom``."""
    return ydom[0] + (rows - 0.5 - f) / rows * (ydom[1] - ydom[0])


def build_8(c: Ctx) -> dict[str, Any]:
    t, h, f = c.t, c.h, c.focus
    ydom = [0.0, 0.86]
    z_lo, z_hi = value_range(h.output)
    traces = [
        c.weights_heatmap(),
        c.values_heatmap("x2", "y2"),
        heatmap(
            h.output,
            c.output_text,
            c.output_deriv,
            t.scales["z"],
            zmin=z_lo,
            zmax=z_hi,
            xaxis="x3",
            yaxis="y3",
            name="Z",
        ),
    ]
    axes: Json = {}
    cols_v = numbered(c.d_v)
    for n, (xl, yl, dom) in enumerate(
        (
            (c.key_tokens, c.tokens, XDOMS[0]),
            (cols_v, c.key_tokens, XDOMS[1]),
            (cols_v, c.tokens, XDOMS[2]),
        ),
        start=1,
    ):
        axes.update(subplot_axes(t, n, list(dom), ydom, xl, yl))
    y = _row_y(f, c.l_q, ydom)
    # The join runs through the gaps only, stopping short of the next grid's row labels
    # (they sit left of each grid): A's row, times V, gives Z's row.
    joins = [
        {
            "type": "line",
            "xref": "paper",
            "yref": "paper",
            "x0": left,
            "x1": right - LABEL_ROOM,
            "y0": y,
            "y1": y,
            "line": {"color": t.outline, "width": 2, "dash": "dot"},
        }
        for left, right in ((XDOMS[0][1], XDOMS[1][0]), (XDOMS[1][1], XDOMS[2][0]))
    ]
    shapes = [
        outline(t, -0.5, c.l_k - 0.5, f - 0.5, f + 0.5),
        outline(t, -0.5, c.d_v - 0.5, f - 0.5, f + 0.5, "x3", "y3"),
        *joins,
    ]
    first = c.output_deriv[f][0]
    names = [
        ("A (weights)", c.l_q, c.l_k),
        ("V (values)", c.l_k, c.d_v),
        ("Z (output)", c.l_q, c.d_v),
    ]
    anns = [
        annotation(f"<b>{name}</b>  {r} × {k}", (d[0] + d[1]) / 2, 1.0, t, yanchor="bottom")
        for (name, r, k), d in zip(names, XDOMS, strict=True)
    ]
    anns += [
        annotation("×", 0.34, 1.0, t, font={"size": 20}, yanchor="bottom"),
        annotation("=", 0.68, 1.0, t, font={"size": 20}, yanchor="bottom"),
    ]
    layout = base_layout(
        t, grid_height(max(c.l_q, c.l_k), lo=260) + 40, "", annotations=anns, shapes=shapes, **axes
    )
    layout["margin"].update(t=50, b=30)
    caption = (
        f"Each row of Z is the matching row of A times V{c.head_note}: the weights of token "
        f"{f + 1}, {c.focus_token} (outlined), blend the {c.l_k} value rows into its output row "
        f"(outlined). A is {c.l_q} × {c.l_k}, V is {c.l_k} × {c.d_v}, Z is {c.l_q} × {c.d_v}."
    )
    readout = [
        f"First entry of row {f + 1} of Z: {first}",
        f"Row {f + 1} of Z ({c.focus_token}): {fmt.listing(c.output_text[f])}.",
    ]
    return figure(
        8,
        f"A × V = Z{c.head_note}",
        caption,
        f"Three heatmaps: the {c.l_q} × {c.l_k} weights times the {c.l_k} × {c.d_v} values "
        f"give the {c.l_q} × {c.d_v} output. {readout[0]}",
        traces,
        layout,
        readout=readout,
        tables=[
            table("A: weights", c.key_tokens, c.tokens, c.weights_text),
            table("V: values", cols_v, c.key_tokens, c.v_text),
            table("Z: output", cols_v, c.tokens, c.output_text),
        ],
        derivations={"0": c.weights_deriv, "1": c.projection_derivation("v"), "2": c.output_deriv},
    )
