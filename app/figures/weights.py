"""Figure 6: the attention weight matrix A, its focus row read out in words, row statistics.

The first trace's ``z`` is the engine's weights at full precision (the page and its
tests read it); printed numbers are 2-decimal strings; hover shows ``e^s / Σ = a``.
"""

from __future__ import annotations

from typing import Any

from app.figures import derive, fmt
from app.figures.context import Ctx, figure, table


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
    cols = ", ".join(fmt.value(float(s)) for s in col[:12])
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
    if c.stages.cross or c.l_q != c.l_k or c.l_q < 2 or c.blocked_rows:
        return None
    w = c.h.weights
    if all(w[i, i] >= w[i].max() for i in range(c.l_q)):
        return (
            "With these numbers every token gives its largest share of attention to itself "
            "(each row's heaviest cell is on the diagonal); that is not a rule: change X or "
            "W^Q and another token can win."
        )
    return None


def row_stats(c: Ctx, i: int) -> list[str]:
    h = c.h
    to = c.key_tokens[h.row_argmax[i]] if h.row_sum[i] > 0 else "none"
    return [
        fmt.value(float(h.row_sum[i])),  # a sum of weights: "1", never "1.00" beside "1"
        fmt.derived(float(h.row_entropy[i]), 2),
        fmt.weight(float(h.row_max[i])),
        to,
    ]


def asymmetry_sentence(c: Ctx) -> str | None:
    """Self-attention only: the pair (i, j) whose weights differ most, a_ij against a_ji,
    and why, for this state: the mask when it blocks one of the two cells, else two
    different dot products (q_i·k_j and q_j·k_i) normalised by two different rows."""
    if c.stages.cross or c.l_q != c.l_k or c.l_q < 2:
        return None
    w, allowed = c.h.weights, c.stages.allowed
    gap = abs(w - w.T)
    i, j = divmod(int(gap.argmax()), c.l_k)
    if gap[i, j] < 0.005:
        return "Here the weights happen to be symmetric: a_ij equals a_ji for every pair."
    i, j = min(i, j), max(i, j)
    who_i, who_j = _named(c, i), _named(c, j)
    a_ij, a_ji = fmt.entry("a", i + 1, j + 1), fmt.entry("a", j + 1, i + 1)
    says = (
        f"The weights are not symmetric: {who_i} gives {fmt.weight(float(w[i, j]))} to "
        f"{c.tokens[j]} ({a_ij}) but {who_j} gives {fmt.weight(float(w[j, i]))} to "
        f"{c.tokens[i]} ({a_ji})."
    )
    if allowed[i, j] != allowed[j, i]:
        blocked, (bi, bj) = (a_ij, (i, j)) if not allowed[i, j] else (a_ji, (j, i))
        return (
            f"{says} Here the asymmetry comes from the mask: {c.mask_why} blocks "
            f"{c.tokens[bi]} from seeing {c.tokens[bj]}, so {blocked} is exactly 0 (hatched), "
            "whatever the two scores are."
        )
    s_ij, s_ji = float(c.h.scores[i, j]), float(c.h.scores[j, i])
    q_k = f"{fmt.vec('q', i + 1)}·{fmt.vec('k', j + 1)}"
    k_q = f"{fmt.vec('q', j + 1)}·{fmt.vec('k', i + 1)}"
    pair = (
        f"{q_k} = {fmt.value(s_ij)} against {k_q} = {fmt.value(s_ji)}"
        if fmt.value(s_ij) != fmt.value(s_ji)
        else f"here both are {fmt.value(s_ij)}"
    )
    return (
        f"{says} A dot product is symmetric (q·k = k·q), but {a_ij} comes from {q_k} and "
        f"{a_ji} from {k_q}: two different pairs of vectors ({pair}), and each row is "
        "normalised by its own softmax."
    )


def _named(c: Ctx, i: int) -> str:
    """'love (row 2)': a token with its row number."""
    return f"{c.tokens[i]} (row {i + 1})"


def build(c: Ctx) -> dict[str, Any]:
    f = c.focus
    stats = [row_stats(c, i) for i in range(c.l_q)]
    focus_stats = stats[f]
    exps = derive.exp_sum(c.h.masked[f].tolist(), c.h.exps[f].tolist(), float(c.h.exp_shift[f]))
    readout = [
        focus_sentence(c, f),
        f"Softmax of {c.focus_token} (row {f + 1}): {exps}.",
        sums_sentence(c),
    ]
    for extra in (diagonal_sentence(c), asymmetry_sentence(c)):
        if extra:
            readout.append(extra)
    readout.append(
        f"{c.focus_token} (row {f + 1}): sum {focus_stats[0]}, entropy {focus_stats[1]} bits, "
        f"largest weight {focus_stats[2]} (to {focus_stats[3]})."
    )
    shape = f"{c.l_q} × {c.l_k}"
    caption = (
        f"A = softmax(Q Kᵀ ÷ {c.divisor_text.split(' ≈ ')[0]})"
        f"{c.head_words}: {shape}, one row per query token "
        f"(attending from), one column per key token (attending to). Colours run from 0 to 1 "
        f"on a fixed scale; {c.focus_token} (row {f + 1}) is outlined."
    )
    if c.masked_any:
        caption += f" Cells blocked by {c.mask_why} are hatched: their weight is exactly 0."
    return figure(
        6,
        c.titles[6],
        caption,
        f"Grid of the {shape} attention weights. {readout[0]}",
        [],
        {},
        readout=readout,
        panels=[[{"grid": c.grid("weights", rows=[f])}]],
        tables=[
            table(
                "A: attention weights (rows attend to columns)",
                c.key_tokens,
                c.tokens,
                lambda: c.weights_text,
            ),
            table(
                "Row statistics", ["sum", "entropy (bits)", "largest weight", "to"], c.tokens, stats
            ),
        ],
    )
