"""Figure 11: self- versus cross-attention, two wirings of the same engine, live.

Two rows of grids, both concrete: self-attention (one sequence feeds Q, K and V; square
weights) and cross-attention (a few query tokens against a longer source; weights not
square). The row that matches the current state shows it; the other is computed from the
same numbers: in self-attention, the cross row asks with the first two rows of X against
the rows of X plus one more row (1, 1, 0, 1, …); in cross-attention, the self row lets the
query sequence attend over itself. The wiring diagram is kept in the table alternative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.attention import AttentionInput, HeadStages, InputError, run
from app.figures import fmt, grid
from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims
from app.figures.style import Json


def _panel(cv: Canvas, c: Ctx, x0: float, cross: bool, active: bool) -> str:
    """One wiring; returns its weights shape in words."""
    t = cv.t
    d_model = c.stages.x.shape[1] if c.stages.x is not None else c.d_k
    l_q = c.l_q
    l_k = c.l_k if (cross and c.stages.cross) else (c.l_q if not cross else None)
    title = "Cross-attention" if cross else "Self-attention"
    mark = " (current)" if active else ""
    cv.label(f"<b>{title}{mark}</b>", x0 + 22, 38, size=14, color=t.fg if active else t.muted)
    off = not active
    if cross:
        cv.box(
            x0 + 1,
            x0 + 15,
            26,
            32,
            "decoder seq.",
            role="x",
            off=off,
            hover=f"queries: {dims(l_q, d_model)}",
            size=11,
        )
        cv.label(f"L_Q = {l_q}", x0 + 8, 24.3, color=t.muted, size=11)
        cv.box(
            x0 + 1,
            x0 + 15,
            8,
            14,
            "encoder seq.",
            role="x",
            off=off,
            hover=f"source: L_K × {d_model}",
            size=11,
        )
        cv.label(f"L_K = {l_k}" if l_k else "L_K = any", x0 + 8, 6.3, color=t.muted, size=11)
        sources = {"Q": 29.0, "K": 11.0, "V": 11.0}
    else:
        cv.box(
            x0 + 1,
            x0 + 15,
            17,
            23,
            "one seq. X",
            role="x",
            off=off,
            hover=f"X: {dims(l_q, d_model)}",
            size=11,
        )
        cv.label(f"L = {l_q}", x0 + 8, 15.3, color=t.muted, size=11)
        sources = {"Q": 20.0, "K": 20.0, "V": 20.0}
    for name, y in (("Q", 29.0), ("K", 20.0), ("V", 11.0)):
        cv.box(x0 + 20, x0 + 26, y - 2.5, y + 2.5, name, role=name.lower(), off=off)
        cv.arrow(x0 + 15, sources[name], x0 + 20, y)
        cv.arrow(x0 + 26, y, x0 + 31, 20)
    shape = dims(l_q, l_k) if l_k else f"{l_q} × L_K"
    square = "square" if (l_k == l_q and not cross) else "not square in general"
    cv.box(
        x0 + 31,
        x0 + 44,
        16,
        24,
        f"attention<br>A: {shape}",
        off=off,
        size=11,
        hover=f"weights {shape} ({square})",
    )
    return shape


def _extra_row(d: int) -> np.ndarray[Any, Any]:
    """(1, 1, 0, 1) for d_model = 4, the same pattern repeated for other widths."""
    return np.resize(np.array([1.0, 1.0, 0.0, 1.0]), d)


def _other(c: Ctx) -> tuple[HeadStages, list[str], list[str]] | None:
    """The wiring the state is not in, computed from its numbers (None in direct mode)."""
    st = c.stages
    if st.x is None or st.w_q is None or st.w_k is None or st.w_v is None:
        return None
    # Labels from the context (c.tokens): already made inert text for Plotly.
    try:
        if st.cross:
            tokens = list(c.tokens)
            other = run(AttentionInput(x=st.x, w_q=st.w_q, w_k=st.w_k, w_v=st.w_v,
                                       tokens=tuple(tokens), scale=st.scale))  # fmt: skip
            return other.heads[0], tokens, tokens
        queries = st.x[:2]
        source = np.vstack([st.x, _extra_row(st.x.shape[1])])
        q_tokens = list(c.tokens[:2])
        k_tokens = [*c.tokens, "(extra)"]
        other = run(AttentionInput(
            x=queries, w_q=st.w_q, w_k=st.w_k, w_v=st.w_v, source_x=source,
            tokens=tuple(q_tokens), source_tokens=tuple(k_tokens), scale=st.scale,
        ))  # fmt: skip
        return other.heads[0], q_tokens, k_tokens
    except InputError:
        return None


def _weights_grid(c: Ctx, name: str, h: HeadStages, rows: list[str], cols: list[str]) -> Json:
    small = h.weights.size <= grid.MAX_TEXT_CELLS and len(cols) <= grid.MAX_TEXT_COLS
    return grid.grid(
        name, "A", h.weights, rows=rows, cols=cols, theme=c.t.name, role="weights",
        text=fmt.grid(h.weights, dp=2) if small else None,
        row_title="query tokens", col_title="key tokens",
    )  # fmt: skip


def _panels(c: Ctx) -> list[list[Json]]:
    st = c.stages
    current = {"grid": c.grid("weights")}
    other = _other(c)
    if other is None:
        return [[current]]
    h, rows, cols = other
    if st.cross:
        self_row: list[Json] = [{"arrow": f"self: X ({c.l_q} tokens) feeds Q, K and V"},
                    {"grid": _weights_grid(c, "self.weights", h, rows, cols)}]  # fmt: skip
        cross_row: list[Json] = [
            {"arrow": f"cross (now): {c.l_q} queries, {c.l_k} source tokens"},
            current,
        ]
        return [self_row, cross_row]
    extra = ", ".join(fmt.value(v) for v in _extra_row(st.x.shape[1]).tolist()[:6])  # type: ignore[union-attr]
    self_row = [{"arrow": f"self (now): X ({c.l_q} tokens) feeds Q, K and V"}, current]
    cross_row = [
        {"arrow": f"cross: rows 1–2 of X ask; X plus a row ({extra}) answers"},
        {"grid": _weights_grid(c, "cross.weights", h, rows, cols)},
    ]
    return [self_row, cross_row]


def build(c: Ctx) -> dict[str, Any]:
    cv = Canvas(c.t, 40)
    cross = c.stages.cross
    self_shape = _panel(cv, c, 2, False, not cross)
    cross_shape = _panel(cv, c, 53, True, cross)
    panels = _panels(c)
    if cross:
        now = (
            f"Now: cross-attention. {c.l_q} query tokens ({', '.join(c.tokens[:6])}"
            f"{', …' if c.l_q > 6 else ''}) attend over {c.l_k} source tokens, so the weights "
            f"are {c.l_q} × {c.l_k}{' (not square)' if c.l_q != c.l_k else ''}."
        )
    else:
        now = (
            f"Now: self-attention. One sequence of {c.l_q} tokens feeds Q, K and V, so the "
            f"weights are {c.l_q} × {c.l_q}, square. The second row asks with 2 of these "
            "tokens against a source of "
            f"{c.l_q + 1}: cross-attention, {2 if c.l_q >= 2 else c.l_q} × {c.l_q + 1}, "
            "not square. Give a source sequence to switch the whole page to it."
        )
    caption = (
        "The same attention computation wired two ways: in self-attention one sequence gives "
        "the queries, keys and values; in cross-attention the queries come from one sequence "
        "(a decoder) and the keys and values from another (an encoder). Each row of weights "
        "still sums to 1; only the shape changes. " + now
    )
    return figure(
        11,
        c.titles[11],
        caption,
        f"Two weight grids: self-attention ({self_shape}) and cross-attention ({cross_shape}). "
        f"{now}",
        [],
        {},
        readout=[now],
        panels=panels,
        tables=[
            table(
                "Wirings",
                ["Q from", "K and V from", "weights"],
                ["self-attention", "cross-attention"],
                [["X", "X", self_shape], ["decoder sequence", "encoder sequence", cross_shape]],
            )
        ],
    )
