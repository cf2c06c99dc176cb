"""The labs: seven pages where the learner does the work (LABS.md). PURE, like app.figures.

``LABS`` is the registry, in index order: each ``Lab`` (base.py) with its id, title,
one-line summary, entries, status and figures. The routes in ``app/web/labs.py`` serve

* ``GET /labs``                     the index (every lab; a coming lab is listed, not linked),
* ``GET /labs/{id}``                the page (templates/labs/lab.html draws every figure),
* ``GET /labs/{id}/figures.json``   the figure descriptions for a URL state (the page's JS),
* ``GET /embed/labs/{id}/{figure}`` one figure for an iframe, same URL state.

How to add a lab (or turn a coming one into a page)
---------------------------------------------------
1. Write ``app/figures/labs/<id>.py`` (module name with ``_`` for ``-``): for each figure a
   builder ``build(values, ctx) -> lab_figure(...)`` and a ``LabFigure`` naming it, its
   entry (``"D1"``), title, intro, teaching point, controls (controls.py: number, integer,
   toggle, choice, steps, vector, matrix, multi) and badges ("reconstructed", "our
   example"). Builders are pure: they format every number; computations the route owns
   (attention, experiments) arrive through ``ctx.run``.
2. Add its ``Lab(...)`` with ``status="ready"`` to ``LABS`` below (replacing the coming
   entry), and a picture ``static/img/labs/<id>.svg`` for the index.
3. Optional: ``templates/labs/<id>.html`` extending ``labs/lab.html`` for prose around the
   figures (block ``lab_intro``). The generic page already renders every control, figure,
   share toolbar, table alternative, quotation and badge.
4. Tests: tests/http/test_labs_pages*.py and tests/browser/test_labs_*.py show the pattern.
"""

from __future__ import annotations

from app.figures.labs import one_query, one_query_maps, step_by_step, why_scale, why_scale_more
from app.figures.labs.base import FigureContext, Lab, LabFigure, lab_figure
from app.figures.labs.labs2 import LABS_II

__all__ = ["LABS", "FigureContext", "Lab", "LabFigure", "get_lab", "lab_figure"]

LABS: tuple[Lab, ...] = (
    Lab(
        id="one-query",
        title="One query, by hand",
        summary="Turn three scores into weights and an output, aim a query, read entropy, "
        "compare one map with two.",
        entries="A1–A5",
        status="ready",
        figures=(
            one_query.SOFTMAX_TABLE,
            one_query.ALIGNMENT,
            one_query.WORKED_QUERY,
            one_query_maps.DISCRIMINATE,
            one_query_maps.TWO_MAPS,
        ),
        intro="One query at a time, every number in view: scores become exponentials, "
        "weights and a weighted average of the values.",
    ),
    Lab(
        id="step-by-step",
        title="The whole computation, step by step",
        summary="Step two tokens through scores, scale, mask, softmax and output; read one "
        "position's equations.",
        entries="B1–B2",
        status="ready",
        figures=(step_by_step.STEPPER, step_by_step.PER_POSITION),
        intro="Two tokens through scores, scale, mask, softmax and the weighted sum, then "
        "one position's equations on any example.",
    ),
    Lab(
        id="why-scale",
        title="Why scale by √d_k",
        summary="Run seeded experiments: score variance, saturation, a scaling table and a "
        "flat line.",
        entries="C1–C4",
        status="ready",
        figures=(
            why_scale.SCORE_HISTOGRAM,
            why_scale.SATURATION,
            why_scale_more.SCALING_TABLE,
            why_scale_more.FLAT_LINE,
        ),
        intro="For random q and k, q·k has mean 0 and variance d_k, so raw scores grow like "
        "√d_k, softmax saturates and its gradient term p(1 − p) vanishes. Dividing by √d_k "
        "restores unit variance. Every experiment here is seeded: a link reruns it exactly.",
    ),
    *LABS_II,
)


def get_lab(lab_id: str) -> Lab | None:
    return next((lab for lab in LABS if lab.id == lab_id), None)
