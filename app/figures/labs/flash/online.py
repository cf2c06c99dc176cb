"""H2, the online softmax step by step: one row tile against each column tile in turn,
each row's running max m, sum ℓ and output O, the rescaling e^(m_old − m_new) when a
larger score arrives, and at the end the output against the one-shot softmax. One frame
per column tile, played by the lab player (B1's). PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice
from app.figures.labs.flash.common import (
    MAX_N,
    State,
    block_rows,
    exps_text,
    first_rescale,
    num,
    span,
    state_of,
    steps_of,
)
from app.figures.labs.flash.tiles import TILES
from app.figures.labs.parts import matrix_grid
from app.figures.labs.words import vec as vec_name
from app.labs import flash
from app.labs.attend import Matrix

HEADERS = ["m before", "m̃ of the tile", "m after", "e^(m_old − m_new)", "ℓ before",
           "ℓ̃ of the tile", "ℓ after"]  # fmt: skip


def _row_line(name: str, t: flash.Tile, r: int) -> str:
    """What the tile did to one row's m and ℓ, in words with the numbers."""
    m0, mt, m1 = float(t.m_before[r]), float(t.m_tile[r]), float(t.m_after[r])
    l0, lt, l1 = float(t.l_before[r]), float(t.l_tile[r]), float(t.l_after[r])
    factor = float(t.rescale[r])
    if np.isneginf(mt):
        return (
            f"{name}: every key of this tile is masked, so nothing is added; m = {num(m1)}, "
            f"ℓ = {num(l1)}."
        )
    if np.isneginf(m0):
        return f"{name}: the first scores it sees, m = m̃ = {num(mt)} and ℓ = ℓ̃ = {num(lt)}."
    new = float(np.exp(mt - m1))
    if factor < 1.0:
        return (
            f"{name}: a larger score arrived (m̃ = {num(mt)} > m = {num(m0)}), so the old ℓ and O "
            f"are multiplied by e^({num(m0)} − {num(mt)}) = {exps_text(factor)}: ℓ = "
            f"{exps_text(factor)}·{num(l0)} + {num(lt)} = {num(l1)}."
        )
    return (
        f"{name}: no larger score (m̃ = {num(mt)} ≤ m = {num(m0)}), factor 1; the tile's terms "
        f"are scaled by e^({num(mt)} − {num(m0)}) = {exps_text(new)}: ℓ = {num(l0)} + "
        f"{exps_text(new)}·{num(lt)} = {num(l1)}."
    )


def _row_cells(t: flash.Tile, r: int) -> list[str]:
    first = np.isneginf(t.m_before[r])
    return [
        num(float(t.m_before[r])),
        num(float(t.m_tile[r])),
        num(float(t.m_after[r])),
        "— (nothing before)" if first else exps_text(float(t.rescale[r])),
        num(float(t.l_before[r])),
        num(float(t.l_tile[r])),
        num(float(t.l_after[r])),
    ]


def _prefix_output(s: State, rows: tuple[int, int], c1: int) -> Matrix:
    """The block's running O after the keys before ``c1``: the online softmax over them
    (Algorithm 1 keeps O normalised by ℓ after every tile)."""
    b = s.blocks
    o, _ = flash.tiled_attention(s.scores[rows[0] : rows[1], :c1], s.v[:c1], b.block_rows,
                                 b.block_cols)  # fmt: skip
    return o


def _out_grid(name: str, label: str, o: Matrix, rows: list[str], cols: list[str],
              theme: str) -> Json:  # fmt: skip
    """An output grid printed to exactly 4 decimals, a tiny number as 0.0000: the tiled
    and the one-shot outputs differ by about 10⁻¹⁶, and their printed digits must not."""
    desc = matrix_grid(name, label, o, rows, cols, theme, role="z", row_title="queries",
                       col_title="columns of d")  # fmt: skip
    desc["text"] = [[fmt.fixed(float(x), 4) for x in row] for row in o]
    return desc


def _grids(s: State, rows: tuple[int, int], t: flash.Tile, theme: str, final: bool) -> list[Json]:
    names = [f"q_{i + 1}" for i in range(*rows)]
    keys = [vec_name("k", j) for j in range(s.n)]
    part = s.scores[rows[0] : rows[1]]
    blocked = np.isneginf(part)
    scores = matrix_grid("scores", "Q Kᵀ / √d", part, names, keys, theme,
                         blocked=blocked if blocked.any() else None, blocked_text="−∞",
                         row_title="queries", col_title="keys", hover_name="s",
                         outline={"cols": list(range(*t.cols))})  # fmt: skip
    scores["tiles"] = {"rows": [0], "cols": list(range(0, s.n, s.blocks.block_cols))}
    dims = [str(c + 1) for c in range(s.d)]  # narrow headers; the grid says "columns of d"
    o = _prefix_output(s, rows, t.cols[1])
    out = [
        grid_item(scores, f"Scores of {span(*rows)}, the tile of {span(*t.cols, 'keys')} outlined"),
        grid_item(
            _out_grid("output", "O", o, names, dims, theme), "Running output O (normalised by ℓ)"
        ),
    ]
    if final:
        one = s.one_shot[rows[0] : rows[1]]
        out.append(grid_item(_out_grid("output-one-shot", "softmax(Q Kᵀ / √d) V", one, names,
                                       dims, theme),
                             "One-shot softmax(Q Kᵀ / √d) V", "one pass"))  # fmt: skip
    return out


def _diff_line(s: State) -> str:
    return (
        f"max |tiled − one-shot| over all {s.n} × {s.d} outputs = "
        f"{fmt.significant(s.max_diff, 3)} (float64)"
    )


def _frame(s: State, block: int, step: int, t: flash.Tile, theme: str, last: int) -> Json:
    rows = block_rows(s, block)
    names = [f"q_{i + 1}" for i in range(*rows)]
    lines = [_row_line(names[r], t, r) for r in range(len(names))]
    head = (
        f"Step {step + 1} of {last + 1}: column tile {t.col_tile + 1}, "
        f"{span(*t.cols, 'keys')}, against {span(*rows)}."
    )
    caption = head + " " + " ".join(lines)
    if step == last:
        caption += f" All tiles done: {_diff_line(s)}."
    return {
        "step": step + 1,
        "caption": caption,
        "alt": caption,
        "grids": _grids(s, rows, t, theme, step == last),
        "narration": lines,
        "tables": [
            table(
                f"Step {step + 1}: each row's m and ℓ",
                HEADERS,
                names,
                [_row_cells(t, r) for r in range(len(names))],
            ),
        ],
        "grid_hint": "Outlined: the keys of column tile "
        f"{t.col_tile + 1} ({span(*t.cols, 'keys')}), the only ones on chip at this step.",
    }


def _reveal(s: State, block: int) -> Json:
    """Predict first: what happens to a row's running sum when its next tile arrives."""
    found = first_rescale(s, block)
    steps = steps_of(s, block)
    rows = block_rows(s, block)
    choices = [
        ["shrink", "multiplied by a factor below 1, then the tile's terms added"],
        ["keep", "kept as it is, the tile's terms added"],
        ["restart", "started again from the tile's own sum"],
    ]
    if found is None:  # no larger score arrives in this block: ask about the last row's
        step, r = len(steps) - 1, rows[1] - rows[0] - 1
        t = steps[step]
        factor = 1.0
    else:
        step, r = found
        t = steps[step]
        factor = float(t.rescale[r])
    name = f"q_{rows[0] + r + 1}"
    correct = "shrink" if factor < 1.0 else "keep"
    if step == 0:  # a single column tile: nothing before it
        correct = "restart"
    return {
        "question": f"Row {name} has seen {span(0, t.cols[0], 'keys') if t.cols[0] else 'no keys'}"
        f" when the tile of {span(*t.cols, 'keys')} arrives. What happens to its running sum ℓ?",
        "choices": choices,
        "correct": correct,
        "correct_label": dict(choices)[correct],
        "why": _row_line(name, t, r),
        "answer": f"{name} at step {step + 1}: factor {exps_text(factor)}",
    }


def _summary(s: State, block: int) -> str:
    found = first_rescale(s, block)
    if found is None:
        return "No row of this tile meets a larger score in a later tile: every factor is 1."
    step, r = found
    t = steps_of(s, block)[step]
    name = f"q_{block_rows(s, block)[0] + r + 1}"
    return (
        f"At step {step + 1} {name}'s max grew from {num(float(t.m_before[r]))} to "
        f"{num(float(t.m_after[r]))}: its ℓ and O were rescaled by "
        f"e^({num(float(t.m_before[r]))} − {num(float(t.m_after[r]))}) = "
        f"{exps_text(float(t.rescale[r]))}."
    )


def _trace_table(s: State, block: int) -> Json:
    rows = block_rows(s, block)
    heads, cells = [], []
    for step, t in enumerate(steps_of(s, block)):
        for r in range(rows[1] - rows[0]):
            heads.append(f"step {step + 1}, q_{rows[0] + r + 1}")
            cells.append(_row_cells(t, r))
    return table(f"Every step of {span(*rows)}", HEADERS, heads, cells)


def build_online(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    given = ctx.others.get("tiles") or {c.name: c.default for c in TILES.controls}
    s = state_of(given)
    warnings = []
    block = int(v["block"])
    if block >= s.blocks.row_tiles:
        warnings.append(f"Row tile {block + 1} does not exist here (1 … {s.blocks.row_tiles}); "
                        f"showing row tile {s.blocks.row_tiles}.")  # fmt: skip
        block = s.blocks.row_tiles - 1
    steps = steps_of(s, block)
    frames = [_frame(s, block, i, t, ctx.theme.name, len(steps) - 1) for i, t in enumerate(steps)]
    here = frames[-1]
    summary = _summary(s, block)
    reveal = _reveal(s, block)
    return lab_figure(
        ONLINE,
        caption=here["caption"],
        alt=here["alt"],
        grids=here["grids"],
        readout=[summary, _diff_line(s), reveal["answer"]],
        tables=[*here["tables"], _trace_table(s, block)],
        warnings=warnings,
        narration=here["narration"],
        grid_hint=here["grid_hint"],
        step=len(frames),
        steps=len(frames),
        frames=frames,
        reveal=reveal,
        choice_labels={
            "block": [
                f"row tile {i + 1} ({span(*block_rows(s, i))})" for i in range(s.blocks.row_tiles)
            ]
        },
    )


ONLINE = LabFigure(
    name="online",
    numpy="flash-online",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="H2",
    title="Online softmax, step by step",
    intro="One row tile meets the column tiles one at a time, as in Algorithm 1 (and Milakov "
    "and Gimelshein's online normalizer, 2018). Each row keeps only its running max m, sum ℓ "
    "and output O. When a tile holds a larger score, the old ℓ and O are multiplied by "
    "e^(m_old − m_new) before the tile is added. Step with ◀ ▶; the state is the tiles "
    "section's.",
    teaching="The softmax never needs the whole row at once: a running max and sum, rescaled "
    "when a larger score arrives, give exactly the one-shot output.",
    build=build_online,
    badges=("our example",),
    reads=("tiles",),
    controls=(
        # a 0-based row tile in the URL; the page names each by its rows (choice_labels)
        choice("block", "Row tile", 0, [(i, f"row tile {i + 1}") for i in range(MAX_N)]),
    ),
)
