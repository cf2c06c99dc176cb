"""The plan of ``POST /api/v1/figures`` (the same body as /attention plus ``view``): its
limits checked and its price from the shapes alone, before the engine runs."""

from __future__ import annotations

from app.inputs.body import check_limits
from app.inputs.limits import figures_cost, request_shape
from app.inputs.plan import Ask, Plan
from app.inputs.view import FiguresRequest, check_figure_shape

ALL_FIGURES = 11  # figures built when the view names none


def plan_figures(ask: Ask) -> Plan:
    """``args``: (the body, ``draw``, whether the answer may be gzipped)."""
    body: FiguresRequest = ask.data
    check_limits(body, ask.settings)
    shape = request_shape(body)
    check_figure_shape(shape, ask.settings)
    wanted = body.view.figures if body.view and body.view.figures else None
    cost = figures_cost(shape, len(set(wanted)) if wanted else ALL_FIGURES)
    draw = ask.query.get("draw", "plotly")  # checked by the route's declaration
    return Plan(cost, shape.reduce, args=(body, draw, ask.gzip), field=shape.field)
