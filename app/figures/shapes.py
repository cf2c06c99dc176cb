"""Figure 13: the shape rules of one attention layer, with the current sizes.

Q is L_Q × d_k, K is L_K × d_k, V is L_K × d_v. Q and K must share d_k (the multiply),
K and V must share L_K (each key has one value row); L_Q and d_v are free; the output
is L_Q × d_v. Matrices are drawn as rectangles in proportion to their current sizes.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims


def build(c: Ctx) -> dict[str, Any]:
    cv = Canvas(c.t, 26)
    t = c.t
    # one unit of length per row/column, capped so the largest side fits in 18 units
    unit = min(3.0, 18.0 / max(c.l_q, c.l_k, c.d_k, c.d_v))
    mats = [
        ("Q", "q", c.l_q, c.d_k, 2.0),
        ("Kᵀ", "k", c.d_k, c.l_k, 24.0),
        ("A", "weights", c.l_q, c.l_k, 46.0),
        ("V", "v", c.l_k, c.d_v, 64.0),
        ("Z", "z", c.l_q, c.d_v, 84.0),
    ]
    top = 23.0
    for name, role, r, k, x in mats:
        w, h = max(k * unit, 2.5), max(r * unit, 2.5)
        cv.box(x, x + w, top - h, top, name, role=role, hover=f"{name}: {dims(r, k)}", size=12)
        cv.label(dims(r, k), x + w / 2, top - h - 1.6, color=t.muted, size=11)
    for text, x in (("·", 21.0), ("=", 43.0), ("·", 61.0), ("=", 81.0)):
        cv.label(text, x + 1, top - 4, size=20)
    rules = [
        f"Q and K share d_k = {c.d_k}: the multiply Q Kᵀ needs it.",
        f"K and V share L_K = {c.l_k}: each key has exactly one value row.",
        f"L_Q = {c.l_q} and d_v = {c.d_v} are free: any number of queries, any value width.",
        f"Output Z: L_Q × d_v = {dims(c.l_q, c.d_v)}.",
    ]
    # the rules are the readout under the figure (text that wraps on a phone), not labels
    data, layout = cv.figure_parts(250)
    caption = (
        f"Shapes through one layer{c.head_note}: Q is {dims(c.l_q, c.d_k)}, K is "
        f"{dims(c.l_k, c.d_k)}, V is {dims(c.l_k, c.d_v)}, so the scores are "
        f"{dims(c.l_q, c.l_k)} and the output is {dims(c.l_q, c.d_v)}."
    )
    return figure(
        13,
        c.titles[13],
        caption,
        f"Rectangles in proportion to Q, Kᵀ, the weights A, V and Z. {' '.join(rules)}",
        data,
        layout,
        readout=rules,
        tables=[
            table(
                "Shapes",
                ["rows", "columns"],
                ["Q", "K", "V", "Q Kᵀ and A", "Z"],
                [
                    [fmt.count(c.l_q), fmt.count(c.d_k)],
                    [fmt.count(c.l_k), fmt.count(c.d_k)],
                    [fmt.count(c.l_k), fmt.count(c.d_v)],
                    [fmt.count(c.l_q), fmt.count(c.l_k)],
                    [fmt.count(c.l_q), fmt.count(c.d_v)],
                ],
            )
        ],
    )
