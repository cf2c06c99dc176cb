"""The plans of ``POST /api/v1/attention`` and ``POST /api/v1/softmax``: the body's size
limits checked and its price from the shapes alone, before the engine runs (the runner,
``app.http.runner``, checks the price against the budget and admits the work)."""

from __future__ import annotations

from app.inputs.body import AttentionOptionsRequest, check_limits
from app.inputs.limits import BYTES_PER_NUMBER, Cost, attention_cost, request_shape, softmax_cost
from app.inputs.plan import Ask, Plan
from app.inputs.softmax import SoftmaxRequest


def plan_attention(ask: Ask) -> Plan:
    """Every stage of attention: priced by ``attention_cost`` (``args``: the body)."""
    body: AttentionOptionsRequest = ask.data
    check_limits(body, ask.settings)
    shape = request_shape(body)
    return Plan(attention_cost(shape), shape.reduce, args=body, field=shape.field)


def softmax_budget(numbers: int) -> Cost:
    """A softmax body of ``numbers`` numbers, before parsing: one row of that many scores."""
    return softmax_cost(1, numbers)


def plan_softmax(ask: Ask) -> Plan:
    """The softmax of the scores, and with ``values`` the output of d_v numbers per row
    (``args``: the body); an over-budget answer names the larger of the two."""
    body: SoftmaxRequest = ask.data
    rows, n = body.shape()
    cost, field = softmax_cost(rows, n), "scores"
    values = body.values_array()
    if values is not None:  # the values, and an output of d_v numbers per row
        out = rows * (values.size // n)
        extra = Cost(values.size + out, out * BYTES_PER_NUMBER)
        field = "values" if extra.cells > cost.cells else field
        cost = cost + extra
    return Plan(cost, field, args=body)
