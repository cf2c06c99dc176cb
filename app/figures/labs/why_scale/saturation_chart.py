"""C2's sweep chart: the largest weight and the gradient term p(1 − p) against d_k,
scaled and unscaled, and the text beside it. PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, table


def _share_lines(t: Any, shares: list[tuple[int, float, float]], xs: list[float]) -> list[Json]:
    """The share saturated per width: unscaled solid, scaled dashed (on x3/y3)."""
    data = []
    for n, (label, colour) in enumerate(
        (("unscaled", t.roles["k"]), ("scaled ÷ √d_k", t.roles["q"]))
    ):
        ys = [row[1 + n] for row in shares]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "x": xs,
                "y": ys,
                "name": f"share saturated, {label}",
                "line": {"color": colour, "width": 2, "dash": "solid" if n == 0 else "dash"},
                "marker": {"color": colour, "size": 7, "symbol": "circle" if n == 0 else "square"},
                "hovertext": [
                    f"d_k = {d} (log₂ d_k = {fmt.significant(x)}): {fmt.percent(y, 1)} of "
                    f"trials saturated, {label}"
                    for (d, _, _), x, y in zip(shares, xs, ys, strict=True)
                ],
                "hoverinfo": "text",
                "xaxis": "x3",
                "yaxis": "y3",
                "showlegend": False,
            }
        )
    return data


def sweep_chart(
    v: Mapping[str, Any], ctx: FigureContext, shares: list[tuple[int, float, float]]
) -> tuple[list[Json], Json, Json]:
    """The share saturated against log₂ d_k, unscaled and scaled: traces on x3/y3, the
    axes, and the table alternative."""
    t, thr, d_k = ctx.theme, float(v["threshold"]), int(v["dk"])
    xs = [math.log2(d) for d, _, _ in shares]
    data = _share_lines(t, shares, xs)
    axes = {
        "xaxis3": charts.value_axis(
            t,
            "d_k (log₂ scale)",
            [xs[0] - 0.3, xs[-1] + 0.3],
            anchor="y3",
            tickmode="array",
            tickvals=xs,
            ticktext=[str(d) for d, _, _ in shares],
        ),
        "yaxis3": charts.value_axis(
            t,
            "share saturated",
            [0, 1.05],
            domain=[0, 0.26],
            anchor="x3",
            tickformat=".0%",
        ),
    }
    marker = {
        "type": "line",
        "xref": "x3",
        "yref": "y3 domain",
        "x0": math.log2(d_k),
        "x1": math.log2(d_k),
        "y0": 0,
        "y1": 1,
        "line": {"color": t.fg, "dash": "dot", "width": 1},
    }
    axes["marker"] = marker
    tab = table(
        f"Share of trials with p_max > {fmt.significant(thr)}, against d_k",
        ["log₂ d_k", "unscaled", "scaled"],
        [f"d_k = {d}" for d, _, _ in shares],
        [
            [fmt.significant(x), fmt.percent(a, 1), fmt.percent(b, 1)]
            for (_, a, b), x in zip(shares, xs, strict=True)
        ],
    )
    return data, axes, tab


def side_text(side: Json) -> str:
    g = side["mean_saturated_p_one_minus_p"]
    grad = "none saturated" if g is None else f"mean p(1 − p) over them {fmt.derived(g, 4)}"
    return (
        f"{fmt.percent(float(side['saturated_fraction']), 1)} saturated, mean p_max "
        f"{fmt.weight(float(side['mean_p_max']), 3)}, {grad}"
    )
