"""The labs: nine pages where the learner does the work (LABS.md). PURE, like app.figures.

``LABS`` is the registry, in index order: each ``Lab`` (base.py) with its id, title,
one-line summary, entries, status and figures. The routes in ``app/web/labs.py`` serve

* ``GET /labs``                     the index (every lab; a coming lab is listed, not linked),
* ``GET /labs/{id}``                the page (templates/labs/lab.html draws every figure),
* ``GET /labs/{id}/figures.json``   the figure descriptions for a URL state (the page's JS),
* ``GET /embed/labs/{id}/{figure}`` one figure for an iframe, same URL state.

How to add a lab (or turn a coming one into a page)
---------------------------------------------------
1. Write a package ``app/figures/labs/<id>/`` (name with ``_`` for ``-``), one module per
   figure holding its builder ``build(values, ctx) -> lab_figure(...)`` and a
   ``LabFigure`` naming it, its entry (``"D1"``), title, intro, teaching point, controls
   (controls.py: number, integer, toggle, choice, steps, vector, matrix, multi) and
   badges ("reconstructed", "our example"). Builders are pure: they format every
   number; computations the route owns (attention, experiments) arrive through
   ``ctx.run``.
2. Define its ``FIGURES`` and ``LAB = Lab(...)`` with ``status="ready"`` in the package's
   ``__init__.py``, list it in ``LABS`` below, and add a picture
   ``static/img/labs/<id>.svg`` for the index.
3. Optional: ``templates/labs/<id>.html`` extending ``labs/lab.html`` for prose around the
   figures (block ``lab_intro``). The generic page already renders every control, figure,
   share toolbar, table alternative, quotation and badge.
4. Tests: tests/http/test_labs_pages*.py and tests/browser/test_labs_*.py show the pattern.
"""

from __future__ import annotations

from app.figures.labs import (
    cost,
    flash,
    generation,
    heads,
    masks,
    one_query,
    order,
    rotary,
    step_by_step,
    why_scale,
)
from app.figures.labs.base import FigureContext, Lab, LabFigure, lab_figure

__all__ = ["LABS", "FigureContext", "Lab", "LabFigure", "get_lab", "lab_figure"]

# Index order. Each lab's entry (id, title, summary, figures) lives in its package.
LABS: tuple[Lab, ...] = (
    one_query.LAB,
    step_by_step.LAB,
    why_scale.LAB,
    masks.LAB,
    order.LAB,
    heads.LAB,
    cost.LAB,
    flash.LAB,
    generation.LAB,
    rotary.LAB,
)


def get_lab(lab_id: str) -> Lab | None:
    return next((lab for lab in LABS if lab.id == lab_id), None)
