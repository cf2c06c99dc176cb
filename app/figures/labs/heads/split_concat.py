"""F2, split, concatenate and mix with W^O on the preset ``two-heads``. PURE; attention
runs through ``ctx.run["attention"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, matrix, toggle
from app.figures.labs.parts import matrix_grid, root_text
from app.figures.labs.words import source_of
from app.presets import (
    RUNNING_EXAMPLE,
    W_O_TWO_HEADS,
)

SPLITS = (("1", "1 head of width 4"), ("2", "2 heads of width 2"), ("4", "4 heads of width 1"))


IDENTITY = [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]


def _grids(stages: Any, theme: str, identity: bool) -> tuple[list[Json], list[str]]:
    """Each head's weights, the concatenation and the output after W^O; and the
    concatenation's column names (head · column)."""
    tokens = list(stages.tokens)
    width = stages.concat.shape[1] // len(stages.heads)
    grids = [
        grid_item(
            matrix_grid(f"weights-h{i + 1}", "A", hd.weights, tokens, tokens, theme),
            f"head {i + 1}: columns {i * width + 1}–{(i + 1) * width} of Q, K and V; "
            f"divisor {root_text(hd.d_k)}",
        )
        for i, hd in enumerate(stages.heads)
    ]
    # head · column, both counted from 1 as the page counts
    cols = [f"h{i // width + 1}·{i % width + 1}" for i in range(stages.concat.shape[1])]
    grids.append(
        grid_item(
            matrix_grid(
                "concat",
                "concat",
                stages.concat,
                tokens,
                cols,
                theme,
                role="z",
                col_title="head · column",
            ),
            "the head outputs side by side (columns named by head)",
        )
    )
    grids.append(
        grid_item(
            matrix_grid(
                "final",
                "output",
                stages.output,
                tokens,
                [str(j + 1) for j in range(stages.output.shape[1])],
                theme,
                role="z",
            ),
            "identity W^O: the output is the concatenation"
            if identity
            else "concat × W^O: mixed back to model width",
        )
    )
    return grids, cols


def build_split_concat(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    h = int(v["heads"])
    w_o = IDENTITY if v["wo_identity"] else [list(r) for r in v["w_o"]]
    stages = ctx.run["attention"]({**RUNNING_EXAMPLE, "heads": h, "w_o": w_o})
    tokens = list(stages.tokens)
    width = stages.concat.shape[1] // h
    grids, _ = _grids(stages, ctx.theme.name, bool(v["wo_identity"]))
    caption = (
        f"{h} head{'s' * (h != 1)} of width {width}: each sees only its own {width} columns "
        f"of Q, K and V and divides by {root_text(width)}. "
        + (
            "With W^O the identity, the output is the concatenation itself."
            if v["wo_identity"]
            else "W^O mixes the concatenated outputs back to d_model = 4."
        )
    )
    return lab_figure(
        SPLIT_CONCAT,
        caption=caption,
        alt=f"The weights of {h} heads side by side, their concatenated outputs and the "
        "output after W^O.",
        grids=grids,
        readout=[
            f"concat is {stages.concat.shape[0]} × {stages.concat.shape[1]}; "
            f"W^O is {len(w_o)} × {len(w_o[0])}; output is "
            f"{stages.output.shape[0]} × {stages.output.shape[1]}"
        ],
        tables=[
            table(
                "Output after W^O, one column per column of d_model",
                [str(j + 1) for j in range(stages.output.shape[1])],
                tokens,
                [[fmt.output(float(x)) for x in r] for r in stages.output],
            )
        ],
        quotes=[
            {
                **source_of("course-module"),
                "text": "MultiHead = [head_1; …; head_h]·W^O. The output projection W^O "
                "has h·d_v rows and d_model columns: it maps the joined outputs back to model "
                "width.",
            }
        ],
    )


SPLIT_CONCAT = LabFigure(
    name="split-concat",
    entry="F2",
    title="Split, concatenate, mix with W^O",
    intro="The running example of {tutorial} split into two heads, mixed by the output "
    "projection W^O of {course-module} (the tutorial has no W^O; these numbers are our "
    "example). Change the number of heads, edit W^O or set it to the identity to see the "
    "concatenation alone.",
    teaching="Each head sees only its slice of columns and divides by its own √d_k. "
    "Concatenation lays the outputs side by side, and W^O mixes them back to model width.",
    build=build_split_concat,
    numpy="split-concat",
    controls=(
        choice("heads", "Heads h", "2", SPLITS),
        toggle("wo_identity", "W^O = identity (h·d_v = d_model = 4)", False),
        matrix(
            "w_o",
            "W^O, the output projection of the course module “Attention” (our numbers)",
            W_O_TWO_HEADS,
            -10,
            10,
            1,
            extra={"disabled_by": "wo_identity"},
        ),
    ),
)
