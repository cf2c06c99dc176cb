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

MAX_L = 8
# Rows for positions 2 … 7 when the learner picks L > 2 (ours; d_k = 2): the first two
# rows are the preset's, so L = 2 is the course module's example exactly.
EXTRA_Q = ((2, 0), (0, 2), (-1, 1), (1, -2), (0.5, 0.5), (-2, -1))
EXTRA_K = ((2, 1), (-1, 2), (0, -2), (1, 0), (-2, -1), (0.5, 1.5))
EXTRA_V = ((2, 0), (-1, 1), (0, 2), (1, 1), (-2, 0), (0.5, -0.5))
DEFAULTS = {"q": TWO["q"], "k": TWO["k"], "v": TWO["v"]}
EXTRA = {"q": EXTRA_Q, "k": EXTRA_K, "v": EXTRA_V}
TOKENS = tuple(f"token {i + 1}" for i in range(MAX_L))
ALL_LINES = 4  # a step's caption holds every line up to this many, else the focus row's


def _dot(q: np.ndarray[Any, Any], k: np.ndarray[Any, Any]) -> str:
    terms = [f"{n(float(a))}·{n(float(b))}" for a, b in zip(q, k, strict=True)]
    products = [n(float(a * b)) for a, b in zip(q, k, strict=True)]
    joined = " + ".join(products).replace("+ −", "− ")
    return f"{' + '.join(terms)} = {joined} = {n(float(q @ k))}"


Line = tuple[int | None, str]  # (the row it is about, or None for the whole step; text)


def _lines(step: int, h: Any, tok: list[str], mask: str, scale: bool) -> list[Line]:
    L = len(tok)
    name = [f"{t} (position {i})" for i, t in enumerate(tok)]
    if step == 1:
        return [
            (i, f"q{i + 1}·k{j + 1} = {_dot(h.q[i], h.k[j])}") for i in range(L) for j in range(L)
        ]
    if step == 2:
        if not scale:
            return [
                (None, "Scaling is off: the divisor is 1, so the scaled scores are the scores.")
            ]
        head = f"√{h.d_k} ≈ {n(h.divisor)}"
        if L <= 2:
            return [
                (None, f"{head}, giving the scaled rows {' and '.join(vec(r) for r in h.scaled)}.")
            ]
        return [(None, f"{head}: every score is divided by it.")] + [
            (i, f"The scaled row of {name[i]} is {vec(h.scaled[i])}.") for i in range(L)
        ]
    if step == 3:
        if mask == "none":
            return [(None, "No mask: every query sees every key, so the scores pass unchanged.")]
        return [
            (
                i,
                f"The causal row of {name[i]} is {vec(h.masked[i])}, "
                f"with weights {vec(h.weights[i])}.",
            )
            for i in range(L)
        ]
    if step == 4:
        lines: list[Line] = []
        for i in range(L):
            allowed = np.isfinite(h.masked[i])
            ex = np.where(allowed, np.exp(np.where(allowed, h.masked[i], 0.0)), 0.0)
            powers = ", ".join(f"e^{n(float(s))}" for s in h.masked[i][allowed])
            lines.append(
                (
                    i,
                    f"Row of {name[i]}: [{powers}] = {vec(ex[allowed])}, with sum "
                    f"{n(float(ex.sum()))} and weights {vec(h.weights[i])}.",
                )
            )
        return lines
    out: list[Line] = []
    for i in range(L):
        parts = [f"{n(float(w))}·{vec(h.v[j])}" for j, w in enumerate(h.weights[i]) if w > 0]
        out.append((i, f"Output of {name[i]}: {' + '.join(parts)} = {vec(h.output[i])}."))
    return out


def _shown(lines: list[Line], focus: int) -> list[str]:
    """The lines a step's caption holds: all of them for a small example, else the
    step's own line and the highlighted row's (the rest are in the tables)."""
    if len(lines) <= ALL_LINES:
        return [text for _, text in lines]
    return [text for row, text in lines if row is None or row == focus]


STAGE = {
    1: ("scores", "Scores Q Kᵀ"),
    2: ("scaled", "Scaled scores"),
    3: ("masked", "Masked scores"),
    4: ("weights", "Weights"),
    5: ("output", "Output"),
}
SOURCE = {2: "scores", 3: "scaled", 4: "masked"}  # the grid each step reads


def _arith(step: int, h: Any, i: int, j: int, scale: bool) -> str:
    """The arithmetic behind cell (i, j) of the step's grid (positions from 0)."""
    if step == 1:
        return f"score[{i}, {j}] = q{i + 1}·k{j + 1} = {_dot(h.q[i], h.k[j])}"
    if step == 2:
        div = f"√{h.d_k} ≈ {n(h.divisor)}" if scale else "1 (scaling off)"
        return (
            f"scaled[{i}, {j}] = {n(float(h.scores[i, j]))} ÷ {div} = {d4(float(h.scaled[i, j]))}"
        )
    if step == 3:
        if not np.isfinite(h.masked[i, j]):
            return f"masked[{i}, {j}] = −∞: key {j} comes after query {i} (causal: j ≤ i)"
        return f"masked[{i}, {j}] = scaled[{i}, {j}] = {d4(float(h.masked[i, j]))} (allowed)"
    if step == 4:
        if not np.isfinite(h.masked[i, j]):
            return f"weight[{i}, {j}] = 0: the score was −∞"
        allowed = np.isfinite(h.masked[i])
        total = float(np.exp(h.masked[i][allowed]).sum())
        e = float(np.exp(h.masked[i, j]))
        return (
            f"weight[{i}, {j}] = e^{d4(float(h.masked[i, j]))} ÷ Σ = {d4(e)} ÷ {d4(total)} "
            f"= {d4(float(h.weights[i, j]))}"
        )
    terms = [f"{d4(float(w))}·{d4(float(h.v[k, j]))}" for k, w in enumerate(h.weights[i]) if w > 0]
    return f"output[{i}, {j}] = {' + '.join(terms) or '0'} = {d4(float(h.output[i, j]))}"


def _cells(step: int, h: Any, scale: bool, shape: tuple[int, int]) -> list[list[str]]:
    return [[_arith(step, h, i, j, scale) for j in range(shape[1])] for i in range(shape[0])]


def _frame(step: int, h: Any, ghost: Any, tok: list[str], t: Any, v: Mapping[str, Any]) -> Json:
    """One step of the player: its grids (the cells in use outlined), its narration and
    the arithmetic line of the highlighted cell (the focus row's diagonal cell, or the
    first entry of the focus output)."""
    mask, scale, focus = str(v["mask"]), bool(v["scale"]), int(v["focus"])
    L = len(tok)
    keys = [f"k{j} {tk}" for j, tk in enumerate(tok)]
    dk_cols = [f"d_k {c}" for c in range(h.q.shape[1])]
    dv_cols = [f"d_v {c}" for c in range(h.v.shape[1])]
    hi = (focus, focus if step < 5 else 0)
    grids: list[Json] = []

    def add(name: str, label: str, m: Any, rows: list[str], cols: list[str], **kw: Any) -> None:
        heading = kw.pop("heading", label)
        badge = kw.pop("badge", "")
        grids.append(grid_item(_grid4(name, label, m, rows, cols, t, **kw), heading, badge))

    name, heading = STAGE[step]
    m = getattr(h, name)
    if step == 1:
        add("q", "Q", h.q, tok, dk_cols, outline={"rows": [focus]}, heading="")
        add("k", "K", h.k, keys, dk_cols, outline={"rows": [hi[1]]}, heading="")
        uses = product_uses("q", "k", "row")
    elif step < 5:
        src = SOURCE[step]
        prev = getattr(h, src)
        add(src, STAGE[step - 1][1], prev, tok, keys, heading="",
            outline={"rows": [focus]} if step == 4 else {"cells": [list(hi)]},
            hover=_cells(step - 1, h, scale, prev.shape), row_title="queries")  # fmt: skip
        uses = same_row(src) if step == 4 else same_cell(src)
    else:
        add("weights", "Weights", h.weights, tok, keys, outline={"rows": [focus]}, heading="",
            hover=_cells(4, h, scale, h.weights.shape), row_title="queries")  # fmt: skip
        add("v", "V", h.v, keys, dv_cols, outline={"cols": [hi[1]]}, heading="")
        uses = [
            {"grid": "weights", "row": "i", "col": None},
            {"grid": "v", "row": None, "col": "j"},
        ]
    add(name, heading, m, tok, keys if step < 5 else dv_cols, heading=f"Step {step}: {heading}",
        uses=uses, hover=_cells(step, h, scale, m.shape), row_title="queries",
        outline={"rows": [focus], "cells": [list(hi)]})  # fmt: skip
    quotes: list[Json] = []
    if mask == "causal" and step >= 3:
        add("ghost", "without the mask", ghost.weights[:1], tok[:1], keys,
            heading=f"Ghost: {tok[0]}'s weights without the mask", badge="unmasked", role="weights",
            hover=[[_arith(4, ghost, 0, j, scale) for j in range(L)]])  # fmt: skip
        top = int(np.argmax(ghost.weights[0]))
        said = (
            " (the module: “nearly all of token 1's weight would go to token 2”)" if L == 2 else ""
        )
        quotes.append(
            {
                "source": "Without the mask",
                "kind": "run",
                "text": f"{tok[0]} would put {float(ghost.weights[0, top]):.6f} of its weight "
                f"on {tok[top]}{said}.",
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
                + f"): {vec(h.output[focus])} to 4 figures. Multiplying by the 3-decimal "
                f"weights instead gives {vec(rounded)}, which can differ in the last digit.",
            }
        )
    lines = _lines(step, h, tok, mask, scale)
    shown = _shown(lines, focus)
    more = "" if len(shown) == len(lines) else " The other rows are in the tables."
    caption = f"Step {step} of 5, {STEPS[step - 1][1][2:]}. " + " ".join(shown) + more
    return {
        "step": step,
        "caption": caption,
        "alt": f"Step {step}: {' '.join(shown)}",
        "grids": grids,
        "quotes": quotes,
        "narration": [text for _, text in lines],
        "grid_hint": "Highlighted: " + _arith(step, h, *hi, scale),
    }


def build_stepper(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, step, mask, scale = ctx.theme, int(v["step"]), str(v["mask"]), bool(v["scale"])
    L = int(v["L"])
    body = {
        **TWO,
        "tokens": list(TOKENS[:L]),
        "q": [list(r) for r in v["q"]],
        "k": [list(r) for r in v["k"]],
        "v": [list(r) for r in v["v"]],
        "mask": mask,
        "scale": scale,
    }
    st = ctx.run["attention"](body)
    h, tok = st.head, list(st.tokens)
    ghost = ctx.run["attention"]({**body, "mask": "none"}).head if mask == "causal" else None
    frames = [_frame(s, h, ghost, tok, t, v) for s, _ in STEPS]
    here = frames[step - 1]
    out_rows = [[d4(float(x)) for x in r] for r in h.output]
    narration = table(
        "What each step says",
        ["narration"],
        [f"step {f['step']}, line {k + 1}" for f in frames for k in range(len(f["narration"]))],
        [[line] for f in frames for line in f["narration"]],
    )
    return lab_figure(
        STEPPER,
        caption=here["caption"],
        grids=here["grids"],
        alt=here["alt"],
        readout=[f"output of {tk}: {vec(r)}" for tk, r in zip(tok, h.output, strict=True)],
        tables=[
            table("Output (4 decimals)", [f"d_v {c}" for c in range(h.v.shape[1])], tok, out_rows),
            narration,
        ],
        quotes=here["quotes"],
        narration=here["narration"],
        grid_hint=here["grid_hint"],
        step=step,
        steps=len(STEPS),
        frames=frames,
    )


def _m(rows: Any) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in r) for r in rows)


def resize(rows: Any, name: str, L: int) -> tuple[tuple[float, ...], ...]:
    """``rows`` cut or extended to L rows: the given rows first, then our extra rows."""
    given = _m(rows)[:L]
    extra = _m(DEFAULTS[name])[len(given) :] + _m(EXTRA[name])
    return given + extra[: L - len(given)]


def settle_stepper(v: dict[str, Any]) -> dict[str, Any]:
    """Q, K and V with exactly L rows; the highlighted row within 0 … L − 1."""
    L = int(v["L"])
    out = {**v, **{name: resize(v[name], name, L) for name in ("q", "k", "v")}}
    out["focus"] = min(int(v["focus"]), L - 1)
    return out


def _matrix_control(name: str, label: str) -> Any:
    return matrix(name, label, _m(TWO[name]), -10, 10, 0.1, labels=TOKENS,
                  extra={"rows": (1, MAX_L)})  # fmt: skip


STEPPER = LabFigure(
    name="stepper",
    entry="B1",
    title="Tokens through every step",
    intro="The course module's whole computation on two tokens, one step at a time: scores, "
    "scale, mask, softmax, weighted sum. Its printed dot products and value rows are "
    "reproduced; its Q and K are not printed, so ours are rebuilt to match. The module "
    "counts from 1: token 1 is position 0. Pick L up to 8 to add tokens (rows 3 … 8 are "
    "our example); play the steps, or step with ◀ ▶.",
    teaching="Each step is plain arithmetic. The mask acts between scaling and softmax (−∞, "
    "then 0), and every toggle ripples through the later steps.",
    build=build_stepper,
    badges=("reconstructed",),
    settle=settle_stepper,
    controls=(
        steps("step", "Step", 5, [s for s, _ in STEPS], names=[label for _, label in STEPS]),
        choice("L", "Tokens L", 2, [(i, str(i)) for i in range(2, MAX_L + 1)]),
        toggle("scale", "Divide by √d_k", True),
        choice("mask", "Mask", "causal", [("none", "none"), ("causal", "causal")]),
        integer("focus", "Highlight the row of position (from 0)", 1, 0, MAX_L - 1),
        _matrix_control("q", "Q"),
        _matrix_control("k", "K"),
        _matrix_control("v", "V"),
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
    div = f"(√{h.d_k} = {h.divisor:.4f})" if st.scale else "1 (scaling off)"
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
