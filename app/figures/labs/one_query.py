"""Lab `one-query` (LABS.md §3, entries A1–A5): one query, by hand.

PURE. Each builder takes its control values and a FigureContext and returns a lab figure.
A1 runs the engine's softmax stage on the scores; A2–A5 run attention through
``ctx.run["attention"]`` (a request body -> the engine's Stages, validated by the route).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.attention import softmax_stage
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import matrix, number, toggle, vector
from app.figures.style import arrow
from app.inputs.presets import get_preset

ITEMS = ("item 0", "item 1", "item 2")


def preset_body(name: str) -> dict[str, Any]:
    """A preset's request body (the fixtures of LABS.md live in app.inputs.presets)."""
    found = get_preset(name)
    assert found is not None, name
    return dict(found["body"])


def f3(x: float) -> str:
    return f"{x:.3f}".replace("-0.000", "0.000")


def f4(x: float) -> str:
    return f"{x:.4f}".replace("-0.0000", "0.0000")


def signed(x: float, dp: int = 3) -> str:
    return f"{x:.{dp}f}".replace("-", "−")


# ---------------------------------------------------------------- A1 softmax table


def build_softmax_table(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    scores = np.asarray(v["scores"], dtype=np.float64) + float(v["shift"])
    values = np.asarray(v["values"], dtype=np.float64)
    s = softmax_stage(scores, values=values)
    exps, weights = s.exps[0] * np.exp(s.exp_shift[0]), s.weights[0]
    contrib = weights * values
    assert s.output is not None
    output = float(s.output[0][0])
    cells = [
        [f3(scores[j]), f3(exps[j]), f3(weights[j]), f3(values[j]), f3(contrib[j])]
        for j in range(3)
    ]
    cols = ["score", "exponential", "weight", "value", "weight × value"]
    main = table("Three scores become weights and an output (3 decimals)", cols, list(ITEMS), cells)
    total = table(
        "Totals",
        ["value"],
        ["sum of the exponentials", "output Σ weight × value"],
        [[f3(float(exps.sum()))], [f3(output)]],
    )
    top = int(np.argmax(weights))
    caption = (
        f"{ITEMS[top]} has the highest score and takes {f3(weights[top])} of the weight"
        + (", not all of it" if weights[top] < 1 - 5e-4 else "")
        + f". The output {f3(output)} is the weighted average of the values "
        f"{', '.join(f3(x) for x in values)}."
    )
    shift = float(v["shift"])
    if shift != 0:
        caption += (
            f" Adding {signed(shift, 1)} to every score multiplied every exponential and "
            f"their sum by e^{signed(shift, 1)} = {f3(math.exp(shift))}, so the weights "
            "are those of the unshifted scores."
        )
    plot = charts.weight_bars(t, ITEMS, weights.tolist())
    return lab_figure(
        SOFTMAX_TABLE,
        caption=caption,
        plot=plot,
        tables=[main, total],
        table_view=True,
        alt="Weight bars: "
        + ", ".join(f"{i} {f3(w)}" for i, w in zip(ITEMS, weights, strict=True)),
        readout=[f"sum of exponentials {f3(float(exps.sum()))}", f"output {f3(output)}"],
        quotes=[
            {
                "source": "the queries/keys/values notes",
                "text": "For scores 2, 1 and 0 they call the first weight “approximately two "
                "thirds”.",
            }
        ],
    )


SOFTMAX_TABLE = LabFigure(
    name="softmax-table",
    entry="A1",
    title="Three scores become weights and an output",
    intro="Edit the three scores and values. The table follows each score through its "
    "exponential to its weight, and each weight times its value into the output.",
    teaching="The top score takes most of the weight, not all of it, and the output is a "
    "weighted average of the values. Try the shift: what does adding the same number to "
    "every score change?",
    build=build_softmax_table,
    controls=(
        vector("scores", "Scores", (2, 1, 0), -10, 10, 0.1, labels=ITEMS),
        vector("values", "Values", (1, 2, 3), -10, 10, 0.1, labels=ITEMS),
        number("shift", "Shift c, added to every score", 0, -5, 5, 0.1, extra={"slider": True}),
    ),
)


# ---------------------------------------------------------------- A2 which key wins?

ALIGN_KEYS = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0))
ALIGN_NAMES = ("k0", "k1", "k2")
RANGE = 2.2


def _arrow(x: float, y: float, color: str, text: str, t: Any, below: bool = False) -> list[Json]:
    """An arrow from the origin to (x, y) and its label just past the tip."""
    head = arrow((x, y), (0, 0), color, 3, standoff=0)
    label = {
        "x": x,
        "y": y,
        "xref": "x",
        "yref": "y",
        "showarrow": False,
        "text": text,
        "font": {"color": t.fg, "size": 12},
        "xanchor": "left" if x >= 0 else "right",
        "yanchor": "top" if below or y < 0 else "bottom",
        "xshift": 4 if x >= 0 else -4,
        "yshift": -6 if below or y < 0 else 4,
    }
    return [head, label]


def _relation(score: float) -> str:
    if abs(score) < 1e-12:
        return "perpendicular to q, so it scores 0"
    if score > 0:
        return f"points partly the way q points, so it scores {signed(score)}"
    return f"points away from q, so it scores {signed(score)}, below zero"


def _answer(q: tuple[float, ...], raw: np.ndarray, w: np.ndarray) -> str:
    if not any(q):
        return (
            "This q is the zero vector: every dot product is 0, so every key gets the "
            "same weight, 1/3."
        )
    parts = [
        f"{n} = ({signed(a, 0)}, {signed(b, 0)}) {_relation(float(s))}"
        for n, (a, b), s in zip(ALIGN_NAMES, ALIGN_KEYS, raw, strict=True)
    ]
    best, worst = int(np.argmax(w)), int(np.argmin(w))
    tie = np.sum(np.isclose(w, w[best], atol=1e-12)) > 1
    lead = (
        "Two keys tie for the largest weight. "
        if tie
        else f"{ALIGN_NAMES[best]} gets the largest weight, {f3(float(w[best]))}: a dot "
        "product measures how far two vectors point the same way, times their lengths. "
    )
    return (
        lead + "; ".join(parts) + ". Softmax still leaves "
        f"{f3(float(w[worst]))} on {ALIGN_NAMES[worst]}: no weight is ever exactly 0."
    )


def build_alignment(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    q = tuple(float(x) for x in v["q"])
    keys = [list(k) for k in ALIGN_KEYS]
    stages = ctx.run["attention"](
        {"q": [list(q)], "k": keys, "v": keys, "tokens": ["q"], "scale": bool(v["scale"])}
    )
    h = stages.head
    raw, scaled, w = h.scores[0], h.scaled[0], h.weights[0]
    arrows = [
        a
        for n, (x, y) in zip(ALIGN_NAMES, ALIGN_KEYS, strict=True)
        for a in _arrow(x, y, t.roles["k"], n, t)
    ]
    arrows += _arrow(q[0], q[1], t.roles["q"], "q", t, below=True)
    labels = [
        f"{n} ({signed(a, 0)}, {signed(b, 0)})"
        for n, (a, b) in zip(ALIGN_NAMES, ALIGN_KEYS, strict=True)
    ]
    bars_trace = charts.bars(
        labels,
        w.tolist(),
        [f3(x) for x in w],
        [
            f"{n}: q·k = {signed(float(r))}, weight {x:.10g}"
            for n, r, x in zip(ALIGN_NAMES, raw, w, strict=True)
        ],
        t.roles["weights"],
        t,
        xaxis="x2",
        yaxis="y2",
    )
    # q as a line shape the reader can drag by its tip (config edits.shapePosition); the
    # page sends the tip's position as the control's value and the server snaps it.
    shaft = {
        "type": "line",
        "xref": "x",
        "yref": "y",
        "x0": 0,
        "y0": 0,
        "x1": q[0],
        "y1": q[1],
        "line": {"color": t.roles["q"], "width": 4},
    }
    x1 = charts.value_axis(
        t,
        "",
        [-RANGE, RANGE],
        domain=[0, 1],
        dtick=1,
        zeroline=True,
        zerolinecolor=t.grid,
        anchor="y",
        constrain="domain",
    )
    y1 = charts.value_axis(
        t,
        "",
        [-RANGE, RANGE],
        domain=[0.42, 1],
        dtick=1,
        zeroline=True,
        zerolinecolor=t.grid,
        scaleanchor="x",
        anchor="x",
        constrain="domain",
    )
    x2 = charts.label_axis(t, labels) | {"anchor": "y2"}
    y2 = charts.value_axis(t, "weight", [0, 1.15], domain=[0, 0.3], dtick=0.5, anchor="x2")
    layout = charts.layout(t, 560, x1, y1, xaxis2=x2, yaxis2=y2, annotations=arrows, shapes=[shaft])
    divisor = f"÷ √2 = {f4(h.divisor)}" if v["scale"] else "not divided (scaling off)"
    rows = [
        [signed(float(r)), signed(float(s)), f3(float(x))]
        for r, s, x in zip(raw, scaled, w, strict=True)
    ]
    best = int(np.argmax(w))
    return lab_figure(
        ALIGNMENT,
        caption=f"q = ({q[0]:g}, {q[1]:g}); the scores are q·k, {divisor}. "
        f"{ALIGN_NAMES[best]} takes the largest weight, {f3(float(w[best]))}.",
        alt="Three keys and the query drawn as arrows from the origin; weights "
        + ", ".join(f"{n} {f3(float(x))}" for n, x in zip(ALIGN_NAMES, w, strict=True))
        + ".",
        plot={"data": [bars_trace], "layout": layout, "config": {"edits": {"shapePosition": True}}},
        tables=[table("Scores and weights", ["q·k", "scaled", "weight"], labels, rows)],
        readout=[f"output (V = K): ({f3(float(h.output[0][0]))}, {f3(float(h.output[0][1]))})"],
        reveal={
            "question": "With the query (1, 0) and the keys (1, 0), (0, 1) and (−1, 0), "
            "which key gets the largest weight, and why? Decide, then open "
            "the answer (it follows the q you set).",
            "answer": _answer(q, raw, w),
        },
        drag={"control": "q", "shape": 0},
    )


ALIGNMENT = LabFigure(
    name="alignment",
    entry="A2",
    title="Stop and try: which key wins?",
    intro="Type the query, or drag the tip of its arrow. The three keys stay fixed and "
    "the values are the keys.",
    teaching="A dot product measures alignment and length. Softmax still leaves some weight "
    "on every key, even the one pointing the other way.",
    build=build_alignment,
    controls=(
        vector("q", "Query q", (1, 0), -2, 2, 0.05, labels=("x", "y"), extra={"snap": True}),
        toggle("scale", "Divide by √d_k", True),
    ),
)


# ---------------------------------------------------------------- A3 the "who" query

WHO = preset_body("who-is-the-best")
WHO_KEYS = tuple(tuple(r) for r in WHO["k"])
WHO_NAMES = tuple(WHO["key_tokens"])


def _vec(x: np.ndarray) -> str:
    return "(" + ", ".join(f4(float(a)) for a in x) + ")"


def build_worked_query(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    k = [list(r) for r in v["k"]]
    values = k if v["tied"] else [list(r) for r in v["v"]]
    body = {**WHO, "q": [list(v["q"])], "k": k, "v": values, "scale": bool(v["scale"])}
    stages = ctx.run["attention"](body)
    h = stages.head
    raw, scaled, w = h.scores[0], h.scaled[0], h.weights[0]
    exps = h.exps[0] * np.exp(h.exp_shift[0])
    vv = np.asarray(values, dtype=np.float64)
    rows = [
        [
            f4(float(raw[j])),
            f4(float(scaled[j])),
            f4(float(exps[j])),
            f4(float(w[j])),
            _vec(w[j] * vv[j]),
        ]
        for j in range(3)
    ]
    zeta = _vec(h.output[0])
    entropy, top = float(h.row_entropy[0]), math.log2(3)
    div = "÷√d_k" if v["scale"] else "÷1 (off)"
    main = table(
        f"One query against three keys (4 decimals); {div}",
        ["q·k", div, "e^s", "α", "α·v"],
        list(WHO_NAMES),
        rows,
    )
    out = table("The output ζ = Σ α·v", ["value"], ["ζ"], [[zeta]])
    bars = charts.bars(
        WHO_NAMES,
        w.tolist(),
        [f4(float(x)) for x in w],
        [f"{n}: α = {x:.10g}" for n, x in zip(WHO_NAMES, w, strict=True)],
        t.roles["weights"],
        t,
    )
    gauge = {
        "type": "bar",
        "orientation": "h",
        "x": [entropy],
        "y": [0],
        "xaxis": "x2",
        "yaxis": "y2",
        "marker": {"color": t.roles["q"]},
        "text": [f"{entropy:.4f} bits"],
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"color": t.fg},
        "hovertemplate": f"entropy {entropy:.10g} bits<extra></extra>",
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
        "text": f"maximum log₂ 3 = {top:.4f} bits",
        "x": top,
        "y": 0.5,
        "xref": "x2",
        "yref": "y2",
        "showarrow": False,
        "yanchor": "bottom",
        "xanchor": "right",
        "font": {"color": t.muted, "size": 11},
    }
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
    spread = float(w.max() - w.min())
    close = (
        "barely separate" if spread < 0.1 else "separate" if spread < 0.5 else "separate clearly"
    )
    caption = (
        f"The weights {', '.join(f4(float(x)) for x in w)} {close} (largest minus "
        f"smallest {f4(spread)}); the entropy {entropy:.4f} bits is "
        f"{100 * entropy / top:.1f} % of the maximum log₂ 3 = {top:.4f} bits, "
        "where the query would have no preference at all."
    )
    readout = [
        f"√d_k = √3 = {math.sqrt(3):.4f}" if v["scale"] else "scaling off: divisor 1",
        f"ζ = {zeta}",
        f"entropy {entropy:.4f} of {top:.4f} bits",
    ]
    return lab_figure(
        WORKED_QUERY,
        caption=caption,
        readout=readout,
        tables=[main, out],
        table_view=True,
        alt=f"α bars {', '.join(f'{n} {f4(float(x))}' for n, x in zip(WHO_NAMES, w, strict=True))}"
        f" and an entropy gauge at {entropy:.4f} of {top:.4f} bits.",
        plot={"data": [bars, gauge], "layout": lay},
        quotes=[
            {
                "source": "the textbook chapter",
                "text": "prints √3 = 1.7321 and α = 0.3369, 0.3019, 0.3611 for is, the, best.",
            }
        ],
    )


WORKED_QUERY = LabFigure(
    name="worked-query",
    entry="A3",
    title="One query, worked: “who”",
    intro="The textbook chapter's “who” query against the keys “is”, “the” and “best”, "
    "with the values equal to the keys. The chapter's table is missing, so the page "
    "rebuilds it from the engine. Unlock “values = keys” to edit V.",
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
