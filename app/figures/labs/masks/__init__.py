"""Lab `masks` (LABS.md §6, entries D1–D3): kinds of mask, mask before vs after softmax,
and a row with no allowed key. One module per figure: ``kinds`` (D1), ``order`` (D2),
``empty_row`` (D3); ``common`` holds D1's shared L, S and masks.

PURE. D1 and D2 run the engine's softmax stage on the L × L score matrix S with an
``allowed`` mask (the same computation as ``POST /api/v1/softmax`` with ``mask``,
``allowed`` and ``mask_order``); D3 runs attention on the running example with a
``<pad>`` token in front, through ``ctx.run["attention"]``.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.masks.empty_row import EMPTY_ROW
from app.figures.labs.masks.kinds import MASK_KINDS
from app.figures.labs.masks.order import MASK_ORDER

FIGURES = (MASK_KINDS, MASK_ORDER, EMPTY_ROW)

LAB = Lab(
    id="masks",
    title="Masks",
    summary="Combine causal, padding and window masks; mask before or after softmax; empty a row.",
    entries="D1–D3",
    status="ready",
    figures=FIGURES,
    main_figure=(6, "The attention weight matrix"),
    intro="Masks decide which keys each query may read: a blocked score becomes −∞ and its "
    "weight exactly 0. Combine them, move them after the softmax, and empty a row.",
)
