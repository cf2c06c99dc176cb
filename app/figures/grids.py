"""Figure 7: one grid, three stages: raw scores Q Kᵀ → scaled (÷ the real divisor) → weights.

Same L_Q × L_K shape throughout. Blocked cells are gaps (z null) printed −∞ in the middle
grid and 0 in the weights grid.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table


def scale_phrase(c: Ctx) -> str:
    """'÷ 2' or '÷ 1 (scaling off)': the arrow label between the first two grids."""
    if not c.stages.scale:
        return "÷ 1 (scaling off)"
    return f"÷ {c.divisor_text}"


def order_sentence(c: Ctx) -> str:
    """Scaling divides by a positive number, so each row keeps its order (and softmax too)."""
    f = c.focus
    if f in c.blocked_rows:
        return f"Row {f + 1} has no allowed key, so nothing is ranked."
    top = c.key_tokens[int(c.h.row_argmax[f])]
    how = "Dividing by a positive number" if c.stages.scale else "Softmax"
    return (
        f"{how} keeps the order of every row: in row {f + 1} ({c.focus_token}) {top} has "
        "the largest raw score, the largest scaled score and the largest weight. What "
        "changes is how far apart the weights are."
    )


def build(c: Ctx) -> dict[str, Any]:
    h = c.h
    step = scale_phrase(c)
    f = c.focus
    arrow = step + (" and mask" if c.masked_any else "")
    panels = [
        [
            {"grid": c.grid("scores", rows=[f])},
            {"arrow": arrow},
            {"grid": c.grid(c.masked_name, rows=[f])},
            {"arrow": "softmax per row"},
            {"grid": c.grid("weights", rows=[f])},
        ]
    ]
    shape = f"{c.l_q} × {c.l_k}"
    if c.stages.scale:
        why = f"divided by √d_k = √{c.d_k} = {fmt.value(h.divisor)}"
        if "≈" in c.divisor_text:
            why = f"divided by √d_k = √{c.d_k} ≈ {fmt.derived(h.divisor)}"
    else:
        why = "left as they are (scaling is off, so the divisor is 1)"
    caption = (
        f"The same {shape} grid at three stages{c.head_note}. Raw dot products q·k are {why}, "
        f"then each row goes through softmax so it sums to 1."
    )
    if c.masked_any:
        caption += (
            f" Cells blocked by {c.mask_why} become −∞ before the softmax and exactly 0 after."
        )
    raw, scaled, weights = (fmt.listing(c.text_row(n, f)) for n in ("scores", "masked", "weights"))
    readout = [
        f"Row {f + 1} ({c.focus_token}): raw {raw} → scaled {scaled} → weights {weights}.",
        order_sentence(c),
    ]
    return figure(
        7,
        c.titles[7],
        caption,
        f"Three {shape} grids side by side: raw scores, scores {step}, and the weights.",
        [],
        {},
        readout=readout,
        panels=panels,
        tables=[
            table("Q Kᵀ: raw scores", c.key_tokens, c.tokens, lambda: c.scores_text),
            table(f"Scaled scores ({step})", c.key_tokens, c.tokens, lambda: c.masked_text),
            table("A: weights", c.key_tokens, c.tokens, lambda: c.weights_text),
        ],
    )
