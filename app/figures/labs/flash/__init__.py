"""Lab `flash` (issue 31, item 3): FlashAttention's tiles, its online softmax step by
step, and its memory traffic. One module per figure: ``tiles`` (H1), ``online`` (H2)
and ``traffic`` (H3); the state they share in ``common``.

PURE. The maths is ``app.labs.flash`` (Algorithm 1's block sizes, the tiled run and its
trace, Theorem 2's expressions) and ``app.labs.attend`` (the one-shot softmax); these
modules only lay the numbers out.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.flash.online import ONLINE
from app.figures.labs.flash.tiles import TILES
from app.figures.labs.flash.traffic import TRAFFIC

FIGURES = (TILES, ONLINE, TRAFFIC)

LAB = Lab(
    id="flash",
    title="FlashAttention's online softmax",
    summary="Cut the scores into tiles, run the softmax tile by tile with a running max "
    "and sum, and see the memory traffic it saves.",
    entries="H1–H3",
    status="ready",
    figures=FIGURES,
    main_figure=(6, "The attention weight matrix"),
    intro="Exact attention without the N × N matrix in memory: tiles small enough for the "
    "chip, a running max and sum per row, and the same output to the last digits.",
)
