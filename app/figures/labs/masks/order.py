"""D2, mask before vs after softmax: the same scores masked at two moments, the weights
and their row sums (masking after the softmax discards weight). PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.attention import softmax_stage
from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice
from app.figures.labs.masks.common import D1, d1_allowed, keys, queries, scores_of, shared
from app.figures.labs.parts import chart, matrix_grid
from app.figures.labs.words import source_of
from app.labs import masks

ORDER_CHOICES = (("both", "both"), ("before", "before (correct)"), ("after", "after (wrong)"))


D2_MASKS = (("causal", "causal"), ("d1", "D1's combination"))


def _d2_allowed(name: str, d1: Mapping[str, Any]) -> Any:
    n = int(d1["L"])
    return masks.causal(n, n) if name == "causal" else d1_allowed(d1)


def _row_sum_bars(sums: dict[str, Any], t: Any, n: int) -> Json:
    data = []
    colours = {"before": t.roles["q"], "after": t.roles["k"]}
    for order, s in sums.items():
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": f"mask {order} softmax",
                "y": list(queries(n)),
                "x": [float(x) for x in s],
                "text": [fmt.derived(float(x), 4) for x in s],
                "textposition": "outside",
                "cliponaxis": False,
                "marker": {"color": colours[order]},
                "hovertemplate": f"{order}: row %{{y}} sums to %{{x:.10g}}<extra></extra>",
            }
        )
    dashed = {
        "type": "line",
        "x0": 1,
        "x1": 1,
        "y0": -0.5,
        "y1": n - 0.5,
        "xref": "x",
        "yref": "y",
        "line": {"color": t.fg, "dash": "dash", "width": 2},
    }
    layout = charts.layout(
        t,
        120 + 40 * n,
        charts.value_axis(t, "row sum", [0, 1.25], dtick=0.25),
        charts.value_axis(t, "", None, autorange="reversed", type="category"),
        shapes=[dashed],
        barmode="group",
        **charts.legend(t),
    )
    return chart(data, layout)


def build_mask_order(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, theme = ctx.theme, ctx.theme.name
    d1 = shared(ctx, v)
    scores, n = scores_of(d1), int(d1["L"])
    qs, ks = queries(n), keys(n)
    allowed = _d2_allowed(v["mask"], d1)
    orders = ("before", "after") if v["order"] == "both" else (v["order"],)
    stages = {o: softmax_stage(scores, allowed=allowed, mask_order=o) for o in orders}
    plain = softmax_stage(scores)  # the unmasked softmax: what "after" discards from
    grids = []
    for o, st in stages.items():
        g = matrix_grid(
            f"weights-{o}",
            "A",
            st.weights,
            qs,
            ks,
            theme,
            blocked=~allowed,
            hover_name=f"weight ({o})",
        )
        if o == "after":  # the discarded weight, in the blocked cells
            for i in range(n):
                for j in range(n):
                    if not allowed[i, j]:
                        lost = float(plain.weights[i, j])
                        g["text"][i][j] = f"({fmt.derived(lost, 2)})"
                        g["hover"][i][j] = (
                            f"discarded: weight {fmt.significant(lost, 10)} was set to 0"
                        )
        sums = ", ".join(fmt.derived(float(s), 4) for s in st.row_sums)
        title = (
            "mask before softmax (attention proper)"
            if o == "before"
            else "mask after softmax (wrong): discarded weight in brackets"
        )
        grids.append(grid_item(g, f"{title}; row sums {sums}"))
    parts = []
    if "before" in stages:
        parts.append("Masked before the softmax, every row sums to 1 over its allowed keys.")
    if "after" in stages:
        s0 = float(stages["after"].row_sums[0])
        parts.append(
            f"Masked after, row q_1 keeps only {fmt.derived(s0, 4)} of its weight: the rest "
            "is discarded, not redistributed."
        )
    rows = [[fmt.derived(float(st.row_sums[i]), 4) for st in stages.values()] for i in range(n)]
    return lab_figure(
        MASK_ORDER,
        caption=" ".join(parts),
        alt="Weight grids masked " + " and ".join(orders) + " the softmax, with row sums.",
        grids=grids,
        plot=_row_sum_bars({o: st.row_sums for o, st in stages.items()}, t, n),
        readout=[
            f"{o}: row sums {', '.join(fmt.derived(float(s), 4) for s in st.row_sums)}"
            for o, st in stages.items()
        ],
        tables=[table("Row sums (4 decimals)", [f"mask {o}" for o in stages], list(qs), rows)],
        quotes=[
            {
                **source_of("textbook"),
                "text": "“The first row now sums to 0.4551, because the weight that belonged "
                "to the blocked positions has been discarded rather than redistributed.”",
            }
        ],
    )


MASK_ORDER = LabFigure(
    name="mask-order",
    entry="D2",
    title="Mask before vs after softmax",
    intro="The same scores and mask, masked at two moments: before the softmax (blocked "
    "scores become −∞) or after it (the softmax of the full row, then blocked weights "
    "zeroed). The scores are D1's S (edit L and its entries there); the mask is causal or "
    "the combination you built in D1.",
    teaching="Masking before softmax renormalises over the allowed keys. Masking after "
    "discards weight: rows stop summing to one, and the outputs shrink.",
    build=build_mask_order,
    numpy="mask-order",
    badges=("our reconstruction",),
    controls=(
        choice("order", "Order", "both", ORDER_CHOICES),
        choice("mask", "Mask", "causal", D2_MASKS),
    ),
    reads=(D1,),
)
