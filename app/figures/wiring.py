"""Figure 11: self- versus cross-attention, two wirings of the same engine, live.

The panel that matches the current state is drawn solid and marked "current", with the
current sizes; the other shows what its wiring would give.
"""

from __future__ import annotations

from typing import Any

from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims


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


def build(c: Ctx) -> dict[str, Any]:
    cv = Canvas(c.t, 40)
    cross = c.stages.cross
    self_shape = _panel(cv, c, 2, False, not cross)
    cross_shape = _panel(cv, c, 53, True, cross)
    data, layout = cv.figure_parts(300)
    if cross:
        now = (
            f"Now: cross-attention. {c.l_q} query tokens ({', '.join(c.tokens[:6])}"
            f"{', …' if c.l_q > 6 else ''}) attend over {c.l_k} source tokens, so the weights "
            f"are {c.l_q} × {c.l_k}{' (not square)' if c.l_q != c.l_k else ''}."
        )
    else:
        now = (
            f"Now: self-attention. One sequence of {c.l_q} tokens feeds Q, K and V, so the "
            f"weights are {c.l_q} × {c.l_q}, square. Give a source sequence to switch to "
            "cross-attention."
        )
    caption = (
        "The same attention computation wired two ways: in self-attention one sequence gives "
        "the queries, keys and values; in cross-attention the queries come from one sequence "
        "(a decoder) and the keys and values from another (an encoder). " + now
    )
    return figure(
        11,
        "Self- versus cross-attention",
        caption,
        f"Two wiring diagrams: self-attention with weights {self_shape}, cross-attention with "
        f"weights {cross_shape}. {now}",
        data,
        layout,
        readout=[now],
        tables=[
            table(
                "Wirings",
                ["Q from", "K and V from", "weights"],
                ["self-attention", "cross-attention"],
                [["X", "X", self_shape], ["decoder sequence", "encoder sequence", cross_shape]],
            )
        ],
    )
