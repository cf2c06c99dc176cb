"""B1, the stepper: two tokens through scores, scale, mask, softmax and the weighted
sum, one frame per step. Attention runs through ``ctx.run["attention"]`` (twice with the
mask on: the unmasked run gives the ghost of row 0). PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import product_uses, same_cell, same_row
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, matrix, steps, toggle
from app.figures.labs.step_by_step.common import STEPS, TWO, d4, grid4, vec
from app.figures.labs.step_by_step.stepper_lines import (
    DEFAULTS,
    EXTRA,
    MAX_L,
    SOURCE,
    STAGE,
    TOKENS,
    arith_lines,
    cell_texts,
    narration_lines,
    shown_lines,
)
from app.figures.labs.words import SOURCES
from app.figures.labs.words import row as row_name
from app.figures.labs.words import vec as vec_name


def _ghost_quote(ghost: Any, tok: list[str]) -> Json:
    """Where the first token's weight would go without the causal mask."""
    top = int(np.argmax(ghost.weights[0]))
    said = (
        f" ({SOURCES['course-module']}: “nearly all of token 1's weight would go to token 2”)"
        if len(tok) == 2
        else ""
    )
    return {
        "source": "Without the mask",
        "kind": "run",
        "text": f"{row_name(tok[0], 0)} would put {fmt.weight(float(ghost.weights[0, top]), 6)} "
        f"of its weight on {vec_name('k', top, tok[top])}{said}.",
    }


def _rounding_quote(h: Any, focus: int) -> Json:
    """The output from unrounded weights, against the 3-decimal weights'."""
    w = h.weights[focus]
    rounded = np.round(w, 3) @ h.v
    return {
        "source": "Rounding",
        "kind": "run",
        "text": "The outputs use the unrounded weights ("
        + ", ".join(fmt.significant(float(x), 10) for x in w)
        + f"): {vec(h.output[focus])} to 4 figures. Multiplying by the 3-decimal "
        f"weights instead gives {vec(rounded)}, which can differ in the last digit.",
    }


def _frame(step: int, h: Any, ghost: Any, tok: list[str], t: Any, v: Mapping[str, Any]) -> Json:
    """One step of the player: its grids (the cells in use outlined), its narration and
    the arithmetic line of the highlighted cell (the focus row's diagonal cell, or the
    first entry of the focus output)."""
    mask, scale, focus = str(v["mask"]), bool(v["scale"]), int(v["focus"])
    L = len(tok)
    keys = [vec_name("k", j, tk) for j, tk in enumerate(tok)]
    dk_cols = [str(c + 1) for c in range(h.q.shape[1])]  # columns of d_k, from 1
    dv_cols = [str(c + 1) for c in range(h.v.shape[1])]
    hi = (focus, focus if step < 5 else 0)
    grids: list[Json] = []

    blocked = ~np.isfinite(h.masked)

    def add(name: str, label: str, m: Any, rows: list[str], cols: list[str], **kw: Any) -> None:
        heading = kw.pop("heading", label)
        badge = kw.pop("badge", "")
        if name in ("masked", "weights") and blocked.any():
            kw["masked"] = blocked  # hatched and named in the legend, as on the main page
        grids.append(grid_item(grid4(name, label, m, rows, cols, t, **kw), heading, badge))

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
            hover=cell_texts(step - 1, h, scale, prev.shape), row_title="queries")  # fmt: skip
        uses = same_row(src) if step == 4 else same_cell(src)
    else:
        add("weights", "Weights", h.weights, tok, keys, outline={"rows": [focus]}, heading="",
            hover=cell_texts(4, h, scale, h.weights.shape), row_title="queries")  # fmt: skip
        add("v", "V", h.v, keys, dv_cols, outline={"cols": [hi[1]]}, heading="")
        uses = [
            {"grid": "weights", "row": "i", "col": None},
            {"grid": "v", "row": None, "col": "j"},
        ]
    cols = keys if step < 5 else dv_cols
    add(name, heading, m, tok, cols, heading=f"Step {step}: {heading}",
        uses=uses, hover=cell_texts(step, h, scale, m.shape), row_title="queries",
        outline={"rows": [focus], "cells": [list(hi)]})  # fmt: skip
    quotes: list[Json] = []
    if mask == "causal" and step >= 3:
        add("ghost", "without the mask", ghost.weights[:1], tok[:1], keys,
            heading=f"Ghost: {tok[0]}'s weights without the mask", badge="unmasked", role="weights",
            hover=[[arith_lines(4, ghost, 0, j, scale) for j in range(L)]])  # fmt: skip
        quotes.append(_ghost_quote(ghost, tok))
    if step == 5:
        quotes.append(_rounding_quote(h, focus))
    lines = narration_lines(step, h, tok, mask, scale)
    shown = shown_lines(lines, focus)
    more = "" if len(shown) == len(lines) else " The other rows are in the tables."
    caption = f"Step {step} of 5, {STEPS[step - 1][1][2:]}. " + " ".join(shown) + more
    return {
        "step": step,
        "caption": caption,
        "alt": f"Step {step}: {' '.join(shown)}",
        "grids": grids,
        "quotes": quotes,
        "narration": [text for _, text in lines],
        "grid_hint": "Highlighted: " + arith_lines(step, h, *hi, scale),
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
        readout=[
            f"z_{i + 1}, the output of {row_name(tk, i)}: {vec(r)}"
            for i, (tk, r) in enumerate(zip(tok, h.output, strict=True))
        ],
        tables=[
            table(
                "Output Z, one column per column of d_v (4 decimals)",
                [str(c + 1) for c in range(h.v.shape[1])],
                [row_name(tk, i) for i, tk in enumerate(tok)],
                out_rows,
            ),
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
    intro="{course-module} computes the whole of attention on two tokens, one step at a "
    "time: scores, scale, mask, softmax, weighted sum. It prints its dot products and value "
    "rows but not Q and K: ours are chosen to reproduce every printed number. It counts "
    "tokens from 1, as this page does. Pick L up to 8 to add tokens (rows 3 … 8 are our "
    "example); play the steps, or step with ◀ ▶.",
    teaching="Each step is plain arithmetic. The mask acts between scaling and softmax (−∞, "
    "then 0), and every toggle ripples through the later steps.",
    build=build_stepper,
    badges=("our reconstruction",),
    settle=settle_stepper,
    controls=(
        steps("step", "Step", 5, [s for s, _ in STEPS], names=[label for _, label in STEPS]),
        choice("L", "Tokens L", 2, [(i, str(i)) for i in range(2, MAX_L + 1)]),
        toggle("scale", "Divide by √d_k", True),
        choice("mask", "Mask", "causal", [("none", "none"), ("causal", "causal")]),
        # focus stays a 0-based index in the URL (LABS.md §2); the page shows the row's name.
        choice(
            "focus",
            "Highlight the row of",
            1,
            [(i, row_name(TOKENS[i], i)) for i in range(MAX_L)],
            extra={"size_by": "L", "size_offset": 0},
        ),
        _matrix_control("q", "Q"),
        _matrix_control("k", "K"),
        _matrix_control("v", "V"),
    ),
)
