"""A5, one map, two maps, no projections: the weight grids of each variant, drawn by
the grid renderer (``app.figures.grid``). Attention runs through ``ctx.run["attention"]``.
PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import grid
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice

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
        f"{tokens[i]} reading {tokens[j]} gives {fmt.derived(m[i, j], dp)}, but {tokens[j]} "
        f"reading "
        f"{tokens[i]} gives {fmt.derived(m[j, i], dp)}"
    )


def _grid(
    name: str,
    label: str,
    m: np.ndarray[Any, Any],
    tokens: list[str],
    t: Any,
    dp: int,
    masked: Any = None,
) -> Json:
    hover = [
        [
            f"{label}[{tokens[i]}, {tokens[j]}] = {fmt.significant(m[i, j])}; the mirror cell "
            f"{label}[{tokens[j]}, {tokens[i]}] = {fmt.significant(m[j, i])}"
            for j in range(len(tokens))
        ]
        for i in range(len(tokens))
    ]
    text = [
        [fmt.weight(x, dp) if name == "weights" else fmt.value(x) for x in r] for r in m.tolist()
    ]
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
        masked=masked,
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
            _grid("weights", "A", h.weights, tokens, t, 2, masked=~np.isfinite(h.masked)),
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
            table("Scores S", tokens, tokens, [[fmt.derived(x, 4) for x in r] for r in h.scores]),
            table("Weights A", tokens, tokens, [[fmt.weight(x, 4) for x in r] for r in h.weights]),
        ],
        readout=[
            f"max |S − Sᵀ| = {fmt.significant(float(np.max(np.abs(h.scores - h.scores.T))), 3)}"
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
