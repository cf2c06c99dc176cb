"""Figure 12: softmax saturation. The same scores before and after a stretch factor.

Uses the engine's ``softmax_stage`` for both sides. The row is the textbook [1, 2, 3] or
the focus row of the current scaled (masked) scores. Shows the weights (4 decimals on both
sides, so a number that differs between the two sides has changed), the largest weight p,
the entropy, and p(1 − p), the gradient factor that vanishes as p → 1. At × 1 nothing
changes, and the words say so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.attention import SoftmaxStage, softmax_stage
from app.figures import derive, fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import Json, annotation, axis, base_layout

TEXTBOOK = (1.0, 2.0, 3.0)
DP = 4  # every weight and statistic of this figure, before and after alike


def _row(c: Ctx) -> tuple[np.ndarray[Any, Any], list[str], str]:
    """The scores to stretch, their labels, and a phrase naming where they come from."""
    if c.view.softmax_row == "focus":
        row = c.h.masked[c.focus]
        return (
            row,
            c.key_tokens,
            f"the scaled scores of {c.focus_token} (row {c.focus + 1}){c.head_note}",
        )
    return (
        np.asarray(TEXTBOOK),
        [f"score {i + 1}" for i in range(3)],
        'the scores [1, 2, 3] of the tutorial "Self-Attention"',
    )


def _bars(s: SoftmaxStage, labels: list[str], dp: int, n: int, color: str, t: Any) -> Json:
    sfx = "" if n == 1 else str(n)
    text = [fmt.small_weight(w, dp) for w in s.weights[0].tolist()]
    hover = derive.weight_grid(s.stretched, s.exps, s.exp_shift, s.weights, dp)[0]
    return {
        "type": "bar",
        "x": list(range(len(labels))),
        "y": s.weights[0].tolist(),
        "text": text if len(labels) <= 16 else None,
        "textposition": "outside",
        "cliponaxis": False,
        "customdata": hover,
        "hovertemplate": "%{customdata}<extra></extra>",
        "marker": {"color": color, "line": {"color": t.outline, "width": 1}},
        "textfont": {"color": t.fg},
        "xaxis": f"x{sfx}",
        "yaxis": f"y{sfx}",
    }


def stats_line(s: SoftmaxStage, dp: int) -> list[str]:
    return [
        fmt.weight(float(s.max_weight[0]), dp),
        fmt.derived(float(s.entropy[0]), dp),
        fmt.derived(float(s.gradient_term[0]), dp),
    ]


def _vector(values: list[str]) -> str:
    return "[" + fmt.listing(values, 10) + "]"


def build(c: Ctx) -> dict[str, Any]:
    t = c.t
    scores, labels, source = _row(c)
    k = c.view.stretch
    before, after = softmax_stage(scores, 1.0), softmax_stage(scores, k)
    sv = [fmt.value(v) for v in before.scores[0].tolist()]
    st = [fmt.value(v) for v in after.stretched[0].tolist()]
    traces = [
        _bars(before, labels, DP, 1, t.roles["weights"], t),
        _bars(after, labels, DP, 2, t.roles["weights"], t),
    ]
    layout = _layout(t, labels, k, stacked=False)
    w0 = [fmt.small_weight(w, DP) for w in before.weights[0].tolist()]
    w1 = [fmt.small_weight(w, DP) for w in after.weights[0].tolist()]
    b, a = stats_line(before, DP), stats_line(after, DP)
    same = w0 == w1  # × 1, or a row the stretch cannot move: no arrow, no false change
    if same:
        allowed = int(np.isfinite(scores).sum())
        why = (
            f"leaves the scores {_vector(sv)} as they are"
            if sv == st
            else f"gives {_vector(st)}, but "
            + ("only one key is allowed, and its weight is 1 at any stretch" if allowed == 1
               else "not enough to move the weights at 4 decimals")
        )  # fmt: skip
        readout = [
            f"× {fmt.value(k)} {why}, so the weights are unchanged: {_vector(w0)}.",
            f"Largest weight p: {b[0]}. Entropy: {b[1]} bits. p(1 − p): {b[2]}.",
        ]
    else:
        readout = [
            f"{_vector(sv)} gives {_vector(w0)}; "
            f"× {fmt.value(k)} gives {_vector(st)} and {_vector(w1)}.",
            f"Largest weight p: {b[0]} → {a[0]}. Entropy: {b[1]} → {a[1]} bits. "
            f"p(1 − p): {b[2]} → {a[2]}.",
        ]
    square = round(k * k)
    if k > 1 and abs(k * k - square) < 1e-9:
        readout.append(
            f"× {fmt.value(k)} is √{square}: a dot product of d_k = {square} numbers is "
            f"typically about √{square} = {fmt.value(k)} times larger than one of a single pair, "
            f"so this stretch is what skipping the division by √d_k does at d_k = {square}."
        )
    if float(after.gradient_term[0]) < 0.01 <= float(before.gradient_term[0]):
        readout.append(
            "After stretching, p(1 − p) is below 0.01: the gradient through the largest weight "
            "has almost vanished, so learning through this row stalls."
        )
    effect = "At this stretch the weights do not change."
    if not same:
        effect = _effect(before, after, b[0], a[0])
    caption = f"Softmax of {source}, as they are and multiplied by {fmt.value(k)}. {effect}"
    if c.view.softmax_row == "focus" and c.focus in c.blocked_rows:
        caption += " This row has no allowed key, so every weight is 0."
    return figure(
        12,
        c.titles[12],
        caption,
        f"Two bar charts of softmax weights: of the scores, {_vector(w0)}; of the scores "
        f"× {fmt.value(k)}, "
        f"{_vector(w1)}.",
        traces,
        layout,
        readout=readout,
        tables=[
            table(
                "Scores and weights before and after stretching",
                ["score", "weight", f"score × {fmt.value(k)}", "weight after"],
                labels,
                [list(r) for r in zip(sv, w0, st, w1, strict=True)],
            ),
            table(
                "Row statistics",
                ["largest weight p", "entropy (bits)", "p(1 − p)"],
                ["before", f"after × {fmt.value(k)}"],
                [b, a],
            ),
        ],
        derivations={"0": [traces[0]["customdata"]], "1": [traces[1]["customdata"]]},
        narrow={"data": traces, "layout": _layout(t, labels, k, stacked=True)},
    )


def _layout(t: Any, labels: list[str], k: float, *, stacked: bool) -> Json:
    """Two bar charts side by side, or (``stacked``, a phone's portrait variant) one above
    the other at full width, where a half-width panel would crowd its labels together."""
    axes: Json = {}
    for n in (1, 2):
        sfx = "" if n == 1 else str(n)
        x = axis(t, labels)
        x_dom, y_dom = ([0.0, 1.0], [0.6, 0.94] if n == 1 else [0.0, 0.34]) if stacked else (
            [0.0, 0.45] if n == 1 else [0.55, 1.0], [0.0, 0.85])  # fmt: skip
        x.update(domain=x_dom, anchor=f"y{sfx}")
        y = {
            "type": "linear",
            "domain": y_dom,
            "range": [0, 1.15],
            "anchor": f"x{sfx}",
            "color": t.fg,
            "gridcolor": t.grid,
            "fixedrange": True,
            "zeroline": False,
            "ticklabeloverflow": "allow",  # no label box measuring on redraws (see style.axis)
            "title": {"text": "weight" if n == 1 or stacked else "", "font": {"color": t.muted}},
        }
        axes[f"xaxis{sfx}"], axes[f"yaxis{sfx}"] = x, y
    second = (0.0, 0.42) if stacked else (0.55, 1.0)
    anns = [
        # Both charts draw weights (in the weights' one colour); the titles say of what,
        # short enough for half a phone's width (the readout says when × k is a √d_k).
        annotation("<b>weights of</b><br>the scores", 0.0, 1.0, t, xanchor="left"),
        annotation(
            f"<b>weights of</b><br>scores × {fmt.value(k)}", second[0], second[1], t, xanchor="left"
        ),
    ]
    layout = base_layout(t, 560 if stacked else 340, "", annotations=anns, bargap=0.3, **axes)
    layout["margin"].update(t=64)
    return layout


def _effect(before: SoftmaxStage, after: SoftmaxStage, p0: str, p1: str) -> str:
    """What the stretch did, in words computed from the two stages."""
    same = bool(np.array_equal(np.argsort(before.weights[0]), np.argsort(after.weights[0])))
    order = "The order of the weights is unchanged, but " if same else "Note: "
    gain = float(after.max_weight[0] - before.max_weight[0])
    if gain > 0.005:
        return (
            f"{order}the largest weight grows from {p0} to {p1}: stretched scores push the "
            "weight onto the top score. Dividing by √d_k keeps scores from growing like this "
            "as d_k grows."
        )
    if gain < -0.005:
        return f"{order}the largest weight shrinks from {p0} to {p1}: the weights even out."
    return "The largest weight hardly changes at this stretch."
