"""Figure 9: one output row as a blend, z(focus) = a₁·v₁ + a₂·v₂ + … with the real weights
and value rows, one column written out, and each entry shown inside the range (smallest …
largest) of its column of V, which a weighted average with non-negative weights summing
to 1 can never leave.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import (
    Json,
    annotation,
    base_layout,
    heatmap,
    numbered,
    subplot_axes,
)
from app.figures.weights import grid_height


def blend_equation(c: Ctx) -> str:
    """'z(love) = 0.14·v(I) + 0.63·v(love) + 0.23·v(LLMs) = (1.63, 0.14, 0.23, 0.63)'."""
    f = c.focus
    pairs = [(c.weights_text[f][j], f"v({c.key_tokens[j]})") for j in range(c.l_k)]
    z = ", ".join(c.output_text[f][:8]) + (", …" if c.d_v > 8 else "")
    return f"z({c.focus_token}) = {fmt.terms(pairs)} = ({z})"


def bounds(c: Ctx) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Per column of V, the smallest and largest value among the keys the focus row may see."""
    seen = c.stages.allowed[c.focus]
    v = c.h.v[seen] if seen.any() else c.h.v
    return v.min(axis=0), v.max(axis=0)


def own_share(c: Ctx) -> str | None:
    """'love keeps 63 % of its own value and borrows 37 % from the other tokens.'"""
    f = c.focus
    if c.stages.cross or c.l_q != c.l_k or f in c.blocked_rows:
        return None
    own = float(c.h.weights[f, f])
    return (
        f"{c.focus_token} keeps {own * 100:.0f} % of its own value and borrows "
        f"{(1 - own) * 100:.0f} % from the other tokens."
    )


def _bounds_traces(c: Ctx, lo: Any, hi: Any) -> list[Json]:
    """Per column j: a bar from the smallest to the largest V value, and z(focus)_j on it."""
    t, f = c.t, c.focus
    xs: list[float | None] = []
    ys: list[float | None] = []
    for j in range(c.d_v):
        xs += [j, j, None]
        ys += [float(lo[j]), float(hi[j]), None]
    z = c.h.output[f].tolist()
    hover = [
        f"column {j + 1}: {fmt.num(float(lo[j]))} ≤ {c.output_text[f][j]} ≤ {fmt.num(float(hi[j]))}"
        for j in range(c.d_v)
    ]
    show_text = c.d_v <= 8
    return [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines+markers",
            "xaxis": "x3",
            "yaxis": "y3",
            "line": {"color": t.roles["v"], "width": 6},
            "hoverinfo": "skip",
            "marker": {"symbol": "line-ew-open", "size": 14, "color": t.roles["v"]},
            "name": "range of V's column",
        },
        {
            "type": "scatter",
            "x": list(range(c.d_v)),
            "y": z,
            "mode": "markers+text" if show_text else "markers",
            "text": c.output_text[f],
            "textposition": "middle right",
            "xaxis": "x3",
            "yaxis": "y3",
            "marker": {
                "symbol": "diamond",
                "size": 12,
                "color": t.roles["z"],
                "line": {"color": t.outline, "width": 1},
            },
            "customdata": hover,
            "hovertemplate": "%{customdata}<extra>z</extra>",
            "textfont": {"color": t.fg},
            "name": f"z({c.focus_token})",
        },
    ]


def build_9(c: Ctx) -> dict[str, Any]:
    t, h, f = c.t, c.h, c.focus
    lo, hi = bounds(c)
    rows = [f"{c.weights_text[f][j]} × {c.key_tokens[j]}" for j in range(c.l_k)]
    cols = numbered(c.d_v)
    z_hover = [c.output_deriv[f]]
    traces = [
        c.values_heatmap(),
        heatmap(
            h.output[f : f + 1],
            [c.output_text[f]],
            z_hover,
            t.scales["z"],
            zmin=float(h.output.min()),
            zmax=float(h.output.max()) + 1e-12,
            xaxis="x2",
            yaxis="y2",
            name=f"z({c.focus_token})",
        ),
        *_bounds_traces(c, lo, hi),
    ]
    axes: Json = {}
    axes.update(subplot_axes(t, 1, [0.0, 0.55], [0.3, 1.0], cols, rows))
    axes.update(subplot_axes(t, 2, [0.0, 0.55], [0.0, 0.16], cols, [f"z({c.focus_token})"]))
    axes.update(subplot_axes(t, 3, [0.68, 1.0], [0.0, 1.0], cols, [], "column of V and z"))
    axes["yaxis3"] = {
        "type": "linear",
        "anchor": "x3",
        "domain": [0.0, 1.0],
        "zeroline": False,
        "color": t.fg,
        "gridcolor": t.grid,
        "fixedrange": True,
        "ticklabeloverflow": "allow",  # no label box measuring on redraws (see style.axis)
    }
    axes["xaxis3"]["range"] = [-0.5, c.d_v - 0.5 + (0.6 if c.d_v <= 8 else 0)]
    column = c.output_deriv[f][0]
    anns = [
        annotation(
            "<b>value rows, each × its weight</b>", 0.0, 1.0, t, xanchor="left", yanchor="bottom"
        ),
        annotation(
            "<b>z inside each column's range</b>",
            0.68,
            1.0,
            t,
            xanchor="left",
            yanchor="bottom",
            font={"size": 12, "color": t.fg},
        ),
    ]
    layout = base_layout(t, grid_height(c.l_k, lo=300) + 60, "", annotations=anns, **axes)
    layout["margin"].update(t=40, l=110)
    eq = blend_equation(c)
    readout = [eq, f"Column 1 written out: {column}"]
    share = own_share(c)
    if share:
        readout.append(share)
    if f in c.blocked_rows:
        readout.append(f"{c.focus_token} may see no key, so z({c.focus_token}) is all 0.")
    else:
        inside = all(lo[j] - 1e-9 <= h.output[f, j] <= hi[j] + 1e-9 for j in range(c.d_v))
        readout.append(
            f"All {c.d_v} entries lie between the smallest and largest value of their column "
            "of V, because the weights are non-negative and sum to 1."
            if inside
            else "Some entries fall outside their column's range."
        )
    caption = (
        f"z({c.focus_token}) is a weighted average of the value rows{c.head_note}: each row of "
        f"V is multiplied by {c.focus_token}'s weight for that key and the results are added. "
        "A weighted average can never leave the range of what it averages."
    )
    stats = [
        [fmt.num(float(lo[j])), c.output_text[f][j], fmt.num(float(hi[j]))] for j in range(c.d_v)
    ]
    return figure(
        9,
        f"One output row as a blend{c.head_note}",
        caption,
        f"The {c.l_k} value rows, labelled with {c.focus_token}'s weights, blend into "
        f"z({c.focus_token}); beside them, each entry of z inside its column's range. {eq}",
        traces,
        layout,
        readout=readout,
        tables=[
            table(
                f"z({c.focus_token}) and the range of each column of V",
                ["smallest", f"z({c.focus_token})", "largest"],
                [f"column {j + 1}" for j in range(c.d_v)],
                stats,
            )
        ],
        derivations={"0": c.projection_derivation("v"), "1": z_hover},
    )
