"""Lab `one-query` (LABS.md §3, entries A1–A5): one query, by hand. One module per
figure: ``softmax_table`` (A1), ``alignment`` (A2), ``worked_query`` (A3),
``discriminate`` (A4), ``two_maps`` (A5).

PURE. Each builder takes its control values and a FigureContext and returns a lab figure.
A1 runs the engine's softmax stage on the scores; A2–A5 run attention through
``ctx.run["attention"]`` (a request body -> the engine's Stages, validated by the route).
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.one_query.alignment import ALIGNMENT
from app.figures.labs.one_query.discriminate import DISCRIMINATE
from app.figures.labs.one_query.softmax_table import SOFTMAX_TABLE
from app.figures.labs.one_query.two_maps import TWO_MAPS
from app.figures.labs.one_query.worked_query import WORKED_QUERY

FIGURES = (SOFTMAX_TABLE, ALIGNMENT, WORKED_QUERY, DISCRIMINATE, TWO_MAPS)

LAB = Lab(
    id="one-query",
    title="One query, by hand",
    summary="Turn three scores into weights and an output, aim a query, read entropy, "
    "compare one map with two.",
    entries="A1–A5",
    status="ready",
    figures=FIGURES,
    main_figure=(9, "One output row as a blend"),
    intro="One query at a time, every number in view: scores become exponentials, "
    "weights and a weighted average of the values.",
)
