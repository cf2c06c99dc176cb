"""The plans of the why-scale experiments' "Copy as NumPy" routes
(``POST /api/v1/experiments/{score-variance, saturation, scaling-table}/numpy``): the body,
parsed strictly by its request model (``app.inputs.experiments``), as the pure parameters
the script is written for, priced before the script is made (the runner,
``app.http.runner``, checks the price and sends the answer).

A script is text from a template with the parameters written in (no draw runs), so its
price is its size alone: ``SCRIPT_BYTES`` bounds every script the bounded fields allow
(the HTTP tests write the longest one and check it fits).
"""

from __future__ import annotations

from app.inputs.limits import Cost
from app.inputs.plan import Ask, Plan

# A template of under 3 KB plus at most 16 widths of 4 digits and a 16-digit seed (twice):
# 8 KiB leaves room for the templates to grow; a test fails when a script outgrows it.
SCRIPT_BYTES = 8 * 1024


def plan_script(ask: Ask) -> Plan:
    """The script of ``ask.data`` (a ``ScoreVarianceRequest``, ``SaturationRequest`` or
    ``ScalingTableRequest``): no numbers held, ``SCRIPT_BYTES`` answered (``args``: the
    experiment's parameters)."""
    return Plan(Cost(0, SCRIPT_BYTES), "the body", args=ask.data.to_params())
