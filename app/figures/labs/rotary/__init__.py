"""Lab `rotary` (issue 31, item 2): RoPE and ALiBi. One module per figure: ``rotation``
(J1, the score depends only on the offset m − n), ``wavelengths`` (J2, each pair's turn
from 2π to 2π·base^((d−2)/d)) and ``alibi`` (J3, the slopes, the bias −m·(i − j) and the
locality it gives each head); the state and the words they share in ``common``.

PURE. The maths is ``app.labs.rotary`` (θ_i, the rotation, rotate-then-dot and the
offset-only form), ``app.labs.alibi`` (the slopes for any head count, the bias, the
weights the bias alone makes) and ``app.labs.attend``; these modules only lay it out.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.rotary.alibi import ALIBI
from app.figures.labs.rotary.rotation import ROTATION
from app.figures.labs.rotary.wavelengths import WAVELENGTHS

FIGURES = (ROTATION, WAVELENGTHS, ALIBI)

LAB = Lab(
    id="rotary",
    title="RoPE and ALiBi",
    summary="Turn q and k by their positions and see the score depend on the offset only; "
    "bias the scores by distance, a slope per head.",
    entries="J1–J3",
    status="ready",
    figures=FIGURES,
    main_figure=(4, "Three projections of one X"),
    intro="Two ways to tell attention where tokens are without adding anything to X: rotate "
    "each pair of q and k by an angle per position (RoPE), or subtract a slope times the "
    "distance from each score (ALiBi).",
)
