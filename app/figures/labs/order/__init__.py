"""Lab `order` (LABS.md §7, entries E1–E3): permutation equivariance, sinusoidal positions,
and the reversed sentence. One module per figure: ``shuffle`` (E1), ``positional`` (E2),
``reversed`` (E3).

PURE. Attention runs through ``ctx.run["attention"]`` (a request body -> the engine's
Stages, validated as the API does), with ``positional`` for the position switch; the
positional-encoding heatmap comes from ``app.labs.positional``, the same function as
``POST /api/v1/positional-encoding``.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.order.positional import POSITIONAL
from app.figures.labs.order.reversed import REVERSED
from app.figures.labs.order.shuffle import SHUFFLE

FIGURES = (SHUFFLE, POSITIONAL, REVERSED)

LAB = Lab(
    id="order",
    title="Order and position",
    summary="Shuffle tokens, add sinusoidal positions, reverse a sentence.",
    entries="E1–E3",
    status="ready",
    figures=FIGURES,
    main_figure=(4, "Three projections of one X"),
    intro="Self-attention compares every token with every other, but nothing in Q Kᵀ says "
    "where a token sits. Shuffle the tokens, then add positions and shuffle again.",
)
