"""Figure 9: one output row as a blend, z(focus) = a₁·v₁ + a₂·v₂ + … = z as one line of
weighted value rows (each row of V already multiplied by its weight) and their sum, one
column written out, and each entry of z shown inside the range (smallest … largest) of its
column of V, which a weighted average with non-negative weights summing to 1 never leaves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures import derive, fmt, grid
from app.figures.context import Ctx, figure, table
from app.figures.style import Json, numbered


def z_name(c: Ctx) -> str:
    """'z_2 (love)': the focus row's output, numbered like its row, with its name."""
    return f"{fmt.vec('z', c.focus + 1)} ({c.focus_token})"


def z_label(c: Ctx) -> str:
    """'z₂ (love)': the same as a grid's label (plain text, no notation renderer there)."""
    return f"z{fmt.sub(c.focus + 1)} ({c.focus_token})"


def blend_equation(c: Ctx) -> str:
    """'z_2 (love) = 0.14·v_1 (I) + 0.63·v_2 (love) + 0.23·v_3 (LLMs) = (1.63, …)'."""
    f = c.focus
    a = c.text_row("weights", f)
    pairs = [(a[j], f"{fmt.vec('v', j + 1)} ({c.key_tokens[j]})") for j in range(c.l_k)]
    z = ", ".join(c.text_row("output", f)[:8]) + (", …" if c.d_v > 8 else "")
    return f"{z_name(c)} = {derive.terms(pairs)} = ({z})"


def bounds(c: Ctx) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Per column of V, the smallest and largest value among the keys the focus row may see."""
    seen = c.stages.allowed[c.focus]
    v = c.h.v[seen] if seen.any() else c.h.v
    return v.min(axis=0), v.max(axis=0)


def own_share(c: Ctx) -> str | None:
    """'love keeps 63 % of its own value and borrows 37 % from the other tokens.'"""
    f = c.focus
    if c.stages.cross or c.l_q != c.l_k or c.l_q == 1 or f in c.blocked_rows:
        return None
    own = float(c.h.weights[f, f])
    return (
        f"{c.focus_token} keeps {fmt.percent(own)} of its own value and borrows "
        f"{fmt.percent(1 - own)} from the other tokens."
    )


# Longest line of weighted rows; beyond it the largest weights are shown and the rest counted.
MAX_TERMS = 5


def _terms(c: Ctx) -> list[int]:
    """The keys drawn as weighted rows: all, or the MAX_TERMS heaviest in key order."""
    w = c.h.weights[c.focus]
    if c.l_k <= MAX_TERMS + 1:
        return list(range(c.l_k))
    top = sorted(range(c.l_k), key=lambda j: (-w[j], j))[:MAX_TERMS]
    return sorted(top)


def _weighted(c: Ctx, j: int) -> Json:
    """a_j · v_j as a 1 × d_v grid: the value row of key j scaled by the focus row's weight."""
    f, h = c.focus, c.h
    a = float(h.weights[f, j])
    row = a * h.v[j : j + 1]
    a_text = fmt.weight(a)
    small = c.d_v <= grid.MAX_TEXT_COLS
    v_row = c.text_row("v", j) if small else []
    text = [[fmt.output(x) for x in row[0].tolist()]] if small else None
    hover = (
        [[f"{a_text} · {v} = {t}" for v, t in zip(v_row, text[0], strict=True)]]
        if text is not None
        else None
    )
    return grid.grid(
        "weighted", f"{a_text} · v{fmt.sub(j + 1)} ({c.key_tokens[j]})", row,
        rows=[c.key_tokens[j]],
        cols=numbered(c.d_v), theme=c.t.name, role="z", text=text, hover=hover,
        row_title="key token", col_title="d_v column",
    )  # fmt: skip


def _range_grid(c: Ctx, lo: Any, hi: Any) -> Json:
    """Per column: the smallest value of V, z(focus), the largest value of V."""
    f = c.focus
    z = c.h.output[f]
    values = np.vstack([lo, z, hi])
    small = c.d_v <= grid.MAX_TEXT_COLS
    z_text = c.text_row("output", f)
    text = [[fmt.value(float(x)) for x in lo], z_text, [fmt.value(float(x)) for x in hi]]
    hover = [
        [f"column {j + 1}: {text[0][j]} ≤ {z_text[j]} ≤ {text[2][j]}" for j in range(c.d_v)]
    ] * 3
    # Named without z₂ (its middle row): an export's legend lists z₂ (love) once.
    return grid.grid(
        "range", "each column's range in V", values,
        rows=["smallest in V", z_label(c), "largest in V"], cols=numbered(c.d_v),
        theme=c.t.name, role="z", text=text if small else None, hover=hover if small else None,
        outline={"rows": [1]}, row_title="", col_title="d_v column",
    )  # fmt: skip


def _line(c: Ctx) -> list[Json]:
    """a₁·v₁ + a₂·v₂ + … = z(focus), one grid per weighted value row."""
    shown = _terms(c)
    line: list[Json] = []
    for n, j in enumerate(shown):
        if n:
            line.append({"op": "+"})
        line.append({"grid": _weighted(c, j)})
    if len(shown) < c.l_k:
        line.append({"arrow": f"+ {c.l_k - len(shown)} smaller terms"})
    line.append({"op": "="})
    line.append({"grid": _z_row(c)})
    return line


def _z_row(c: Ctx) -> Json:
    f = c.focus
    small = c.d_v <= grid.MAX_TEXT_COLS
    return grid.grid(
        "z_row", z_label(c), c.h.output[f : f + 1], rows=[c.focus_token],
        cols=numbered(c.d_v), theme=c.t.name, role="z",
        text=[c.text_row("output", f)] if small else None,
        hover=[c.output_row(f)] if small else None, row_title="query token",
        col_title="d_v column",
    )  # fmt: skip


def build_9(c: Ctx) -> dict[str, Any]:
    h, f = c.h, c.focus
    lo, hi = bounds(c)
    column = c.output_cell(f, 0)
    eq = blend_equation(c)
    readout = [eq, f"Column 1 written out: {column}"]
    share = own_share(c)
    if share:
        readout.append(share)
    if f in c.blocked_rows:
        readout.append(f"{c.focus_token} may see no key, so {z_name(c)} is all 0.")
    else:
        inside = all(lo[j] - 1e-9 <= h.output[f, j] <= hi[j] + 1e-9 for j in range(c.d_v))
        which = "the value rows it may see" if not c.stages.allowed[f].all() else "V"
        readout.append(
            f"All {c.d_v} entries lie between the smallest and largest value of their column "
            f"of {which}, because the weights are non-negative and sum to 1."
            if inside
            else "Some entries fall outside their column's range."
        )
    caption = (
        f"{z_name(c)} is a weighted average of the value rows{c.head_note}: each row of "
        f"V is multiplied by {c.focus_token}'s weight for that key (the first line) and the "
        "products are added. A weighted average never leaves the range of what it averages "
        "(the grid below)."
    )
    z_text = c.text_row("output", f)
    stats = [[fmt.value(float(lo[j])), z_text[j], fmt.value(float(hi[j]))] for j in range(c.d_v)]
    return figure(
        9,
        c.titles[9],
        caption,
        f"The {c.l_k} value rows, each multiplied by {c.focus_token}'s weight, add up to "
        f"{z_name(c)}; below, each entry of it inside its column's range. {eq}",
        [],
        {},
        readout=readout,
        panels=[_line(c), [{"grid": _range_grid(c, lo, hi)}]],
        tables=[
            table(
                f"{z_name(c)} and the range of each column of V",
                ["smallest", z_name(c), "largest"],
                [f"column {j + 1}" for j in range(c.d_v)],
                stats,
            )
        ],
    )
