"""A2, aim a query: drag q and read its scores with three keys and the weights that
follow. Attention runs through ``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import toggle, vector
from app.figures.style import arrow

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
        return f"points partly the way q points, so it scores {fmt.derived(score)}"
    return f"points away from q, so it scores {fmt.derived(score)}, below zero"


def _answer(q: tuple[float, ...], raw: np.ndarray, w: np.ndarray) -> str:
    if not any(q):
        return (
            "This q is the zero vector: every dot product is 0, so every key gets the "
            "same weight, 1/3."
        )
    parts = [
        f"{n} = ({fmt.derived(a, 0)}, {fmt.derived(b, 0)}) {_relation(float(s))}"
        for n, (a, b), s in zip(ALIGN_NAMES, ALIGN_KEYS, raw, strict=True)
    ]
    best, worst = int(np.argmax(w)), int(np.argmin(w))
    tie = np.sum(np.isclose(w, w[best], atol=1e-12)) > 1
    lead = (
        "Two keys tie for the largest weight. "
        if tie
        else f"{ALIGN_NAMES[best]} gets the largest weight, {fmt.derived(float(w[best]))}: a dot "
        "product measures how far two vectors point the same way, times their lengths. "
    )
    return (
        lead + "; ".join(parts) + ". Softmax still leaves "
        f"{fmt.derived(float(w[worst]))} on {ALIGN_NAMES[worst]}: no weight is ever exactly 0."
    )


def _plane_axes(t: Any) -> tuple[Json, Json]:
    """The plane of the arrows: square, −RANGE…RANGE both ways, above the bars."""
    x1 = charts.value_axis(t, "", [-RANGE, RANGE], domain=[0, 1], dtick=1, zeroline=True,
                           zerolinecolor=t.grid, anchor="y", constrain="domain")  # fmt: skip
    y1 = charts.value_axis(t, "", [-RANGE, RANGE], domain=[0.42, 1], dtick=1, zeroline=True,
                           zerolinecolor=t.grid, scaleanchor="x", anchor="x",
                           constrain="domain")  # fmt: skip
    return x1, y1


def _plot(t: Any, q: tuple[float, ...], raw: Any, w: Any, labels: list[str]) -> Json:
    """The keys and q as arrows (q draggable by its tip) above the weights as bars."""
    arrows = [
        a
        for n, (x, y) in zip(ALIGN_NAMES, ALIGN_KEYS, strict=True)
        for a in _arrow(x, y, t.roles["k"], n, t)
    ]
    arrows += _arrow(q[0], q[1], t.roles["q"], "q", t, below=True)
    bars_trace = charts.bars(
        labels,
        w.tolist(),
        [fmt.derived(x) for x in w],
        [
            f"{n}: q·k = {fmt.derived(float(r))}, weight {fmt.significant(x, 10)}"
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
    x1, y1 = _plane_axes(t)
    x2 = charts.label_axis(t, labels) | {"anchor": "y2"}
    y2 = charts.value_axis(t, "weight", [0, 1.15], domain=[0, 0.3], dtick=0.5, anchor="x2")
    layout = charts.layout(t, 560, x1, y1, xaxis2=x2, yaxis2=y2, annotations=arrows, shapes=[shaft])
    return {"data": [bars_trace], "layout": layout, "config": {"edits": {"shapePosition": True}}}


def build_alignment(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    q = tuple(float(x) for x in v["q"])
    keys = [list(k) for k in ALIGN_KEYS]
    stages = ctx.run["attention"](
        {"q": [list(q)], "k": keys, "v": keys, "tokens": ["q"], "scale": bool(v["scale"])}
    )
    h = stages.head
    raw, scaled, w = h.scores[0], h.scaled[0], h.weights[0]
    labels = [
        f"{n} ({fmt.derived(a, 0)}, {fmt.derived(b, 0)})"
        for n, (a, b) in zip(ALIGN_NAMES, ALIGN_KEYS, strict=True)
    ]
    divisor = f"÷ √2 = {fmt.derived(h.divisor, 4)}" if v["scale"] else "not divided (scaling off)"
    rows = [
        [fmt.derived(float(r)), fmt.derived(float(s)), fmt.derived(float(x))]
        for r, s, x in zip(raw, scaled, w, strict=True)
    ]
    best = int(np.argmax(w))
    return lab_figure(
        ALIGNMENT,
        caption=f"q = ({fmt.significant(q[0])}, {fmt.significant(q[1])}); the scores are q·k, "
        f"{divisor}. "
        f"{ALIGN_NAMES[best]} takes the largest weight, {fmt.derived(float(w[best]))}.",
        alt="Three keys and the query drawn as arrows from the origin; weights "
        + ", ".join(f"{n} {fmt.derived(float(x))}" for n, x in zip(ALIGN_NAMES, w, strict=True))
        + ".",
        plot=_plot(ctx.theme, q, raw, w, labels),
        tables=[table("Scores and weights", ["q·k", "scaled", "weight"], labels, rows)],
        readout=[
            f"output (V = K): ({fmt.derived(float(h.output[0][0]))}, "
            f"{fmt.derived(float(h.output[0][1]))})"
        ],
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
        vector(
            "q",
            "Query q",
            (1, 0),
            -2,
            2,
            0.05,
            labels=("x", "y"),
            extra={"snap": True},
            hint="Dragged or typed, q snaps to steps of 0.05 within −2…2; entries beyond "
            "±1,000,000 are refused.",
        ),
        toggle("scale", "Divide by √d_k", True),
    ),
)
