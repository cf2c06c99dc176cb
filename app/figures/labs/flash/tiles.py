"""H1, the tiles: the N × N scores of a small state cut into B_r × B_c tiles by
Algorithm 1's block sizes for an on-chip memory of M numbers. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import integer, toggle
from app.figures.labs.flash.common import MAX_D, MAX_N, MAX_SRAM, State, span, state_of, tile_edges
from app.figures.labs.parts import matrix_grid
from app.figures.labs.words import vec as vec_name


def _reveal(s: State) -> Json:
    """Predict first: how many tiles the score matrix is cut into."""
    b = s.blocks
    right = b.row_tiles * b.col_tiles
    options = sorted({right, b.col_tiles, b.row_tiles + b.col_tiles, 2 * right} - {0})
    return {
        "question": f"N = {s.n}, d = {s.d} and an on-chip memory of M = {s.sram} numbers: "
        "into how many tiles does Algorithm 1 cut the N × N score matrix?",
        "choices": [[str(x), f"{x} tiles"] for x in options],
        "correct": str(right),
        "correct_label": f"{right} tiles",
        "why": f"B_c = ⌈M / 4d⌉ = ⌈{s.sram} / {4 * s.d}⌉ = {b.block_cols} keys and B_r = "
        f"min(B_c, d) = {b.block_rows} queries per tile, so T_r = ⌈N / B_r⌉ = {b.row_tiles} "
        f"row tiles times T_c = ⌈N / B_c⌉ = {b.col_tiles} column tiles.",
        "answer": f"{right} tiles of at most {b.block_rows} × {b.block_cols}",
    }


def _tile_table(s: State) -> Json:
    b = s.blocks
    rows = [
        ["B_c = ⌈M / 4d⌉", f"⌈{s.sram} / {4 * s.d}⌉ = {b.block_cols}"],
        ["B_r = min(⌈M / 4d⌉, d)", f"min({b.block_cols}, {s.d}) = {b.block_rows}"],
        ["T_r = ⌈N / B_r⌉", f"⌈{s.n} / {b.block_rows}⌉ = {b.row_tiles}"],
        ["T_c = ⌈N / B_c⌉", f"⌈{s.n} / {b.block_cols}⌉ = {b.col_tiles}"],
        ["tiles T_r · T_c", fmt.count(b.row_tiles * b.col_tiles)],
    ]
    return table(
        "Algorithm 1's block sizes and tile counts",
        ["value"],
        [r[0] for r in rows],
        [[r[1]] for r in rows],
    )


def build_tiles(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    s = state_of(v)
    b = s.blocks
    tokens = [f"q_{i + 1}" for i in range(s.n)]
    keys = [vec_name("k", j) for j in range(s.n)]
    blocked = np.isneginf(s.scores)
    desc = matrix_grid(
        "scores",
        "Q Kᵀ / √d",
        s.scores,
        tokens,
        keys,
        ctx.theme.name,
        blocked=blocked if blocked.any() else None,
        blocked_text="−∞",
        row_title="queries",
        col_title="keys",
        hover_name="s",
    )
    desc["tiles"] = tile_edges(b, s.n)
    ragged = s.n % b.block_rows or s.n % b.block_cols
    caption = (
        f"B_c = ⌈{s.sram} / {4 * s.d}⌉ = {b.block_cols} keys and B_r = min({b.block_cols}, "
        f"{s.d}) = {b.block_rows} queries per tile: the {s.n} × {s.n} scores fall into "
        f"{b.row_tiles} × {b.col_tiles} = {b.row_tiles * b.col_tiles} tiles"
        + (", the last ones smaller." if ragged else ".")
        + " Only one tile's scores need be on chip at a time."
    )
    reveal = _reveal(s)
    return lab_figure(
        TILES,
        caption=caption,
        alt=f"The {s.n} × {s.n} scaled scores with lines between {b.row_tiles} row tiles of "
        f"{b.block_rows} queries and {b.col_tiles} column tiles of {b.block_cols} keys.",
        grids=[grid_item(desc, f"Scores cut into {b.block_rows} × {b.block_cols} tiles")],
        readout=[
            "row tiles: " + fmt.listing([span(*_rows(s, i)) for i in range(b.row_tiles)], 6),
            "column tiles: "
            + fmt.listing([span(*_cols(s, j), "keys") for j in range(b.col_tiles)], 6),
            reveal["answer"],
        ],
        tables=[_tile_table(s)],
        reveal=reveal,
    )


def _rows(s: State, i: int) -> tuple[int, int]:
    r0 = i * s.blocks.block_rows
    return r0, min(r0 + s.blocks.block_rows, s.n)


def _cols(s: State, j: int) -> tuple[int, int]:
    c0 = j * s.blocks.block_cols
    return c0, min(c0 + s.blocks.block_cols, s.n)


def settle_tiles(v: dict[str, Any]) -> dict[str, Any]:
    """M at least 4·d: Algorithm 1 needs one row each of Q, K, V and O on chip."""
    return {**v, "sram": max(int(v["sram"]), 4 * int(v["d"]))}


TILES = LabFigure(
    name="tiles",
    numpy="flash-tiles",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="H1",
    title="Tiles",
    intro="FlashAttention (Dao et al., 2022, Algorithm 1) never writes the N × N scores to "
    "the GPU's main memory: it cuts them into tiles small enough for the on-chip memory of M "
    "numbers, B_c = ⌈M / 4d⌉ keys by B_r = min(⌈M / 4d⌉, d) queries. Q, K and V are our "
    "example: whole numbers drawn from the seed. Change N, d or M and count the tiles.",
    teaching="The block sizes come from the on-chip memory alone: a smaller M means smaller "
    "tiles and more of them, never a different answer.",
    build=build_tiles,
    badges=("our example",),
    settle=settle_tiles,
    controls=(
        integer("n", "Tokens N", 8, 2, MAX_N),
        integer("d", "Width d", 4, 1, MAX_D),
        integer(
            "sram",
            "On-chip memory M (numbers)",
            32,
            4,
            MAX_SRAM,
            hint="At least 4·d: one row each of Q, K, V and O.",
        ),
        integer("seed", "Seed of Q, K, V", 0, 0, 9999),
        toggle("causal", "Causal mask", False),
    ),
)
