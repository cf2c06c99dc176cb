"""Figure 4: three projections of one X: X W^Q = Q, X W^K = K, X W^V = V.

Each row of the figure is ``input × W = result`` with shapes under every matrix and the
numbers in the cells; Q/K/V cells hover with their dot product (q₁₁ = 0·0 + … = 2). In
cross-attention K and V come from the source S; in direct mode Q, K, V are given.
"""

from __future__ import annotations

from typing import Any

from app.attention.ops import Matrix
from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import (
    MAX_TICKS,
    Json,
    axis,
    base_layout,
    heatmap,
    numbered,
    ticks,
    value_range,
)

NAMES = {"q": ("W<sup>Q</sup>", "Q"), "k": ("W<sup>K</sup>", "K"), "v": ("W<sup>V</sup>", "V")}
# The three matrices of a row share one pair of axes (one subplot per row, not one per
# matrix): Plotly.react then redraws a third of the axes, which is most of its time.
# Between two matrices, an empty gap of about GAP_SHARE of the width (at least 2 columns)
# holds "×" or "=" and W's row numbers.
GAP_SHARE = 0.09


def _gap(mats: list[tuple[int, str, Matrix]]) -> float:
    """Width of the gap between two matrices, in columns."""
    cols = sum(int(m.shape[1]) for _, _, m in mats)
    return max(2.0, GAP_SHARE * cols / (1 - 2 * GAP_SHARE))


def _size(labels: list[str]) -> int:
    """Font size of row/column numbers: smaller once they are thinned (as on the axes)."""
    return 11 if len(labels) <= MAX_TICKS else 9


def _matrix(c: Ctx, m: Matrix, text: list[list[str]], hover: list[list[str]] | None,
            role: str, n: int, name: str, left: float) -> Json:  # fmt: skip
    """One matrix as a heatmap whose column j sits at x = left + j on row n's axes."""
    lo, hi = value_range(m)
    sfx = "" if n == 1 else str(n)
    trace = heatmap(m, text, hover, c.t.scales[role], zmin=lo, zmax=hi,
                    xaxis=f"x{sfx}", yaxis=f"y{sfx}", name=name)  # fmt: skip
    trace["x"] = [left + j for j in range(m.shape[1])]
    return trace


Label = tuple[float, float, str, str, int]  # x, y, text, textposition, font size


def _labels(c: Ctx, n: int, points: list[Label]) -> Json:
    """Text at data positions of row n's axes: names, shapes, "×", "=", W's row numbers."""
    sfx = "" if n == 1 else str(n)
    return {
        "type": "scatter",
        "mode": "text",
        "x": [p[0] for p in points],
        "y": [p[1] for p in points],
        "text": [p[2] for p in points],
        "textposition": [p[3] for p in points],
        "textfont": {"size": [p[4] for p in points], "color": c.t.fg},
        "cliponaxis": False,  # the names sit above the top row, outside the axis range
        "hoverinfo": "skip",
        "xaxis": f"x{sfx}",
        "yaxis": f"y{sfx}",
        "showlegend": False,
    }


def _mats(c: Ctx, which: str) -> list[tuple[int, str, Matrix]]:
    """(position 0/1/2, name, matrix) of 'input × W = result'; direct mode has the result only."""
    src_name, src, _ = _source(c, which)
    w_name, res_name = NAMES[which]
    result: Matrix = {"q": c.h.q, "k": c.h.k, "v": c.h.v}[which]
    mats = [(src_name, src), (w_name, c.head_weight(which)), (res_name, result)]
    return [(k, name, m) for k, (name, m) in enumerate(mats) if m is not None]


def _row(c: Ctx, which: str, r: int, ydom: list[float]) -> tuple[list[Json], Json]:
    """Traces and axes of one row 'input × W = result' (r = 0, 1, 2), all on one subplot."""
    n, sfx = r + 1, ("" if r == 0 else str(r + 1))
    mats = _mats(c, which)
    gap = _gap(mats)
    res_text = {"q": c.q_text, "k": c.k_text, "v": c.v_text}[which]
    mid_y = (min(m.shape[0] for _, _, m in mats) - 1) / 2  # middle of the token rows
    traces: list[Json] = []
    points: list[Label] = []
    left = 0.0
    for k, name, m in mats:
        rows, cols = m.shape
        if k == 2:
            hover = c.projection_derivation(which)
            traces.append(_matrix(c, m, res_text, hover, which, n, name, left))
        else:
            role = "x" if k == 0 else which
            traces.append(_matrix(c, m, fmt.grid(m), None, role, n, name, left))
        # column numbers under each matrix's own last row (one x axis would put them all
        # under the tallest matrix, away from the shorter ones)
        vals, text = ticks(numbered(cols))
        points += [
            (left + v, rows - 0.5, s, "bottom center", _size(numbered(cols)))
            for v, s in zip(vals, text, strict=True)
        ]
        points.append((left + (cols - 1) / 2, -0.5, f"<b>{name}</b>  {rows} × {cols}",
                       "top center", 13))  # fmt: skip
        gap_mid = left - 0.5 - gap / 2
        if k == 1:  # W's rows, numbered at its left edge, meet X's columns in order
            vals, text = ticks(numbered(rows))
            points += [
                (left - 0.6, v, s, "middle left", _size(numbered(rows)))
                for v, s in zip(vals, text, strict=True)
            ]
            points.append((gap_mid - 0.1 * gap, mid_y, "×", "middle center", 22))
        if k == 2 and len(mats) > 1:
            points.append((gap_mid, mid_y, "=", "middle center", 22))
        left += cols + gap
    traces.append(_labels(c, n, points))
    x = axis(c.t, [])
    x.update(range=[-0.5, left - gap - 0.5], domain=[0.0, 1.0], anchor=f"y{sfx}")
    x.update(showticklabels=False)
    y = axis(c.t, _source(c, which)[2], reverse=True)  # the token rows of input and result
    height = max(m.shape[0] for _, _, m in mats)
    y.update(domain=ydom, anchor=f"x{sfx}", range=[height - 0.5, -0.5])
    return traces, {f"xaxis{sfx}": x, f"yaxis{sfx}": y}


def _source(c: Ctx, which: str) -> tuple[str, Matrix | None, list[str]]:
    if which != "q" and c.stages.cross:
        return "S", c.stages.source_x, c.key_tokens
    labels = c.tokens if which == "q" else c.key_tokens
    return "X", c.stages.x, labels


def build(c: Ctx) -> dict[str, Any]:
    t = c.t
    rows = max(c.l_q, c.l_k)
    band = max(150, min(300, 40 + 26 * rows))
    gap = 70
    height = 3 * band + 2 * gap + 40
    traces: list[Json] = []
    axes: Json = {}
    derivations: dict[str, list[list[str]]] = {}
    for r, which in enumerate(("q", "k", "v")):
        top = 1 - r * (band + gap) / (height - 40)
        ydom = [max(0.0, top - band / (height - 40)), top]
        tr, ax = _row(c, which, r, ydom)
        # the result (Q, K or V) is the last heatmap of its row, before its labels
        derivations[str(len(traces) + len(tr) - 2)] = c.projection_derivation(which)
        traces += tr
        axes.update(ax)
    layout = base_layout(t, height, "", **axes)
    layout["margin"].update(t=30, b=40)
    # one plot area spans all three matrices: its background would show around the shorter
    # ones as a box, so it is see-through (the cell gaps show the page, as elsewhere)
    layout["plot_bgcolor"] = "rgba(0,0,0,0)"
    projected = c.stages.w_q is not None
    d_model = c.stages.x.shape[1] if c.stages.x is not None else None
    if projected:
        src = "X (and the source S for K and V)" if c.stages.cross else "the same X"
        caption = (
            f"Q, K and V are three different views of {src}, each made by one matrix "
            f"product{c.head_note}: X is {c.l_q} × {d_model}, W^Q and W^K are {d_model} × "
            f"{c.d_k}, W^V is {d_model} × {c.d_v}. Each cell of a result is the dot product of "
            "a token's row with one column of the weight matrix."
        )
    else:
        caption = "Q, K and V were given directly (direct mode), so no projection is shown."
    f = c.focus
    readout = [
        f"{c.projection_derivation('q')[0][0]}",
        f"Row {f + 1} of Q ({c.focus_token}): {fmt.listing(c.q_text[f])}.",
    ]
    return figure(
        4,
        f"Three projections of one X{c.head_note}",
        caption,
        f"Three matrix products: X times W^Q gives Q ({c.l_q} × {c.d_k}), X times W^K gives K "
        f"({c.l_k} × {c.d_k}), X times W^V gives V ({c.l_k} × {c.d_v}).",
        traces,
        layout,
        readout=readout,
        tables=[
            table(f"{n}{c.head_note}", numbered(m.shape[1]), lab, txt)
            for n, m, lab, txt in (
                ("Q", c.h.q, c.tokens, c.q_text),
                ("K", c.h.k, c.key_tokens, c.k_text),
                ("V", c.h.v, c.key_tokens, c.v_text),
            )
        ],
        derivations=derivations,
    )
