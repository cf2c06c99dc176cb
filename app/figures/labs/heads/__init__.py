"""Lab `heads` (LABS.md §8, entries F1–F3): four hand-set heads, split / concatenate / mix
with W^O, and the divisor that follows the head width. One module per figure:
``four_heads`` (F1), ``split_concat`` (F2), ``head_width`` (F3).

PURE. F1 and F2 run attention through ``ctx.run["attention"]`` on the presets
``four-heads`` and ``two-heads``; F3 counts with ``app.labs.cost`` (the integers of
``POST /api/v1/cost``).
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.heads.four_heads import FOUR_HEADS
from app.figures.labs.heads.head_width import HEAD_WIDTH
from app.figures.labs.heads.split_concat import SPLIT_CONCAT

FIGURES = (FOUR_HEADS, SPLIT_CONCAT, HEAD_WIDTH)

LAB = Lab(
    id="heads",
    title="Many heads",
    summary="Read four hand-set heads, split and recombine with W^O, change h.",
    entries="F1–F3",
    status="ready",
    figures=FIGURES,
    main_figure=(13, "Shape rules"),
    intro="Multi-head attention runs h small attentions side by side on slices of Q, K and "
    "V, then mixes their outputs with W^O.",
)
