"""F1, four hand-set heads on the preset ``four-heads``: each head's weights and which
tokens a row looks at. PURE; attention runs through ``ctx.run["attention"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice
from app.figures.labs.parts import matrix_grid
from app.figures.labs.words import source_of
from app.presets import (
    FOUR_HEADS_NAMES,
    FOUR_HEADS_TOKENS,
    get_preset,
)

HEAD_CHOICES = (("all", "all four"), *((str(h), f"head {h}") for h in range(1, 5)))


ROW_CHOICES = tuple((str(i), f"{i} {t}") for i, t in enumerate(FOUR_HEADS_TOKENS))


def _looks_at(weights: Any, row: int) -> str:
    parts = [
        f"“{FOUR_HEADS_TOKENS[j]}” ({fmt.derived(float(w), 2)})"
        for j, w in enumerate(weights[row])
        if w > 0
    ]
    return " and ".join(parts)


def _grids(v: Mapping[str, Any], stages: Any, chosen: Any, theme: str) -> list[Json]:
    """The chosen heads' weights: one grid per head, or stacked as one tensor."""
    tokens = list(FOUR_HEADS_TOKENS)
    outline = {"rows": [int(v["row"])], "cols": [], "cells": []}
    if v["stack"] == "tensor":
        tensor = np.concatenate([stages.heads[h].weights for h in chosen], axis=0)
        rows = [f"h{h + 1} · {t}" for h in chosen for t in tokens]
        grids = [
            grid_item(
                matrix_grid(
                    "weights",
                    "A",
                    tensor,
                    rows,
                    tokens,
                    theme,
                    row_title="head · query",
                    col_title="key",
                ),
                f"the stacked tensor: {len(chosen)} × 10 × 10, one 10 × 10 slice per head",
            )
        ]
    else:
        grids = [
            grid_item(
                matrix_grid(
                    f"weights-h{h + 1}",
                    "A",
                    stages.heads[h].weights,
                    tokens,
                    tokens,
                    theme,
                    row_title="query",
                    col_title="key",
                    outline=outline,
                ),
                f"head {h + 1}: {FOUR_HEADS_NAMES[h]}",
            )
            for h in chosen
        ]
    return grids


QUOTES = [
    {
        **source_of("course-module"),
        "text": "“The four tables stack into one tensor, a layer per head.”",
    },
    {
        **source_of("textbook"),
        "text": "nobody assigns heads their jobs; training finds them.",
    },
]


def build_four_heads(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    found = get_preset("four-heads")
    assert found is not None
    stages = ctx.run["attention"](found["body"])
    tokens = list(FOUR_HEADS_TOKENS)
    row = int(v["row"])
    chosen = range(4) if v["head"] == "all" else [int(v["head"]) - 1]
    grids = _grids(v, stages, chosen, ctx.theme.name)
    readout = [
        f"head {h + 1} ({FOUR_HEADS_NAMES[h]}): “{tokens[row]}” looks at "
        f"{_looks_at(stages.heads[h].weights, row)}"
        for h in chosen
    ]
    sums = {float(s) for h in stages.heads for s in h.row_sum}
    return lab_figure(
        FOUR_HEADS,
        caption=f"Four heads read the same ten tokens at once, each in its own way; every row "
        f"of every head sums to {fmt.derived(min(sums), 2)}. These weights are set by hand to "
        f"mimic "
        "what trained heads often do: trained heads are found, not assigned.",
        alt="Four 10 × 10 attention maps over “The animal didn't cross the street because it "
        "was tired”: previous word, it → animal, verb → subject, start and because.",
        grids=grids,
        readout=readout,
        tables=[
            table(
                f"Head {h + 1}: {FOUR_HEADS_NAMES[h]} (1 decimal)",
                tokens,
                tokens,
                [[fmt.derived(float(x), 1) for x in r] for r in stages.heads[h].weights],
            )
            for h in chosen
        ],
        quotes=QUOTES,
    )


FOUR_HEADS = LabFigure(
    name="four-heads",
    entry="F1",
    title="Four hand-set heads on one sentence",
    intro="“The animal didn't cross the street because it was tired”, read by four heads at "
    "once. Pick a query token to see where it looks in each head.",
    teaching="Heads run in parallel over the same tokens and can attend in entirely different "
    "ways. Training finds their patterns; nobody designs them.",
    build=build_four_heads,
    badges=("our example",),
    controls=(
        choice("head", "Head", "all", HEAD_CHOICES),
        choice(
            "stack",
            "Show",
            "heatmaps",
            (("heatmaps", "four heatmaps"), ("tensor", "one stacked tensor")),
        ),
        choice("row", "Query token", "7", ROW_CHOICES),
    ),
)
