"""Lab `step-by-step` (LABS.md §4): B1, the two-token stepper, and B2, the per-position
view. One module per figure: ``stepper`` (B1, its narration in ``stepper_lines``) and
``per_position`` (B2).

PURE. The engine runs through ``ctx.run["attention"]`` (B1 runs it twice when the mask is
on: the unmasked run gives the ghost of row 0). Numbers in the narration follow the
course module's precision (4 significant digits, 3 decimals below 1); grids and tables
show 4 decimals, from unrounded weights.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.step_by_step.per_position import PER_POSITION
from app.figures.labs.step_by_step.stepper import STEPPER

FIGURES = (STEPPER, PER_POSITION)

LAB = Lab(
    id="step-by-step",
    title="The whole computation, step by step",
    summary="Step two tokens through scores, scale, mask, softmax and output; read one "
    "position's equations.",
    entries="B1–B2",
    status="ready",
    figures=FIGURES,
    main_figure=(3, "The whole computation, step by step"),
    intro="Two tokens through scores, scale, mask, softmax and the weighted sum, then "
    "one position's equations on any example.",
)
