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


ALIGN_NAMES = ("k_1", "k_2", "k_3")


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


def _pair(a: float, b: float) -> str:
    return f"({fmt.value(a)}, {fmt.value(b)})"


def _key(j: int) -> str:
    """'k_1 = (1, 0)'."""
    return f"{ALIGN_NAMES[j]} = {_pair(*ALIGN_KEYS[j])}"


def _relation(q: tuple[float, ...], k: tuple[float, float], score: float) -> str:
    """How key k lies against q, in words true for these two vectors, and its score."""
    qv, kv = np.asarray(q[:2], dtype=np.float64), np.asarray(k, dtype=np.float64)
    cos = score / float(np.linalg.norm(qv) * np.linalg.norm(kv))
    said = f"so q·k = {fmt.value(score)}"
    if np.allclose(qv, kv, atol=1e-12):
        return f"is q itself, {said}, the squared length of q"
    if cos > 1 - 1e-12:
        return f"points exactly the way q points, {said}"
    if cos < -1 + 1e-12:
        return f"points exactly against q, {said}, below zero"
    if abs(score) < 1e-12:
        return f"is perpendicular to q, {said}"
    if score > 0:
        return f"points partly the way q points, {said}"
    return f"points partly against q, {said}, below zero"


def _ties(w: np.ndarray) -> list[int]:
    return [j for j in range(len(w)) if abs(float(w[j]) - float(w.max())) <= 1e-12]


def _why(q: tuple[float, ...], raw: np.ndarray, w: np.ndarray) -> str:
    """One line: which key wins and why, for this q."""
    top = _ties(w)
    if not any(q[:2]):
        return (
            "q is the zero vector: every dot product is 0, so the three keys tie at "
            f"{fmt.weight(float(w[0]), 3)} each."
        )
    if len(top) > 1:
        names = " and ".join(ALIGN_NAMES[j] for j in top)
        return (
            f"{names} have the same dot product with q, {fmt.value(float(raw[top[0]]))}, so "
            f"softmax gives them the same weight, {fmt.weight(float(w[top[0]]), 3)}."
        )
    j = top[0]
    return (
        f"{ALIGN_NAMES[j]} has the largest dot product with q, {fmt.value(float(raw[j]))}, and "
        f"softmax gives the largest score the largest weight, {fmt.weight(float(w[j]), 3)}."
    )


def _answer(q: tuple[float, ...], raw: np.ndarray, w: np.ndarray) -> str:
    """The full answer: each key against q, then what softmax leaves on the weakest key."""
    if not any(q[:2]):
        return _why(q, raw, w)
    parts = [
        f"{_key(j)} {_relation(q, ALIGN_KEYS[j], float(raw[j]))}" for j in range(len(ALIGN_KEYS))
    ]
    worst = int(np.argmin(w))
    return (
        "A dot product measures how far two vectors point the same way, times their "
        "lengths: "
        + "; ".join(parts)
        + f". Softmax still leaves {fmt.small_weight(float(w[worst]), 3)} on "
        f"{ALIGN_NAMES[worst]}: a finite score always keeps some weight. Only a mask makes "
        "a weight exactly 0 (the masks lab, D1)."
    )


def _reveal(q: tuple[float, ...], raw: np.ndarray, w: np.ndarray) -> Json:
    """The stop-and-try question for this q, its choices and its answer (the page hides
    the figure until the reader checks a guess)."""
    top = _ties(w)
    choices = [[ALIGN_NAMES[j], _key(j)] for j in range(len(ALIGN_KEYS))]
    choices.append(["tie", "two or more keys tie"])
    correct = ALIGN_NAMES[top[0]] if len(top) == 1 else "tie"
    label = _key(top[0]) if len(top) == 1 else " and ".join(ALIGN_NAMES[j] for j in top) + " tie"
    return {
        "question": f"With q = {_pair(q[0], q[1])} and the keys "
        + ", ".join(_key(j) for j in range(2))
        + f" and {_key(2)}, which key gets the largest weight?",
        "choices": choices,
        "correct": correct,
        "correct_label": label,
        "why": _why(q, raw, w),
        "answer": _answer(q, raw, w),
    }


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
        [fmt.weight(float(x), 3) for x in w],
        [
            f"{n}: q·k = {fmt.value(float(r))}, weight {fmt.significant(x, 10)}"
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
    labels = [f"{n} {_pair(a, b)}" for n, (a, b) in zip(ALIGN_NAMES, ALIGN_KEYS, strict=True)]
    divisor = (
        f"divided by √2 ≈ {fmt.derived(h.divisor, 3)}"
        if v["scale"]
        else "not divided (scaling off)"
    )
    rows = [
        [fmt.value(float(r)), fmt.derived(float(s), 3), fmt.weight(float(x), 3)]
        for r, s, x in zip(raw, scaled, w, strict=True)
    ]
    reveal = _reveal(q, raw, w)
    return lab_figure(
        ALIGNMENT,
        caption=f"q = {_pair(q[0], q[1])}; the scores are q·k, {divisor}. The weights are "
        + ", ".join(f"{n} {fmt.weight(float(x), 3)}" for n, x in zip(ALIGN_NAMES, w, strict=True))
        + ".",
        alt="Three keys and the query drawn as arrows from the origin; weights "
        + ", ".join(f"{n} {fmt.weight(float(x), 3)}" for n, x in zip(ALIGN_NAMES, w, strict=True))
        + ".",
        plot=_plot(ctx.theme, q, raw, w, labels),
        tables=[table("Scores and weights", ["q·k", "scaled", "weight"], labels, rows)],
        readout=[
            f"output (V = K): ({fmt.output(float(h.output[0][0]))}, "
            f"{fmt.output(float(h.output[0][1]))})",
            reveal["answer"],
        ],
        reveal=reveal,
        drag={"control": "q", "shape": 0},
    )


ALIGNMENT = LabFigure(
    name="alignment",
    entry="A2",
    title="Stop and try: which key wins?",
    intro="{qkv-notes} ask: which key gets the largest weight, and why? Decide first: "
    "the chart appears once you check a guess. Then type the query, or drag the tip of its "
    "arrow. The three keys stay fixed and the values are the keys.",
    teaching="A dot product measures alignment and length. Without a mask, softmax leaves "
    "some weight on every key, even the one pointing the other way.",
    build=build_alignment,
    asks=True,
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
