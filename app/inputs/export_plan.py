"""The plans of ``GET`` and ``POST /api/v1/export``, ``GET /api/v1/export/figures.html``
and ``…/figure.svg`` (a state's stages as JSON, a zip of
CSVs or a NumPy script): the format checked, the state (a link's ``preset``/``s``, or an
``AttentionRequest`` body with the view in the query) validated and priced from its
shapes before the engine runs; the runner (``app.http.runner``) admits the work and the
route's work function resolves it. ``page_figures`` reads which main-page figures a
file holds (shared with ``attention-lab export``).

A refused state is a ``StateError`` (the API's ``invalid_state`` 422 naming the URL
parameter); the runner answers ``FieldError``, so the plan raises ``RefusedStateError``, which
carries the ``StateError`` through unchanged for the route to answer in its own shape.
"""

from __future__ import annotations

from app.figures.registry import BY_NUMBER, FIGURES
from app.inputs.body import AttentionRequest, check_limits
from app.inputs.errors import FieldError
from app.inputs.limits import attention_cost, request_shape
from app.inputs.link import LinkState
from app.inputs.plan import Ask, Plan
from app.inputs.resolve import StateError, make_plan, plan_link
from app.inputs.view import ViewState

FORMATS = ("json", "csv", "numpy")
ALL = "all"
NUMBERS = tuple(f.number for f in FIGURES)


class RefusedStateError(FieldError):
    """A ``StateError`` raised by a plan: ``state`` is answered as it is."""

    def __init__(self, state: StateError) -> None:
        super().__init__(state.param, state.message, [str(p) for p in state.loc])
        self.state = state


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise StateError("format", f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def plan_export_link(ask: Ask) -> Plan:
    """``args``: (the state's plan, the format)."""
    fmt = ask.query.get("format", "json")
    try:
        check_format(fmt)
        plan = plan_link(ask.query, ask.settings)  # reads preset or s and the view only
    except StateError as exc:
        raise RefusedStateError(exc) from None
    # Priced (and checked) by ``plan_link``; the runner's check of the same cost agrees.
    return Plan(plan.cost, plan.shape.reduce, args=(plan, fmt), field=plan.shape.field)


def plan_export_body(ask: Ask) -> Plan:
    """``args``: (the body's plan, the format). A bad format or view is the link's
    ``invalid_state`` 422 naming the query parameter; the body's own limits and price
    name its fields (the API's 422)."""
    body: AttentionRequest = ask.data
    fmt = ask.query.get("format", "json")
    try:
        check_format(fmt)
        view = ViewState.from_query(ask.query)  # reads the view's parameters only
    except FieldError as exc:
        raise RefusedStateError(StateError(exc.field, exc.message)) from None
    except StateError as exc:
        raise RefusedStateError(exc) from None
    link = LinkState(body=body.model_dump(exclude_unset=True), view=view)
    check_limits(body, ask.settings)
    shape = request_shape(body)
    cost = attention_cost(shape)
    plan = make_plan(link, body, shape, cost, "body")
    return Plan(cost, shape.reduce, args=(plan, fmt), field=shape.field)


def _choices() -> str:
    return f"{NUMBERS[0]} … {NUMBERS[-1]}"


def page_figures(text: str | None, param: str = "figures") -> tuple[int, ...]:
    """The figures a choice names, in order: one number, a comma-separated list, or
    ``all`` / nothing for every figure (StateError naming ``param`` otherwise)."""
    if text is None or text.strip() in ("", ALL):
        return NUMBERS
    out: list[int] = []
    for part in text.split(","):
        n = part.strip()
        if not n.isdigit() or int(n) not in BY_NUMBER:
            raise StateError(param, f"there is no Figure {n!r}; choose from {_choices()} or all")
        if int(n) not in out:
            out.append(int(n))
    return tuple(sorted(out))


def plan_figures_html(ask: Ask) -> Plan:
    """``GET /api/v1/export/figures.html`` (``args``: the state's plan, the figures),
    priced with every live figure it draws."""
    try:
        numbers = page_figures(ask.query.get("figures"))
        live = sum(1 for n in numbers if BY_NUMBER[n].builder is not None)
        plan = plan_link(ask.query, ask.settings, figures=max(1, live))
    except StateError as exc:
        raise RefusedStateError(exc) from None
    return Plan(plan.cost, plan.shape.reduce, args=(plan, numbers), field=plan.shape.field)


def plan_figure_svg(ask: Ask) -> Plan:
    """``GET /api/v1/export/figure.svg`` (``args``: the state's plan, the figure)."""
    try:
        number = page_figures(ask.query.get("figure", ""), "figure")
        if len(number) != 1:
            raise StateError("figure", "name one figure")
        plan = plan_link(ask.query, ask.settings, figures=1)
    except StateError as exc:
        raise RefusedStateError(exc) from None
    return Plan(plan.cost, plan.shape.reduce, args=(plan, number[0]), field=plan.shape.field)
