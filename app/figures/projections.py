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
    Json,
    annotation,
    base_layout,
    heatmap,
    numbered,
    subplot_axes,
    value_range,
)

XDOMS = ([0.0, 0.3], [0.38, 0.62], [0.7, 1.0])
NAMES = {"q": ("W^Q", "Q"), "k": ("W^K", "K"), "v": ("W^V", "V")}


def _plain_hover(m: Matrix, name: str) -> list[list[str]]:
    return [
        [f"{name}{fmt.sub2(i + 1, j + 1)} = {fmt.full(v)}" for j, v in enumerate(row)]
        for i, row in enumerate(m.tolist())
    ]


def _matrix(c: Ctx, m: Matrix, text: list[list[str]], hover: list[list[str]], role: str,
            n: int, name: str) -> Json:  # fmt: skip
    lo, hi = value_range(m.ravel().tolist())
    sfx = "" if n == 1 else str(n)
    return heatmap(m, text, hover, c.t.scales[role], zmin=lo, zmax=hi,
                   xaxis=f"x{sfx}", yaxis=f"y{sfx}", name=name)  # fmt: skip


def _row(c: Ctx, which: str, r: int, ydom: list[float]) -> tuple[list[Json], Json, list[Json]]:
    """Traces, axes and annotations of one row 'input × W = result' (r = 0, 1, 2)."""
    t = c.t
    src_name, src, labels = _source(c, which)
    w = c.head_weight(which)
    w_name, res_name = NAMES[which]
    result: Matrix = {"q": c.h.q, "k": c.h.k, "v": c.h.v}[which]
    res_text = {"q": c.q_text, "k": c.k_text, "v": c.v_text}[which]
    base = 3 * r + 1
    traces: list[Json] = []
    axes: Json = {}
    anns: list[Json] = []
    mats: list[tuple[str, Matrix | None]] = [(src_name, src), (w_name, w), (res_name, result)]
    for k, (name, m) in enumerate(mats):
        if m is None:
            continue
        n = base + k
        row_labels = labels if k != 1 else numbered(m.shape[0])
        axes.update(subplot_axes(t, n, list(XDOMS[k]), ydom, numbered(m.shape[1]), row_labels))
        if k == 2:
            hover = c.projection_derivation(which)
            traces.append(_matrix(c, m, res_text, hover, which, n, name))
        else:
            role = "x" if k == 0 else which
            traces.append(_matrix(c, m, fmt.grid(m), _plain_hover(m, name.lower()[0]), role,
                                  n, name))  # fmt: skip
        mid = (XDOMS[k][0] + XDOMS[k][1]) / 2
        anns.append(annotation(f"<b>{name}</b>", mid, ydom[1], t, yanchor="bottom"))
        anns.append(
            annotation(
                f"{m.shape[0]} × {m.shape[1]}",
                mid,
                ydom[0],
                t,
                yanchor="top",
                yshift=-4,
                font={"size": 12, "color": t.muted},
            )
        )
    ymid = (ydom[0] + ydom[1]) / 2
    if w is not None:
        anns.append(annotation("×", 0.34, ymid, t, font={"size": 22, "color": t.fg}))
        anns.append(annotation("=", 0.66, ymid, t, font={"size": 22, "color": t.fg}))
    return traces, axes, anns


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
    anns: list[Json] = []
    derivations: dict[str, list[list[str]]] = {}
    for r, which in enumerate(("q", "k", "v")):
        top = 1 - r * (band + gap) / (height - 40)
        ydom = [max(0.0, top - band / (height - 40)), top]
        tr, ax, an = _row(c, which, r, ydom)
        # the result (Q, K or V) is the last trace of its row
        derivations[str(len(traces) + len(tr) - 1)] = c.projection_derivation(which)
        traces += tr
        axes.update(ax)
        anns += an
    layout = base_layout(t, height, "", annotations=anns, **axes)
    layout["margin"].update(t=30, b=40)
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
        4, f"Three projections of one X{c.head_note}", caption,
        f"Three matrix products: X times W^Q gives Q ({c.l_q} × {c.d_k}), X times W^K gives K "
        f"({c.l_k} × {c.d_k}), X times W^V gives V ({c.l_k} × {c.d_v}).",
        traces, layout, readout=readout,
        tables=[table(f"{n}{c.head_note}", numbered(m.shape[1]), lab, txt) for n, m, lab, txt in (
            ("Q", c.h.q, c.tokens, c.q_text), ("K", c.h.k, c.key_tokens, c.k_text),
            ("V", c.h.v, c.key_tokens, c.v_text))],
        derivations=derivations,
    )  # fmt: skip
