"""J1, the rotation: pairs of q and k turned by m·θ_i at position m, θ_i = base^(−2i/d);
their score depends on the offset m − n only, so moving every token by the same number of
positions leaves every score as it was. PURE: the maths is ``app.labs.rotary``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import integer, steps
from app.figures.labs.parts import matrix_grid
from app.figures.labs.rotary.common import (
    BASES,
    MAX_N,
    MAX_SHIFT,
    WIDTHS,
    State,
    base_text,
    run,
    span,
)
from app.figures.labs.rotary.common import inputs as draw_inputs
from app.labs import rotary
from app.labs.attend import Matrix


def state_of(v: Mapping[str, Any]) -> State:
    q, k = draw_inputs(int(v["n"]), int(v["d"]), int(v["seed"]))
    return run(q, k, int(v["shift"]), float(v["base"]))


def asked_cell(s: State) -> tuple[int, int]:
    """The cell the question asks about: the largest |score| with m > n (a key before
    its query), or (0, 0) for a single token; the first one on a tie."""
    if s.n < 2:
        return 0, 0
    below = np.tril(np.ones((s.n, s.n), dtype=bool), -1)
    size = np.where(below, np.abs(s.here.scores), -1.0)
    r, c = np.unravel_index(int(np.argmax(size)), size.shape)
    return int(r), int(c)


def score_text(x: float) -> str:
    """A score to exactly 4 decimals: both placements print the same digits."""
    return fmt.fixed(x, 4)


def _difference(x: float) -> str:
    if x == 0.0:
        return "not a digit apart."
    return f"a difference of {fmt.significant(x, 3)}, float64 rounding."


def _reveal(s: State) -> Json:
    """Predict first: what the shift does to one score."""
    r, c = asked_cell(s)
    before, after = float(s.here.scores[r, c]), float(s.moved.scores[r, c])
    choices = [
        # labels read after "You predicted" and "It is"
        ["same", "the same"],
        ["different", "different: both vectors turned further"],
        ["larger", "larger: it grows with the positions"],
    ]
    correct = "same" if s.same else "larger" if abs(after) > abs(before) else "different"
    offset = r - c
    return {
        "question": f"q_{r + 1} sits at position {r} and k_{c + 1} at position {c}: their "
        f"rotated score is {score_text(before)}. Move every token {fmt.count(s.shift)} "
        f"positions on, to {fmt.count(r + s.shift)} and {fmt.count(c + s.shift)}. What "
        "happens to their score?",
        "choices": choices,
        "correct": correct,
        "correct_label": dict(choices)[correct],
        "why": f"Pair i of q turns by {fmt.count(r + s.shift)}·θ_i and of k by "
        f"{fmt.count(c + s.shift)}·θ_i: the angle between them is still ({fmt.count(r + s.shift)}"
        f" − {fmt.count(c + s.shift)})·θ_i = {offset}·θ_i. Before {score_text(before)}, "
        f"after {score_text(after)}: " + _difference(abs(after - before)),
        "answer": f"q_{r + 1}·k_{c + 1}: {score_text(before)} at offset {offset}, "
        f"{score_text(after)} after the shift",
    }


def _grid(name: str, label: str, m: Matrix, s: State, start: int, theme: str) -> Json:
    rows = [f"q_{i + 1} @ {fmt.count(start + i)}" for i in range(s.n)]
    cols = [f"k_{j + 1} @ {fmt.count(start + j)}" for j in range(s.n)]
    desc = matrix_grid(name, label, m, rows, cols, theme, role="scores", row_title="queries",
                       col_title="keys", hover_name=label)  # fmt: skip
    desc["text"] = [[score_text(float(x)) for x in row] for row in m]
    return desc


def _offsets(s: State, theme: str) -> Json:
    m = s.here.positions[:, None] - s.here.positions[None, :]
    return matrix_grid("offsets", "m − n", m, [f"q_{i + 1}" for i in range(s.n)],
                       [f"k_{j + 1}" for j in range(s.n)], theme, role="x",
                       row_title="queries", col_title="keys", hover_name="m − n")  # fmt: skip


def _theta_table(s: State) -> Json:
    t = rotary.thetas(s.d, s.base)
    return table(
        f"The angle each pair turns per position, θ_i = {base_text(s.base)}^(−2i/{s.d})",
        ["θ_i (radians per position)", "wavelength 2π / θ_i (positions)"],
        [f"pair {i} (dimensions {2 * i + 1}, {2 * i + 2})" for i in range(s.d // 2)],
        [[fmt.significant(float(x), 6), fmt.significant(2 * np.pi / float(x), 6)] for x in t],
    )


def build_rotation(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    s = state_of(v)
    theme = ctx.theme.name
    reveal = _reveal(s)
    diff = fmt.significant(s.max_diff, 3)
    same = (
        f"every score stays the same: the largest difference is {diff}, float64 rounding"
        if s.same
        else f"the scores differ by up to {diff}"
    )
    caption = (
        f"The same q and k at positions {span(0, s.n)} and moved {fmt.count(s.shift)} on, to "
        f"{span(s.shift, s.n)}: {same}. Each score reads only the offset m − n, which the "
        "move leaves as it was."
    )
    exact = "equal to the last digit" if s.relative_equal else "not equal"
    grids = [
        grid_item(_grid("scores", "R_m q · R_n k", s.here.scores, s, 0, theme),
                  f"Rotated scores at positions {span(0, s.n)}"),
        grid_item(_grid("scores-moved", "R_m q · R_n k", s.moved.scores, s, s.shift, theme),
                  f"Rotated scores at positions {span(s.shift, s.n)}"),
        grid_item(_offsets(s, theme), "The offsets m − n, the same in both", "both"),
    ]  # fmt: skip
    return lab_figure(
        ROTATION,
        caption=caption,
        alt=f"Two {s.n} × {s.n} grids of rotated scores, at positions {span(0, s.n)} and "
        f"{span(s.shift, s.n)}, with the same numbers, and the grid of offsets m − n.",
        grids=grids,
        readout=[
            f"max |moved − here| over {s.n * s.n} scores, rotate then dot: {diff} (float64)",
            f"the offset-only form (RoFormer Eq. 16) after the move: {exact}",
            reveal["answer"],
        ],
        tables=[_theta_table(s)],
        reveal=reveal,
    )


ROTATION = LabFigure(
    name="rotation",
    numpy="rotary-rotation",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="J1",
    title="Rotation",
    intro='RoPE (Su et al., "RoFormer", 2021) adds nothing to X. It turns each pair '
    "(x_2i, x_2i+1) of q and k at position m by the angle m·θ_i, θ_i = base^(−2i/d). q and k "
    "are our example: whole numbers drawn from the seed. Move every token by the shift and "
    "compare the two grids.",
    teaching="A rotated q at m and a rotated k at n meet at the angle (m − n)·θ_i in each "
    "pair: the score depends on how far apart they are, not on where they are.",
    build=build_rotation,
    badges=("our example",),
    controls=(
        integer("n", "Tokens N", 5, 2, MAX_N),
        steps("d", "Width d (even)", 4, WIDTHS),
        integer("shift", "Shift every position by", 100, 0, MAX_SHIFT),
        steps("base", "Base", BASES[0], BASES, names=[base_text(b) for b in BASES]),
        integer("seed", "Seed of q, k", 0, 0, 9999),
    ),
)
