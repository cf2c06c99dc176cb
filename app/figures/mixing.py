"""Figures 8 and 9: the weights mix the rows of V into the output Z.

Figure 8 is A × V = Z with the focus row of A and of Z outlined and joined, and the first
entry of that Z row written out. Figure 9 is one output row as a blend of value rows,
with the range (smallest … largest) of each V column that its entry must lie in.
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
    outline,
    subplot_axes,
    value_range,
)
from app.figures.weights import grid_height

XDOMS = ([0.0, 0.3], [0.38, 0.62], [0.7, 1.0])


def _row_y(f: int, rows: int, ydom: list[float]) -> float:
    """Paper y of the centre of row ``f`` in a reversed axis spanning ``ydom``."""
    return ydom[0] + (rows - 0.5 - f) / rows * (ydom[1] - ydom[0])


def build_8(c: Ctx) -> dict[str, Any]:
    t, h, f = c.t, c.h, c.focus
    ydom = [0.0, 0.86]
    v_lo, v_hi = value_range(h.v.ravel().tolist())
    z_lo, z_hi = value_range(h.output.ravel().tolist())
    traces = [
        heatmap(h.weights, c.weights_text, c.weights_deriv, t.scales["weights"],
                zmin=0.0, zmax=1.0, name="A"),
        heatmap(h.v, c.v_text, c.projection_derivation("v"), t.scales["v"],
                zmin=v_lo, zmax=v_hi, xaxis="x2", yaxis="y2", name="V"),
        heatmap(h.output, c.output_text, c.output_deriv, t.scales["z"],
                zmin=z_lo, zmax=z_hi, xaxis="x3", yaxis="y3", name="Z"),
    ]  # fmt: skip
    axes: Json = {}
    cols_v = numbered(c.d_v)
    for n, (xl, yl, dom) in enumerate(
        ((c.key_tokens, c.tokens, XDOMS[0]), (cols_v, c.key_tokens, XDOMS[1]),
         (cols_v, c.tokens, XDOMS[2])), start=1):  # fmt: skip
        axes.update(subplot_axes(t, n, list(dom), ydom, xl, yl))
    y = _row_y(f, c.l_q, ydom)
    join = {
        "type": "line",
        "xref": "paper",
        "yref": "paper",
        "x0": XDOMS[0][1],
        "x1": XDOMS[2][0],
        "y0": y,
        "y1": y,
        "line": {"color": t.outline, "width": 2, "dash": "dot"},
    }
    shapes = [
        outline(t, -0.5, c.l_k - 0.5, f - 0.5, f + 0.5),
        outline(t, -0.5, c.d_v - 0.5, f - 0.5, f + 0.5, "x3", "y3"),
        join,
    ]
    first = c.output_deriv[f][0]
    names = [
        ("A (weights)", c.l_q, c.l_k),
        ("V (values)", c.l_k, c.d_v),
        ("Z (output)", c.l_q, c.d_v),
    ]
    anns = [annotation(f"<b>{name}</b>  {r} × {k}", (d[0] + d[1]) / 2, 1.0, t, yanchor="bottom")
            for (name, r, k), d in zip(names, XDOMS, strict=True)]  # fmt: skip
    anns += [annotation("×", 0.34, 0.43, t, font={"size": 22}),
             annotation("=", 0.66, 0.43, t, font={"size": 22})]  # fmt: skip
    layout = base_layout(t, grid_height(max(c.l_q, c.l_k), lo=260) + 40, "", annotations=anns,
                         shapes=shapes, **axes)  # fmt: skip
    layout["margin"].update(t=50, b=30)
    caption = (
        f"Each row of Z is the matching row of A times V{c.head_note}: the weights of token "
        f"{f + 1}, {c.focus_token} (outlined), blend the {c.l_k} value rows into its output row "
        f"(outlined). A is {c.l_q} × {c.l_k}, V is {c.l_k} × {c.d_v}, Z is {c.l_q} × {c.d_v}."
    )
    readout = [f"First entry of row {f + 1} of Z: {first}",
               f"Row {f + 1} of Z ({c.focus_token}): {fmt.listing(c.output_text[f])}."]  # fmt: skip
    return figure(
        8, f"A × V = Z{c.head_note}", caption,
        f"Three heatmaps: the {c.l_q} × {c.l_k} weights times the {c.l_k} × {c.d_v} values "
        f"give the {c.l_q} × {c.d_v} output. {readout[0]}",
        traces, layout, readout=readout,
        tables=[table("A: weights", c.key_tokens, c.tokens, c.weights_text),
                table("V: values", cols_v, c.key_tokens, c.v_text),
                table("Z: output", cols_v, c.tokens, c.output_text)],
        derivations={"0": c.weights_deriv, "1": c.projection_derivation("v"),
                     "2": c.output_deriv},
    )  # fmt: skip


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
    hover = [f"column {j + 1}: {fmt.num(float(lo[j]))} ≤ {c.output_text[f][j]} ≤ "
             f"{fmt.num(float(hi[j]))}" for j in range(c.d_v)]  # fmt: skip
    show_text = c.d_v <= 8
    return [
        {"type": "scatter", "x": xs, "y": ys, "mode": "lines+markers", "xaxis": "x3",
         "yaxis": "y3", "line": {"color": t.roles["v"], "width": 6}, "hoverinfo": "skip",
         "marker": {"symbol": "line-ew-open", "size": 14, "color": t.roles["v"]},
         "name": "range of V's column"},
        {"type": "scatter", "x": list(range(c.d_v)), "y": z, "mode":
         "markers+text" if show_text else "markers", "text": c.output_text[f],
         "textposition": "middle right", "xaxis": "x3", "yaxis": "y3",
         "marker": {"symbol": "diamond", "size": 12, "color": t.roles["z"],
                    "line": {"color": t.outline, "width": 1}},
         "customdata": hover, "hovertemplate": "%{customdata}<extra>z</extra>",
         "textfont": {"color": t.fg}, "name": f"z({c.focus_token})"},
    ]  # fmt: skip


def build_9(c: Ctx) -> dict[str, Any]:
    t, h, f = c.t, c.h, c.focus
    lo, hi = bounds(c)
    v_lo, v_hi = value_range(h.v.ravel().tolist())
    rows = [f"{c.weights_text[f][j]} × {c.key_tokens[j]}" for j in range(c.l_k)]
    cols = numbered(c.d_v)
    top = 0.8 - min(0.3, 0.03 * c.l_k) if c.l_k < 10 else 0.3
    z_hover = [c.output_deriv[f]]
    traces = [
        heatmap(h.v, c.v_text, c.projection_derivation("v"), t.scales["v"], zmin=v_lo,
                zmax=v_hi, name="V"),
        heatmap(h.output[f : f + 1], [c.output_text[f]], z_hover, t.scales["z"],
                zmin=float(h.output.min()), zmax=float(h.output.max()) + 1e-12,
                xaxis="x2", yaxis="y2", name=f"z({c.focus_token})"),
        *_bounds_traces(c, lo, hi),
    ]  # fmt: skip
    axes: Json = {}
    axes.update(subplot_axes(t, 1, [0.0, 0.55], [0.3, 1.0] if c.l_k >= 10 else [top, 1.0],
                             cols, rows))  # fmt: skip
    axes.update(subplot_axes(t, 2, [0.0, 0.55], [0.0, 0.16], cols, [f"z({c.focus_token})"]))
    axes.update(subplot_axes(t, 3, [0.68, 1.0], [0.0, 1.0], cols, [], "column of V and z"))
    axes["yaxis3"] = {"anchor": "x3", "domain": [0.0, 1.0], "zeroline": False, "color": t.fg,
                      "gridcolor": t.grid, "fixedrange": True}  # fmt: skip
    axes["xaxis3"]["range"] = [-0.5, c.d_v - 0.5 + (0.6 if c.d_v <= 8 else 0)]
    column = c.output_deriv[f][0]
    anns = [
        annotation(
            "<b>value rows, each × its weight</b>", 0.0, 1.0, t, xanchor="left", yanchor="bottom"
        ),
        annotation(
            "<b>each entry of z stays inside its column's range</b>",
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
    stats = [[fmt.num(float(lo[j])), c.output_text[f][j], fmt.num(float(hi[j]))]
             for j in range(c.d_v)]  # fmt: skip
    return figure(
        9, f"One output row as a blend{c.head_note}", caption,
        f"The {c.l_k} value rows, labelled with {c.focus_token}'s weights, blend into "
        f"z({c.focus_token}); beside them, each entry of z inside its column's range. {eq}",
        traces, layout, readout=readout,
        tables=[table(f"z({c.focus_token}) and the range of each column of V",
                      ["smallest", f"z({c.focus_token})", "largest"],
                      [f"column {j + 1}" for j in range(c.d_v)], stats)],
        derivations={"0": c.projection_derivation("v"), "1": z_hover},
    )  # fmt: skip
