"""Lab `step-by-step` (LABS.md §4): B1, the two-token stepper, and B2, the per-position view.

PURE. The engine runs through ``ctx.run["attention"]`` (B1 runs it twice when the mask is
on: the unmasked run gives the ghost of row 0). Numbers in the narration follow the
course module's precision (4 significant digits, 3 decimals below 1); grids and tables
show 4 decimals, from unrounded weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures.grid import grid, product_uses, same_cell, same_row
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, integer, matrix, steps, toggle
from app.figures.labs.one_query import preset_body

TWO = preset_body("two-tokens")
STEPS = ((1, "1 scores"), (2, "2 scale"), (3, "3 mask"), (4, "4 softmax"), (5, "5 weighted sum"))
MINUS = "−"


def n(x: float) -> str:
    """The module's precision: whole numbers bare, 4 significant digits, 3 decimals below 1."""
    if math.isinf(x):
        return MINUS + "∞" if x < 0 else "∞"
    if float(x).is_integer():
        return str(int(x)).replace("-", MINUS)
    text = f"{x:.3f}" if abs(x) < 1 else f"{x:.4g}"
    return text.replace("-", MINUS)


def d4(x: float) -> str:
    if math.isinf(x):
        return MINUS + "∞"
    return f"{x:.4f}".replace("-", MINUS)


def vec(xs: Any) -> str:
    return "[" + ", ".join(n(float(x)) for x in xs) + "]"


def _grid4(
    name: str, label: str, m: Any, rows: list[str], cols: list[str], t: Any, **kw: Any
) -> Json:
    arr = np.asarray(m, dtype=np.float64)
    text = [[d4(float(x)) for x in r] for r in arr.tolist()]
    return grid(name, label, arr, rows=rows, cols=cols, theme=t.name, text=text, **kw)


# ---------------------------------------------------------------- B1 the stepper


def _dot(q: np.ndarray[Any, Any], k: np.ndarray[Any, Any]) -> str:
    terms = [f"{n(float(a))}·{n(float(b))}" for a, b in zip(q, k, strict=True)]
    products = [n(float(a * b)) for a, b in zip(q, k, strict=True)]
    joined = " + ".join(products).replace("+ −", "− ")
    return f"{' + '.join(terms)} = {joined} = {n(float(q @ k))}"


def _narration(step: int, h: Any, tok: list[str], mask: str, scale: bool) -> list[str]:
    L = len(tok)
    name = [f"{t} (position {i})" for i, t in enumerate(tok)]
    if step == 1:
        return [f"q{i + 1}·k{j + 1} = {_dot(h.q[i], h.k[j])}" for i in range(L) for j in range(L)]
    if step == 2:
        if not scale:
            return ["Scaling is off: the divisor is 1, so the scaled scores are the scores."]
        rows = " and ".join(vec(r) for r in h.scaled)
        return [f"√{h.d_k} ≈ {n(h.divisor)}, giving the scaled rows {rows}."]
    if step == 3:
        if mask == "none":
            return ["No mask: every query sees every key, so the scores pass unchanged."]
        return [
            f"The causal row of {name[i]} is {vec(h.masked[i])}, with weights {vec(h.weights[i])}."
            for i in range(L)
        ]
    if step == 4:
        lines = []
        for i in range(L):
            allowed = np.isfinite(h.masked[i])
            ex = np.where(allowed, np.exp(np.where(allowed, h.masked[i], 0.0)), 0.0)
            powers = ", ".join(f"e^{n(float(s))}" for s in h.masked[i][allowed])
            lines.append(
                f"Row of {name[i]}: [{powers}] = {vec(ex[allowed])}, with sum "
                f"{n(float(ex.sum()))} and weights {vec(h.weights[i])}."
            )
        return lines
    out = []
    for i in range(L):
        parts = [f"{n(float(w))}·{vec(h.v[j])}" for j, w in enumerate(h.weights[i]) if w > 0]
        out.append(f"Output of {name[i]}: {' + '.join(parts)} = {vec(h.output[i])}.")
    return out


STAGE = {
    1: ("scores", "Scores Q Kᵀ"),
    2: ("scaled", "Scaled scores"),
    3: ("masked", "Masked scores"),
    4: ("weights", "Weights"),
    5: ("output", "Output"),
}


def _stage_grid(step: int, h: Any, tok: list[str], t: Any, focus: int) -> Json:
    name, heading = STAGE[step]
    m = getattr(h, name)
    keys = [f"k{j} {tk}" for j, tk in enumerate(tok)]
    uses = {
        1: product_uses("q", "k", "row"),
        2: same_cell("scores"),
        3: same_cell("scaled"),
        4: same_row("masked"),
        5: [{"grid": "weights", "row": "i", "col": None}, {"grid": "v", "row": None, "col": None}],
    }[step]
    cols = keys if step < 5 else [f"d_v {c}" for c in range(m.shape[1])]
    hover = [
        [f"{heading}[{tok[i]}, {cols[j]}] = {m[i, j]:.10g}" for j in range(m.shape[1])]
        for i in range(m.shape[0])
    ]
    desc = _grid4(
        name,
        heading,
        m,
        tok,
        cols,
        t,
        uses=uses,
        hover=hover,
        outline={"rows": [focus]},
        row_title="queries",
    )
    return grid_item(desc, f"Step {step}")


def build_stepper(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, step, mask, scale = ctx.theme, int(v["step"]), str(v["mask"]), bool(v["scale"])
    body = {
        **TWO,
        "q": [list(r) for r in v["q"]],
        "k": [list(r) for r in v["k"]],
        "v": [list(r) for r in v["v"]],
        "mask": mask,
        "scale": scale,
    }
    st = ctx.run["attention"](body)
    h, tok = st.head, list(st.tokens)
    focus = int(v["focus"])
    grids = [
        grid_item(_grid4("q", "Q", h.q, tok, [f"d_k {c}" for c in range(h.q.shape[1])], t)),
        grid_item(
            _grid4(
                "k",
                "K",
                h.k,
                [f"k{j} {tk}" for j, tk in enumerate(tok)],
                [f"d_k {c}" for c in range(h.k.shape[1])],
                t,
            ),
            "K",
        ),
    ]
    if step == 5:
        grids.append(
            grid_item(_grid4("v", "V", h.v, tok, [f"d_v {c}" for c in range(h.v.shape[1])], t))
        )
    grids.append(_stage_grid(step, h, tok, t, focus))
    if mask == "causal" and step >= 3:
        ghost = ctx.run["attention"]({**body, "mask": "none"}).head
        desc = _grid4(
            "ghost",
            "without the mask",
            ghost.weights[:1],
            tok[:1],
            [f"k{j} {tk}" for j, tk in enumerate(tok)],
            t,
        )
        grids.append(grid_item(desc, f"Ghost: {tok[0]}'s weights without the mask", "unmasked"))
    lines = _narration(step, h, tok, mask, scale)
    caption = f"Step {step} of 5, {STEPS[step - 1][1][2:]}. " + " ".join(lines)
    quotes = []
    if mask == "causal" and step >= 3:
        ghost_w = ctx.run["attention"]({**body, "mask": "none"}).head.weights[0]
        quotes.append(
            {
                "source": "Without the mask",
                "kind": "run",
                "text": f"{tok[0]} would put {float(ghost_w[-1]):.6f} of its weight on "
                f"{tok[-1]} (the module: “nearly all of token 1's weight would "
                "go to token 2”).",
            }
        )
    if step == 5:
        w = h.weights[focus]
        rounded = np.round(w, 3) @ h.v
        quotes.append(
            {
                "source": "Rounding",
                "kind": "run",
                "text": "The outputs use the unrounded weights ("
                + ", ".join(f"{x:.6f}" for x in w)
                + f"): "
                f"{vec(h.output[focus])} to 4 figures. Multiplying by the 3-decimal "
                f"weights instead gives {vec(rounded)}, which can differ in the last digit.",
            }
        )
    out_rows = [[d4(float(x)) for x in r] for r in h.output]
    return lab_figure(
        STEPPER,
        caption=caption,
        grids=grids,
        alt=f"Step {step}: {' '.join(lines)}",
        readout=[f"output of {tk}: {vec(r)}" for tk, r in zip(tok, h.output, strict=True)],
        tables=[
            table("Output (4 decimals)", [f"d_v {c}" for c in range(h.v.shape[1])], tok, out_rows)
        ],
        quotes=quotes,
        narration=lines,
        step=step,
        steps=len(STEPS),
    )


def _m(rows: Any) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in r) for r in rows)


STEPPER = LabFigure(
    name="stepper",
    entry="B1",
    title="Two tokens through every step",
    intro="The course module's whole computation on two tokens, one step at a time: scores, "
    "scale, mask, softmax, weighted sum. Its printed dot products and value rows are "
    "reproduced; its Q and K are not printed, so ours are rebuilt to match. The module "
    "counts from 1: token 1 is position 0.",
    teaching="Each step is plain arithmetic. The mask acts between scaling and softmax (−∞, "
    "then 0), and every toggle ripples through the later steps.",
    build=build_stepper,
    badges=("reconstructed",),
    controls=(
        steps("step", "Step", 1, [s for s, _ in STEPS], names=[label for _, label in STEPS]),
        toggle("scale", "Divide by √d_k", True),
        choice("mask", "Mask", "causal", [("none", "none"), ("causal", "causal")]),
        choice(
            "focus",
            "Highlight the row of",
            1,
            [(0, "token 1 (position 0)"), (1, "token 2 (position 1)")],
        ),
        matrix("q", "Q", _m(TWO["q"]), -10, 10, 0.1, labels=tuple(TWO["tokens"])),
        matrix("k", "K", _m(TWO["k"]), -10, 10, 0.1, labels=tuple(TWO["tokens"])),
        matrix("v", "V", _m(TWO["v"]), -10, 10, 0.1, labels=tuple(TWO["tokens"])),
    ),
)


# ---------------------------------------------------------------- B2 per position


def build_per_position(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    body = {k: val for k, val in (ctx.body or {}).items() if k not in ("allowed",)}
    body.update(mask=str(v["mask"]), scale=bool(v["scale"]))
    st = ctx.run["attention"](body)
    h, tok, keys = st.head, list(st.tokens), list(st.key_tokens)
    i, warnings = int(v["focus"]), []
    if i >= len(tok):
        warnings.append(
            f"Position {i} does not exist here (positions 0 … {len(tok) - 1}); "
            f"showing position {len(tok) - 1}."
        )
        i = len(tok) - 1
    allowed = np.isfinite(h.masked[i])
    perm = [j for j in range(len(keys)) if allowed[j]]
    div = f"√{h.d_k} = {h.divisor:.4f}" if st.scale else "1 (scaling off)"
    rows, cells = [], []
    for j, key in enumerate(keys):
        rows.append(f"k{j} {key}")
        if allowed[j]:
            cells.append(
                [
                    d4(float(h.scores[i, j])),
                    d4(float(h.scaled[i, j])),
                    d4(float(h.weights[i, j])),
                    vec(h.weights[i, j] * h.v[j]),
                    "in P(i)",
                ]
            )
        else:
            cells.append([d4(float(h.scores[i, j])), "—", "0", "—", "outside P(i): greyed"])
    pset = "every key" if len(perm) == len(keys) else "{" + ", ".join(str(j) for j in perm) + "}"
    eqs = [
        f"e_{i}j = q_{i}ᵀk_j = {vec(h.scores[i, perm])} for j in P({i}) = {pset}",
        f"s_{i}j = e_{i}j / {div} = {vec(h.scaled[i, perm])}",
        f"a_{i}j = exp(s_{i}j) / Σ_(j′∈P({i})) exp(s_{i}j′) = {vec(h.weights[i, perm])}",
        f"o_{i} = Σ_(j∈P({i})) a_{i}j v_j = {vec(h.output[i])}",
    ]
    cols = [f"k{j}" for j in range(len(keys))]
    cells_out = [[i, j] for j in perm]
    score = _grid4(
        "scores",
        "S",
        h.scores,
        tok,
        cols,
        t,
        row_title="queries",
        col_title="keys k_0 … k_(L_K−1)",
        outline={"rows": [i], "cells": cells_out},
        hover=[
            [f"e_{a}{b} = q_{a}ᵀk_{b} = {h.scores[a, b]:.10g}" for b in range(len(keys))]
            for a in range(len(tok))
        ],
    )
    shape = f"{len(tok)} × {len(keys)}"
    square = (
        "square, as in self-attention" if len(tok) == len(keys) else "not square: cross-attention"
    )
    caption = (
        f"Position {i} ({tok[i]}) reads {len(perm)} of {len(keys)} keys"
        + (" (causal: j ≤ i)" if len(perm) < len(keys) else "")
        + f"; its output is "
        f"{vec(h.output[i])}. The weights are L_Q × L_K = {shape}, {square}."
    )
    return lab_figure(
        PER_POSITION,
        caption=caption,
        grids=[grid_item(score, f"Scores e (row {i} outlined, P({i}) boxed)")],
        alt=" ".join(eqs),
        readout=eqs,
        tables=[table(f"Position {i}: every key", ["e", "s", "a", "a·v", "P(i)"], rows, cells)],
        table_view=True,
        warnings=warnings,
    )


PER_POSITION = LabFigure(
    name="per-position",
    entry="B2",
    title="One position's output",
    intro="Pick a position i and read its four equations with live numbers. P(i) is every "
    "key, or {0 … i} under the causal mask; terms outside it are marked. The state comes "
    "from the main page (default: “I love LLMs”).",
    teaching="Each position's output depends only on its own query and the keys it may see. "
    "Causal masking shortens the sum, and no position waits for another.",
    build=build_per_position,
    uses_body=True,
    controls=(
        integer("focus", "Position i (from 0)", 2, 0, 511),
        choice("mask", "Mask", "none", [("none", "none"), ("causal", "causal")]),
        toggle("scale", "Divide by √d_k", True),
    ),
)
