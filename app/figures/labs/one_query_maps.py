"""Lab `one-query`, entries A4 (queries that commit or average) and A5 (one map, two maps,
no projections). PURE: the engine runs through ``ctx.run["attention"]``; grids are
described with ``app.figures.grid`` and drawn by static/js/grid.js."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures.grid import grid
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, number, toggle
from app.figures.labs.one_query import f3, f4, preset_body

DTB = preset_body("dog-truck-barked")
MAX3 = math.log2(3)


def _vec(x: np.ndarray[Any, Any]) -> str:
    return "(" + ", ".join(f3(float(a)) for a in x) + ")"


# ---------------------------------------------------------------- A4 commit or average


def _entropy_chart(t: Any, tokens: list[str], entropy: np.ndarray[Any, Any], row: int) -> Json:
    colours = [t.roles["q"] if i == row else t.muted for i in range(len(tokens))]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": list(range(len(tokens))),
        "x": entropy.tolist(),
        "marker": {"color": colours},
        "text": [f"{e:.3f} bits" for e in entropy],
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"color": t.fg},
        "customdata": [
            f"{tok}: entropy {e:.10g} bits" for tok, e in zip(tokens, entropy, strict=True)
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
        "text": f"log₂ 3 = {MAX3:.3f}: averages",
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
    div = f"÷ √3 = {h.divisor:.4f}" if v["scale"] else "not divided"
    hover = [
        [
            f"{tokens[i]} → {keys[j]}: q·k = {f4(float(h.scores[i, j]))}, {div} = "
            f"{f4(float(h.scaled[i, j]))}, weight {f4(float(h.weights[i, j]))}; "
            f"output of {tokens[i]} = {_vec(h.output[i])}"
            for j in range(3)
        ]
        for i in range(3)
    ]
    text = [[f"{w:.2f}" for w in r] for r in h.weights.tolist()]
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
        f"{tokens[i]} ({entropy[i]:.3f} bits, {f3(float(h.row_max[i]))} on {keys[h.row_argmax[i]]})"
        for i in range(3)
        if entropy[i] < half
    ]
    spread = [f"{tokens[i]} ({entropy[i]:.3f} bits)" for i in range(3) if entropy[i] >= half]
    parts = []
    if commit:
        parts.append("Commit (under half the maximum entropy): " + "; ".join(commit) + ".")
    if spread:
        parts.append("Spread out: " + "; ".join(spread) + f" of at most {MAX3:.3f} bits.")
    i = row
    caption = (
        f"Strength c = {c:g}. " + " ".join(parts) + f" {tokens[i]}'s output is {_vec(h.output[i])}."
    )
    cells = [
        [f4(float(w)) for w in r] + [f"{e:.4f}"] for r, e in zip(h.weights, entropy, strict=True)
    ]
    return lab_figure(
        DISCRIMINATE,
        caption=caption,
        grids=[grid_item(desc, "Weights A (queries × keys)")],
        plot=_entropy_chart(t, tokens, entropy, row),
        alt="Entropy of each query's weights: "
        + ", ".join(f"{tok} {e:.3f} bits" for tok, e in zip(tokens, entropy, strict=True))
        + ".",
        tables=[table("Weights and entropy (bits)", [*keys, "entropy"], tokens, cells)],
        readout=[
            f"maximum for three keys: log₂ 3 = {MAX3:.4f} bits",
            f"{tokens[i]}: output {_vec(h.output[i])}",
        ],
    )


DISCRIMINATE = LabFigure(
    name="discriminate",
    entry="A4",
    title="Queries that commit, and one that averages",
    intro="Keys for three meanings (animal, vehicle, verb): dog, truck and barked, with the "
    "values equal to the keys. The first two queries seek an animal and a vehicle with "
    "strength c; the third matches every key about equally. These queries are our "
    "reconstruction: the chapter's own are missing.",
    teaching="A query commits only when it matches one key clearly better than the rest, by "
    "enough to survive the divisor; a query that matches all keys alike has nothing to choose.",
    build=build_discriminate,
    badges=("reconstructed",),
    controls=(
        number("c", "Strength c of the first two queries", 5, 0, 10, 0.5, extra={"slider": True}),
        choice("row", "Highlight the query", 0, [(i, tok) for i, tok in enumerate(DTB["tokens"])]),
        toggle("scale", "Divide by √d_k", True),
    ),
)


# ---------------------------------------------------------------- A5 one map or two

MAPS = (
    ("two", "two maps: W^Q and W^K"),
    ("one", "one map: W^K := W^Q"),
    ("none", "no projections: Q = K = V = X"),
)


def variant(body: Mapping[str, Any], maps: str) -> tuple[dict[str, Any], str]:
    """The body for ``maps`` and a note on what was changed to make it."""
    base = {k: val for k, val in body.items() if k not in ("source", "w_o", "padding", "allowed")}
    base["heads"] = 1
    note = " (self-attention, one head, for this comparison)" if base != dict(body) else ""
    if base.get("x") is None:  # direct mode: the rows of Q stand in for X
        if maps == "one":
            base["k"] = base["q"]
        if maps == "none":
            base["k"], base["v"] = base["q"], base["q"]
        return base, note + (" Direct mode: the rows of Q stand for X." if maps != "two" else "")
    if maps == "one":
        base["w_k"] = base["w_q"]
    if maps == "none":
        x = base["x"]
        base = {
            "q": x,
            "k": x,
            "v": x,
            "tokens": base.get("tokens"),
            "scale": base.get("scale", True),
            "mask": base.get("mask", "none"),
            "heads": 1,
        }
        base = {k: val for k, val in base.items() if val is not None}
    return base, note


def _symmetric(m: np.ndarray[Any, Any]) -> bool:
    return bool(m.shape[0] == m.shape[1] and np.max(np.abs(m - m.T)) <= 1e-12)


def _most_asymmetric(m: np.ndarray[Any, Any], tokens: list[str], dp: int) -> str:
    d = np.abs(m - m.T)
    i, j = np.unravel_index(int(np.argmax(d)), d.shape)
    return (
        f"{tokens[i]} reading {tokens[j]} gives {m[i, j]:.{dp}f}, but {tokens[j]} reading "
        f"{tokens[i]} gives {m[j, i]:.{dp}f}"
    )


def _grid(
    name: str, label: str, m: np.ndarray[Any, Any], tokens: list[str], t: Any, dp: int
) -> Json:
    hover = [
        [
            f"{label}[{tokens[i]}, {tokens[j]}] = {m[i, j]:.6g}; the mirror cell "
            f"{label}[{tokens[j]}, {tokens[i]}] = {m[j, i]:.6g}"
            for j in range(len(tokens))
        ]
        for i in range(len(tokens))
    ]
    text = [[f"{x:.{dp}f}" for x in r] for r in m.tolist()]
    mirror = [{"grid": name, "row": "j", "col": "i"}]
    return grid(
        name,
        label,
        m,
        rows=tokens,
        cols=tokens,
        theme=t.name,
        text=text,
        hover=hover,
        row_title="query i",
        col_title="key j",
        uses=mirror,
    )


def build_two_maps(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    body, note = variant(ctx.body or {}, str(v["maps"]))
    st = ctx.run["attention"](body)
    h, tokens = st.head, list(st.tokens)
    s_sym, w_sym = _symmetric(h.scores), _symmetric(h.weights)
    grids = [
        grid_item(
            _grid("scores", "S", h.scores, tokens, t, 2),
            "Scores S = Q Kᵀ",
            "symmetric" if s_sym else "not symmetric",
        ),
        grid_item(
            _grid("weights", "A", h.weights, tokens, t, 2),
            "Weights A (row softmax)",
            "symmetric" if w_sym else "not symmetric",
        ),
    ]
    label = dict(MAPS)[str(v["maps"])]
    if s_sym:
        first = "S is symmetric: i reading j scores exactly what j reading i scores."
    else:
        first = f"S is not symmetric: {_most_asymmetric(h.scores, tokens, 2)}."
    if w_sym:
        second = " The weights are symmetric too."
    elif s_sym:
        second = (
            " The weights are not symmetric: each row is normalised by its own sum, "
            f"so {_most_asymmetric(h.weights, tokens, 3)}."
        )
    else:
        second = " Nor are the weights."
    return lab_figure(
        TWO_MAPS,
        caption=f"{label[0].upper()}{label[1:]}{note}. {first}{second}",
        grids=grids,
        alt=f"Score and weight grids for {label}.",
        tables=[
            table("Scores S", tokens, tokens, [[f"{x:.4f}" for x in r] for r in h.scores]),
            table("Weights A", tokens, tokens, [[f"{x:.4f}" for x in r] for r in h.weights]),
        ],
        readout=[
            f"max |S − Sᵀ| = {float(np.max(np.abs(h.scores - h.scores.T))):.3g}"
            if h.scores.shape[0] == h.scores.shape[1]
            else "S is not square"
        ],
    )


TWO_MAPS = LabFigure(
    name="two-maps",
    entry="A5",
    title="Why two maps, and attention without projections",
    intro="The same tokens with two maps (W^Q and W^K), with one map (W^K := W^Q), or with "
    "no projections at all (Q = K = V = X). Point at a cell to outline its mirror. The "
    "state comes from the main page (preset or your own numbers; default: “I love LLMs”).",
    teaching="Two maps let “i reads j” differ from “j reads i”; one map forces symmetric "
    "scores. Check whether the row-wise softmax keeps that symmetry.",
    build=build_two_maps,
    uses_body=True,
    controls=(choice("maps", "Maps", "two", MAPS),),
)
