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
    """Scaling divides by a positive number, so each row keeps its order (and softmax too):
    the focus row's top key, named for this state (ties and masked keys said as they are)."""
    f = c.focus
    named = f"{c.focus_token} (row {f + 1})"
    if f in c.blocked_rows:
        return f"{named} has no allowed key, so nothing is ranked."
    if int(c.stages.allowed[f].sum()) == 1:
        return (
            f"{named} may see one key only, so there is nothing to order: its weight is 1 "
            "whatever the score."
        )
    raw = c.h.scores[f]
    allowed = c.stages.allowed[f]
    best = raw[allowed].max()
    tops = [c.key_tokens[j] for j in range(c.l_k) if allowed[j] and raw[j] == best]
    how = "Dividing by a positive number" if c.stages.scale else "Softmax"
    who = f"{tops[0]} has" if len(tops) == 1 else f"{', '.join(tops[:-1])} and {tops[-1]} tie for"
    among = " among the keys it may see" if not allowed.all() else ""
    text = (
        f"{how} keeps the order of every row: for {named}, {who} the largest raw score"
        f"{among}, the largest scaled score and the largest weight."
    )
    hidden = [c.key_tokens[j] for j in range(c.l_k) if not allowed[j] and raw[j] > best]
    if hidden:
        text += (
            f" ({' and '.join(hidden[:3])} scored higher but {'is' if len(hidden) == 1 else 'are'}"
            f" blocked by {c.mask_why}.)"
        )
    return text + " What changes is how far apart the weights are."


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
        f"{c.focus_token} (row {f + 1}): raw {raw} → scaled {scaled} → weights {weights}.",
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
