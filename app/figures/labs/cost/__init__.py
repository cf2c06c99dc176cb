"""Lab `cost` (LABS.md §9, entries G1–G3): FLOPs of one attention layer and the crossover
N = 2·d_model, parameter counts, and what the sequence length costs. One module per
figure: ``flops`` (G1), ``params`` (G2), ``growth`` (G3).

PURE. Every count comes from ``app.labs.cost`` (exact Python integers, the same function
as ``POST /api/v1/cost``); these modules only lay them out.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.cost.flops import FLOPS
from app.figures.labs.cost.growth import GROWTH
from app.figures.labs.cost.params import PARAMS

FIGURES = (FLOPS, PARAMS, GROWTH)

LAB = Lab(
    id="cost",
    title="Cost",
    summary="Size FLOPs, parameters and the score table against N, d_model and h.",
    entries="G1–G3",
    status="ready",
    figures=FIGURES,
    main_figure=(1, "One step after another, or every pair at once"),
    intro="What one attention layer costs in multiply-adds, parameters and memory, as the "
    "sequence grows. Every count is an exact integer.",
)
