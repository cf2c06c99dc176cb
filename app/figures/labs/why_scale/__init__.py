"""Lab `why-scale` (LABS.md §5), entries C1–C4. One module per figure:
``score_histogram`` (C1), ``saturation`` (C2, its chart in ``saturation_chart``),
``scaling_table`` (C3), ``flat_line`` (C4).

PURE. Each figure names the seeded experiment runs it needs (``runs(values, preview)`` ->
[(name, body)], bodies as for ``POST /api/v1/experiments/{name}``); the route runs them
(with progress for large runs) and hands the results in through
``ctx.run["experiment"](name, body)``. A preview (a slider being dragged) asks for a
smaller run; releasing the slider asks for the full one. C4 runs the engine's softmax
stage directly.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.why_scale.flat_line import FLAT_LINE
from app.figures.labs.why_scale.saturation import SATURATION
from app.figures.labs.why_scale.scaling_table import SCALING_TABLE
from app.figures.labs.why_scale.score_histogram import SCORE_HISTOGRAM

FIGURES = (SCORE_HISTOGRAM, SATURATION, SCALING_TABLE, FLAT_LINE)

LAB = Lab(
    id="why-scale",
    title="Why scale by √d_k",
    summary="Run seeded experiments: score variance, saturation, a scaling table and a flat line.",
    entries="C1–C4",
    status="ready",
    figures=FIGURES,
    main_figure=(12, "Softmax saturation"),
    intro="For random q and k, q·k has mean 0 and variance d_k, so raw scores grow like "
    "√d_k, softmax saturates and its gradient term p(1 − p) vanishes. Dividing by √d_k "
    "restores unit variance. Every experiment here is seeded: a link reruns it exactly.",
)
