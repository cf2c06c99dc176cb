"""The plan of ``GET /api/v1/export`` (a linked state's stages as JSON, a zip of CSVs or
a NumPy script): the format checked, the state decoded, validated and priced from its
shapes (``app.inputs.resolve.plan_link``) before the engine runs; the runner
(``app.http.runner``) admits the work and the route's work function resolves it.

A refused state is a ``StateError`` (the API's ``invalid_state`` 422 naming the URL
parameter); the runner answers ``FieldError``, so the plan raises ``RefusedStateError``, which
carries the ``StateError`` through unchanged for the route to answer in its own shape.
"""

from __future__ import annotations

from app.inputs.errors import FieldError
from app.inputs.plan import Ask, Plan
from app.inputs.resolve import StateError, plan_link

FORMATS = ("json", "csv", "numpy")


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
