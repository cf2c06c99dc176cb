"""A4, queries that commit or average: each row's entropy against its bound log2(3),
on the preset ``dog-truck-barked``. Attention runs through ``ctx.run["attention"]``. PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import grid
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, number, toggle
from app.figures.labs.parts import preset_body

DTB = preset_body("dog-truck-barked")


MAX3 = math.log2(3)


def _vec3(x: np.ndarray[Any, Any]) -> str:
    return "(" + ", ".join(fmt.derived(float(a)) for a in x) + ")"


def _entropy_chart(t: Any, tokens: list[str], entropy: np.ndarray[Any, Any], row: int) -> Json:
    colours = [t.roles["q"] if i == row else t.muted for i in range(len(tokens))]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": list(range(len(tokens))),
        "x": entropy.tolist(),
        "marker": {"color": colours},
        "text": [f"{fmt.derived(e)} bits" for e in entropy],
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"color": t.fg},
        "customdata": [
            f"{tok}: entropy {fmt.significant(e, 10)} bits"
            for tok, e in zip(tokens, entropy, strict=True)
        ],
        "hovertemplate": "%{customdata}<extra></extra>",
    }
    mark = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": MAX3,
        "x1": MAX3,
        "y0": 0,
        "y1": 1,
        "line": {"color": t.fg, "dash": "dash", "width": 2},
    }
    y = charts.value_axis(
        t,
        "",
        [len(tokens) - 0.5, -0.5],
        tickmode="array",
        tickvals=list(range(len(tokens))),
        ticktext=tokens,
        showgrid=False,
    )
    x = charts.value_axis(
        t, "entropy in bits (0: commits to one key)", [0, 2.0], dtick=0.5, tickangle=0
    )
    note = {
        "text": f"log₂ 3 = {fmt.derived(MAX3)}: averages",
        "x": MAX3,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "showarrow": False,
        "xanchor": "right",
        "yanchor": "bottom",
        "font": {"color": t.muted, "size": 11},
    }
    layout = charts.layout(t, 230, x, y, shapes=[mark], annotations=[note])
    layout["margin"] = {"l": 80, "r": 40, "t": 24, "b": 48}
    return {"data": [trace], "layout": layout}


def build_discriminate(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, c, row = ctx.theme, float(v["c"]), int(v["row"])
    q = [[c, 0.0, 0.0], [0.0, c, 0.0], [1.0, 1.0, 1.0]]
    st = ctx.run["attention"]({**DTB, "q": q, "scale": bool(v["scale"])})
    h = st.head
    tokens, keys = list(st.tokens), list(st.key_tokens)
    div = f"÷ √3 = {fmt.derived(h.divisor, 4)}" if v["scale"] else "not divided"
    hover = [
        [
            f"{tokens[i]} → {keys[j]}: q·k = {fmt.derived(float(h.scores[i, j]), 4)}, {div} = "
            f"{fmt.derived(float(h.scaled[i, j]), 4)}, weight "
            f"{fmt.derived(float(h.weights[i, j]), 4)}; "
            f"output of {tokens[i]} = {_vec3(h.output[i])}"
            for j in range(3)
        ]
        for i in range(3)
    ]
    text = [[fmt.weight(w, 2) for w in r] for r in h.weights.tolist()]
    desc = grid(
        "weights",
        "A",
        h.weights,
        rows=tokens,
        cols=keys,
        theme=t.name,
        text=text,
        hover=hover,
        row_title="queries",
        col_title="keys",
        outline={"rows": [row]},
    )
    entropy = np.asarray(h.row_entropy)
    half = MAX3 / 2
    commit = [
        f"{tokens[i]} ({fmt.derived(entropy[i])} bits, {fmt.derived(float(h.row_max[i]))} on "
        f"{keys[h.row_argmax[i]]})"
        for i in range(3)
        if entropy[i] < half
    ]
    spread = [
        f"{tokens[i]} ({fmt.derived(entropy[i])} bits)" for i in range(3) if entropy[i] >= half
    ]
    parts = []
    if commit:
        parts.append("Commit (under half the maximum entropy): " + "; ".join(commit) + ".")
    if spread:
        parts.append("Spread out: " + "; ".join(spread) + f" of at most {fmt.derived(MAX3)} bits.")
    i = row
    caption = (
        f"Strength c = {fmt.significant(c)}. "
        + " ".join(parts)
        + f" {tokens[i]}'s output is {_vec3(h.output[i])}."
    )
    cells = [
        [fmt.derived(float(w), 4) for w in r] + [fmt.derived(e, 4)]
        for r, e in zip(h.weights, entropy, strict=True)
    ]
    return lab_figure(
        DISCRIMINATE,
        caption=caption,
        grids=[grid_item(desc, "Weights A (queries × keys)")],
        plot=_entropy_chart(t, tokens, entropy, row),
        alt="Entropy of each query's weights: "
        + ", ".join(f"{tok} {fmt.derived(e)} bits" for tok, e in zip(tokens, entropy, strict=True))
        + ".",
        tables=[table("Weights and entropy (bits)", [*keys, "entropy"], tokens, cells)],
        readout=[
            f"maximum for three keys: log₂ 3 = {fmt.derived(MAX3, 4)} bits",
            f"{tokens[i]}: output {_vec3(h.output[i])}",
        ],
    )


DISCRIMINATE = LabFigure(
    name="discriminate",
    entry="A4",
    title="Queries that commit, and one that averages",
    intro="Keys for three meanings (animal, vehicle, verb): dog, truck and barked, with the "
    "values equal to the keys. The first two queries seek an animal and a vehicle with "
    "strength c; the third matches every key about equally. The keys are those of "
    "{textbook}; the queries are our example (see Sources).",
    teaching="A query commits only when it matches one key clearly better than the rest, by "
    "enough to survive the divisor; a query that matches all keys alike has nothing to choose.",
    build=build_discriminate,
    badges=("our example",),
    controls=(
        number("c", "Strength c of the first two queries", 5, 0, 10, 0.5, extra={"slider": True}),
        choice("row", "Highlight the query", 0, [(i, tok) for i, tok in enumerate(DTB["tokens"])]),
        toggle("scale", "Divide by √d_k", True),
    ),
)
