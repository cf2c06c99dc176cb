"""Figure 4: three projections of one X: X W^Q = Q, X W^K = K, X W^V = V.

Each row of the figure is ``input × W = result`` with shapes under every matrix and the
numbers in the cells; Q/K/V cells hover with their dot product (q₁₁ = 0·0 + … = 2). In
cross-attention K and V come from the source S; in direct mode Q, K, V are given.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import Json, numbered


def _row(c: Ctx, which: str) -> list[Json]:
    """'input × W = result' for Q, K or V; the result alone in direct mode."""
    result = {"grid": c.grid(which, rows=[c.focus] if which == "q" else [])}
    if c.stages.w_q is None:
        return [result]
    src = "source_x" if which != "q" and c.stages.cross else "x"
    rows = [c.focus] if src == "x" else []
    return [
        {"grid": c.grid(src, rows=rows) if rows else c.grid(src)},
        {"op": "×"},
        {"grid": c.grid(f"w_{which}")},
        {"op": "="},
        result,
    ]


def build(c: Ctx) -> dict[str, Any]:
    projected = c.stages.w_q is not None
    d_model = c.stages.x.shape[1] if c.stages.x is not None else None
    if projected:
        src = "X (and the source S for K and V)" if c.stages.cross else "the same X"
        caption = (
            f"Q, K and V are three different views of {src}, each made by one matrix "
            f"product{c.head_note}: X is {c.l_q} × {d_model}, W^Q and W^K are {d_model} × "
            f"{c.d_k}, W^V is {d_model} × {c.d_v}. Each cell of a result is the dot product of "
            "a token's row with one column of the weight matrix: point at a cell to see it."
        )
    else:
        caption = "Q, K and V were given directly (direct mode), so no projection is shown."
    f = c.focus
    readout = [
        c.projection_cell("q", 0, 0),
        f"{fmt.vec('q', f + 1)}, the query of {c.focus_token} (row {f + 1}): "
        f"{fmt.listing(c.text_row('q', f))}.",
    ]
    return figure(
        4,
        c.titles[4],
        caption,
        f"Three matrix products: X times W^Q gives Q ({c.l_q} × {c.d_k}), X times W^K gives K "
        f"({c.l_k} × {c.d_k}), X times W^V gives V ({c.l_k} × {c.d_v}).",
        [],
        {},
        readout=readout,
        panels=[_row(c, which) for which in ("q", "k", "v")],
        tables=[
            table(f"Q{c.head_note}", numbered(c.d_k), c.tokens, lambda: c.q_text),
            table(f"K{c.head_note}", numbered(c.d_k), c.key_tokens, lambda: c.k_text),
            table(f"V{c.head_note}", numbered(c.d_v), c.key_tokens, lambda: c.v_text),
        ],
    )
