"""Figure 8: A × V = Z, every cell filled, with the focus row of A and of Z outlined and
joined, and the first entry of that Z row written out as a sum of weight × value.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt, multihead
from app.figures.context import Ctx, figure, table
from app.figures.style import Json, numbered


def build_8(c: Ctx) -> dict[str, Any]:
    f = c.focus
    panels: list[list[Json]] = [
        [
            {"grid": c.grid("weights", rows=[f])},
            {"op": "×"},
            {"grid": c.grid("v")},
            {"op": "="},
            {"grid": c.grid("output", rows=[f])},
        ]
    ]
    panels += multihead.rows(c)
    first = c.output_cell(f, 0)
    cols_v = numbered(c.d_v)
    caption = (
        f"Each row of Z is the matching row of A times V{c.head_note}: the weights of "
        f"{c.focus_token} (row {f + 1}, outlined) blend the {c.l_k} value "
        f"row{'s' if c.l_k != 1 else ''} into its output row {fmt.vec('z', f + 1)} (outlined). "
        f"A is {c.l_q} × {c.l_k}, V is {c.l_k} × {c.d_v}, Z is {c.l_q} × {c.d_v}."
    )
    readout = [
        f"First entry of {fmt.vec('z', f + 1)} ({c.focus_token}): {first}",
        f"{fmt.vec('z', f + 1)} ({c.focus_token}): {fmt.listing(c.text_row('output', f))}.",
    ]
    heads = multihead.sentence(c)
    if heads:
        readout.append(heads)
    return figure(
        8,
        c.titles[8],
        caption,
        f"Three grids: the {c.l_q} × {c.l_k} weights times the {c.l_k} × {c.d_v} values "
        f"give the {c.l_q} × {c.d_v} output. {readout[0]}",
        [],
        {},
        readout=readout,
        panels=panels,
        tables=[
            table("A: weights", c.key_tokens, c.tokens, lambda: c.weights_text),
            table("V: values", cols_v, c.key_tokens, lambda: c.v_text),
            table("Z: output", cols_v, c.tokens, lambda: c.output_text),
        ],
    )
