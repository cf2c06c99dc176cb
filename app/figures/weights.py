"""Figure 6: the attention weight matrix A, its focus row read out in words, row statistics.

The first trace's ``z`` is the engine's weights at full precision (the page and its
tests read it); printed numbers are 2-decimal strings; hover shows ``e^s / Σ = a``.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import axis, base_layout, outline


def grid_height(rows: int, lo: int = 240, hi: int = 620, per: int = 44) -> int:
    return max(lo, min(hi, 90 + per * rows))


def focus_sentence(c: Ctx, row: int) -> str:
    """'love gives 0.63 of its attention to itself, 0.23 to LLMs, 0.14 to I'."""
    who = c.tokens[row]
    if row in c.blocked_rows:
        return (
            f"{who} has no key it is allowed to see ({c.mask_why}), so all its weights "
            "are 0 and its output row is 0: nothing to average, never 0 ÷ 0."
        )
    w = c.h.weights[row]
    order = sorted(range(c.l_k), key=lambda j: (-w[j], j))
    parts = []
    for n, j in enumerate(order):
        if not c.stages.allowed[row, j]:
            continue
        to = "itself" if (not c.stages.cross and j == row) else c.key_tokens[j]
        parts.append(f"{fmt.weight(w[j])} {'of its attention ' if n == 0 else ''}to {to}")
    shown = parts if len(parts) <= 8 else [*parts[:6], f"and {len(parts) - 6} smaller shares"]
    blocked = int((~c.stages.allowed[row]).sum())
    tail = f"; {blocked} key{'s are' if blocked != 1 else ' is'} blocked" if blocked else ""
    return f"{who} gives " + ", ".join(shown) + tail + "."


def sums_sentence(c: Ctx) -> str:
    """Rows sum to 1; the column sums, computed, show that columns need not."""
    col = c.h.weights.sum(axis=0)
    cols = ", ".join(fmt.num(round(float(s), 2)) for s in col[:12])
    more = ", …" if c.l_k > 12 else ""
    rows_ok = c.l_q - len(c.blocked_rows)
    rows = (
        "Every row sums to 1"
        if not c.blocked_rows
        else (f"{rows_ok} of {c.l_q} rows sum to 1 (the others have no allowed key and sum to 0)")
    )
    return f"{rows}; columns need not: here they sum to {cols}{more}."


def diagonal_sentence(c: Ctx) -> str | None:
    """Only when true: every row's largest weight sits on the diagonal (self-attention)."""
    if c.stages.cross or c.l_q != c.l_k or c.blocked_rows:
        return None
    w = c.h.weights
    if all(w[i, i] >= w[i].max() for i in range(c.l_q)):
        return (
            "Every token gives its largest share of attention to itself: "
            "in each row the diagonal cell is the heaviest."
        )
    return None


def row_stats(c: Ctx, i: int) -> list[str]:
    h = c.h
    to = c.key_tokens[h.row_argmax[i]] if h.row_sum[i] > 0 else "none"
    return [
        fmt.weight(float(h.row_sum[i])),
        f"{h.row_entropy[i]:.2f}",
        fmt.weight(float(h.row_max[i])),
        to,
    ]


def build(c: Ctx) -> dict[str, Any]:
    t = c.t
    trace = c.weights_heatmap()
    trace["colorbar"] = {"thickness": 10, "len": 0.8, "tickfont": {"color": t.fg}}
    trace["showscale"] = True
    f = c.focus
    layout = base_layout(
        t,
        grid_height(c.l_q),
        "",
        xaxis=axis(t, c.key_tokens, "attending to (keys)", side="top"),
        yaxis=axis(t, c.tokens, "attending from (queries)", reverse=True),
        shapes=[outline(t, -0.5, c.l_k - 0.5, f - 0.5, f + 0.5)],
    )
    layout["margin"]["t"] = 60
    stats = [row_stats(c, i) for i in range(c.l_q)]
    focus_stats = stats[f]
    exps = fmt.exp_sum(c.h.masked[f].tolist(), c.h.exps[f].tolist(), float(c.h.exp_shift[f]))
    readout = [focus_sentence(c, f), f"Softmax of row {f + 1}: {exps}.", sums_sentence(c)]
    diag = diagonal_sentence(c)
    if diag:
        readout.append(diag)
    readout.append(
        f"Row {f + 1} ({c.focus_token}): sum {focus_stats[0]}, entropy {focus_stats[1]} bits, "
        f"largest weight {focus_stats[2]} (to {focus_stats[3]})."
    )
    shape = f"{c.l_q} × {c.l_k}"
    caption = (
        f"A = softmax(Q Kᵀ ÷ {c.divisor_text}){c.head_note}: {shape}, one row per query token "
        f"(attending from), one column per key token (attending to). Colours run from 0 to 1 "
        f"on a fixed scale; row {f + 1}, {c.focus_token}, is outlined."
    )
    if c.masked_any:
        caption += f" Cells blocked by {c.mask_why} are exactly 0."
    return figure(
        6,
        f"The attention weight matrix{c.head_note}",
        caption,
        f"Heatmap of the {shape} attention weights. {readout[0]}",
        [trace],
        layout,
        readout=readout,
        tables=[
            table(
                "A: attention weights (rows attend to columns)",
                c.key_tokens,
                c.tokens,
                c.weights_text,
            ),
            table(
                "Row statistics", ["sum", "entropy (bits)", "largest weight", "to"], c.tokens, stats
            ),
        ],
        derivations={"0": c.weights_deriv},
    )
