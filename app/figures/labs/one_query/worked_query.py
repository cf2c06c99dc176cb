"""A3, the worked query: one query's scores, weights and weighted sum of the values,
every number in view. Attention runs through ``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import matrix, toggle, vector
from app.figures.labs.parts import preset_body
from app.figures.labs.words import source_of

WHO = preset_body("who-is-the-best")


WHO_KEYS = tuple(tuple(r) for r in WHO["k"])


WHO_NAMES = tuple(WHO["key_tokens"])


def _vec4(x: np.ndarray) -> str:
    return "(" + ", ".join(fmt.derived(float(a), 4) for a in x) + ")"


def _tables(h: Any, values: Any, scale: bool) -> list[Json]:
    """Each key's q·k, scaled score, e^s, α and α·v; then the output ζ."""
    raw, scaled, w = h.scores[0], h.scaled[0], h.weights[0]
    exps = h.exps[0] * np.exp(h.exp_shift[0])
    vv = np.asarray(values, dtype=np.float64)
    rows = [
        [
            fmt.derived(float(raw[j]), 4),
            fmt.derived(float(scaled[j]), 4),
            fmt.derived(float(exps[j]), 4),
            fmt.derived(float(w[j]), 4),
            _vec4(w[j] * vv[j]),
        ]
        for j in range(3)
    ]
    div = "÷√d_k" if scale else "÷1 (off)"
    main = table(
        f"One query against three keys (4 decimals); {div}",
        ["q·k", div, "e^s", "α", "α·v"],
        list(WHO_NAMES),
        rows,
    )
    return [main, table("The output ζ = Σ α·v", ["value"], ["ζ"], [[_vec4(h.output[0])]])]


def _gauge(t: Any, entropy: float, top: float) -> tuple[Json, Json, Json]:
    """The entropy bar, the dashed line at its maximum and that line's label."""
    gauge = {
        "type": "bar",
        "orientation": "h",
        "x": [entropy],
        "y": [0],
        "xaxis": "x2",
        "yaxis": "y2",
        "marker": {"color": t.roles["q"]},
        "text": [f"{fmt.derived(entropy, 4)} bits"],
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"color": t.fg},
        "hovertemplate": f"entropy {fmt.significant(entropy, 10)} bits<extra></extra>",
    }
    mark = {
        "type": "line",
        "xref": "x2",
        "yref": "y2",
        "x0": top,
        "x1": top,
        "y0": -0.5,
        "y1": 0.5,
        "line": {"color": t.fg, "dash": "dash", "width": 2},
    }
    note = {
        "text": f"maximum log₂ 3 = {fmt.derived(top, 4)} bits",
        "x": top,
        "y": 0.5,
        "xref": "x2",
        "yref": "y2",
        "showarrow": False,
        "yanchor": "bottom",
        "xanchor": "right",
        "font": {"color": t.muted, "size": 11},
    }
    return gauge, mark, note


def _plot(t: Any, w: Any, entropy: float, top: float) -> Json:
    """α as bars above, the entropy gauge below."""
    bars = charts.bars(
        WHO_NAMES,
        w.tolist(),
        [fmt.derived(float(x), 4) for x in w],
        [f"{n}: α = {fmt.significant(x, 10)}" for n, x in zip(WHO_NAMES, w, strict=True)],
        t.roles["weights"],
        t,
    )
    gauge, mark, note = _gauge(t, entropy, top)
    lay = charts.layout(
        t,
        380,
        charts.label_axis(t, WHO_NAMES) | {"anchor": "y"},
        charts.value_axis(t, "α", [0, 1.12], domain=[0.42, 1], dtick=0.25, anchor="x"),
        xaxis2=charts.value_axis(t, "entropy (bits)", [0, 2.1], anchor="y2", dtick=0.5),
        yaxis2=charts.value_axis(t, "", [-0.6, 0.6], domain=[0, 0.2], visible=False, anchor="x2"),
        shapes=[mark],
        annotations=[note],
    )
    return {"data": [bars, gauge], "layout": lay}


def build_worked_query(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    k = [list(r) for r in v["k"]]
    values = k if v["tied"] else [list(r) for r in v["v"]]
    body = {**WHO, "q": [list(v["q"])], "k": k, "v": values, "scale": bool(v["scale"])}
    h = ctx.run["attention"](body).head
    w = h.weights[0]
    entropy, top = float(h.row_entropy[0]), math.log2(3)
    spread = float(w.max() - w.min())
    close = (
        "barely separate" if spread < 0.1 else "separate" if spread < 0.5 else "separate clearly"
    )
    caption = (
        f"The weights {', '.join(fmt.derived(float(x), 4) for x in w)} {close} (largest minus "
        f"smallest {fmt.derived(spread, 4)}); the entropy {fmt.derived(entropy, 4)} bits is "
        f"{fmt.percent(entropy / top, 1)} of the maximum log₂ 3 = {fmt.derived(top, 4)} bits, "
        "where the query would have no preference at all."
    )
    readout = [
        f"√d_k = √3 = {fmt.derived(math.sqrt(3), 4)}" if v["scale"] else "scaling off: divisor 1",
        f"ζ = {_vec4(h.output[0])}",
        f"entropy {fmt.derived(entropy, 4)} of {fmt.derived(top, 4)} bits",
    ]
    return lab_figure(
        WORKED_QUERY,
        caption=caption,
        readout=readout,
        tables=_tables(h, values, bool(v["scale"])),
        table_view=True,
        alt=f"α bars "
        f"{', '.join(f'{n} {fmt.derived(float(x), 4)}' for n, x in zip(WHO_NAMES, w, strict=True))}"
        f" and an entropy gauge at {fmt.derived(entropy, 4)} of {fmt.derived(top, 4)} bits.",
        plot=_plot(ctx.theme, w, entropy, top),
        quotes=[
            {
                **source_of("textbook"),
                "text": "prints √3 = 1.7321 and α = 0.3369, 0.3019, 0.3611 for is, the, best.",
            }
        ],
    )


WORKED_QUERY = LabFigure(
    name="worked-query",
    entry="A3",
    title="One query, worked: “who”",
    intro="The “who” query of {textbook} against the keys “is”, “the” and “best”, with "
    "the values equal to the keys. The table is our reconstruction of the chapter's (see "
    "Sources), computed by the engine. Unlock “values = keys” to edit V.",
    teaching="Small, similar keys give close scores, so the weights barely separate; the "
    "entropy says how close the query is to having no preference.",
    build=build_worked_query,
    controls=(
        vector("q", "Query “who”", WHO["q"][0], -2, 2, 0.05),
        matrix("k", "Keys", WHO_KEYS, -2, 2, 0.05, labels=WHO_NAMES),
        matrix(
            "v", "Values", WHO_KEYS, -2, 2, 0.05, labels=WHO_NAMES, extra={"disabled_by": "tied"}
        ),
        toggle("scale", "Divide by √d_k", True),
        toggle("tied", "Values = keys (V = K)", True),
    ),
)
