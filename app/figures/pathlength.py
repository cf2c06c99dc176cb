"""Figure 10: everything on one line, and why that matters: path length.

The tutorial's point here is path length. In attention any two positions are one
operation apart: a weight of A joins them directly, and every pair is computed at once. A
recurrent model carries information from one position to another through every step in
between, each waiting for the one before. The top of the figure draws both over the
page's tokens (the first and last joined and counted); the bottom draws the whole layer on
one line with the current sizes, through the concatenation of the heads and W^O (drawn
dashed, with the reason on hover, when there is one head or no W^O).

A portrait variant (``narrow``) stacks the same parts for a phone.
"""

from __future__ import annotations

import itertools
from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims
from app.figures.style import Json

MAX_DRAWN = 7  # positions drawn; longer inputs show the first few, "…", and the last


def drawn_positions(n: int) -> list[int | None]:
    """Indices to draw (None: an ellipsis): all when few, else the first 4, …, the last 2."""
    if n <= MAX_DRAWN:
        return list(range(n))
    return [0, 1, 2, 3, None, n - 2, n - 1]


def _tokens_row(cv: Canvas, c: Ctx, y: float, x0: float, x1: float) -> tuple[list[float], float]:
    """The drawn positions as small boxes between x0 and x1: their centres, half-width."""
    spots = drawn_positions(c.l_q)
    pitch = (x1 - x0) / len(spots)
    half = min(pitch * 0.3, 6.0)
    centres = []
    for n, i in enumerate(spots):
        cx = x0 + pitch * (n + 0.5)
        if i is None:
            cv.label("…", cx, y, size=14)
        else:
            cv.box(cx - half, cx + half, y - 2.5, y + 2.5, c.tokens[i], role="x",
                   hover=f"{c.tokens[i]} (row {i + 1})", size=11, bold=False)  # fmt: skip
        centres.append(cx)
    return centres, half


def _arc(cv: Canvas, x0: float, x1: float, y: float, depth: float, color: str, w: float) -> None:
    """A curve below y from x0 to x1: one weight of A joining two positions directly."""
    cv.shapes.append({"type": "path", "xref": "x", "yref": "y", "layer": "below",
                      "path": f"M {x0},{y} Q {(x0 + x1) / 2},{y - depth} {x1},{y}",
                      "line": {"color": color, "width": w}})  # fmt: skip


def _paths(cv: Canvas, c: Ctx, top: float, narrow: bool) -> None:
    """Recurrent chain above, attention's direct links below, the first and last marked."""
    t = cv.t
    left = 1.0 if narrow else 19.0
    y_rnn, y_att = top - 6.0, top - 17.0
    hop = max(c.l_q - 1, 0)
    rnn = f"<b>Recurrent</b>: {hop} step{'s' if hop != 1 else ''}, one after another"
    att = "<b>Attention</b>: 1 step for any pair, all at once"
    if narrow:
        cv.label(rnn, 1.0, top - 1.5, size=11, xanchor="left")
        cv.label(att, 1.0, top - 13.5, size=11, xanchor="left")
    else:
        cv.label(rnn.replace(": ", "<br>"), 1.0, y_rnn, size=11, xanchor="left")
        cv.label(att.replace(": ", "<br>"), 1.0, y_att, size=11, xanchor="left")
    xs, half = _tokens_row(cv, c, y_rnn, left, 99.0)
    for a, b in itertools.pairwise(xs):
        cv.arrow(a + half, y_rnn, b - half, y_rnn, color=t.roles["weights"])
    xs, _ = _tokens_row(cv, c, y_att, left, 99.0)
    y_arc = y_att - 2.5
    spots = drawn_positions(c.l_q)
    for m, i in enumerate(spots):
        for n in range(m + 1, len(spots)):
            if i is None or spots[n] is None:
                continue
            key = m == 0 and n == len(spots) - 1
            _arc(cv, xs[m], xs[n], y_arc, 2.0 + 2.0 * (n - m), t.roles["weights"] if key
                 else t.muted, 2.5 if key else 0.8)  # fmt: skip


def _layer_chain(c: Ctx) -> list[tuple[str, str, str, bool, str]]:
    """(label, size under it, role, off, hover) of each step after Q, K and V."""
    st = c.stages
    lq_lk = dims(c.l_q, c.l_k)
    div = c.divisor_text.split(" ≈ ")[0]
    heads = c.num_heads
    concat_w = int(st.concat.shape[1])
    out = dims(*st.output.shape)
    chain = [
        ("Q Kᵀ", lq_lk, "", False, f"scores: {lq_lk}"),
        (f"÷ {div}" if st.scale else "÷ 1 (off)", lq_lk, "", not st.scale,
         f"divide by {c.divisor_text}" if st.scale else "scaling is off: divisor 1"),
        ("softmax", lq_lk, "weights", False, f"weights A: {lq_lk}, each row sums to 1"),
        ("· V = Z", dims(c.l_q, c.d_v), "z", False, f"Z = A V: {dims(c.l_q, c.d_v)} per head"),
        ("concat", dims(c.l_q, concat_w), "z", heads == 1,
         f"{heads} heads side by side: {dims(c.l_q, concat_w)}" if heads > 1
         else "one head: Z passes as it is"),
        ("· W^O", out, "", st.w_o is None,
         f"W^O: {dims(*st.w_o.shape)}" if st.w_o is not None
         else "no W^O given: the output is the concatenation"),
        ("output", out, "z", False, f"the layer's output: {out}"),
    ]  # fmt: skip
    return chain


def _wide(c: Ctx) -> tuple[list[Json], Json]:
    cv = Canvas(c.t, 60)
    _paths(cv, c, 60.0, narrow=False)
    st, t = c.stages, c.t
    d_model = st.x.shape[1] if st.x is not None else None
    y = 10.0
    if d_model is not None:
        cv.box(0.5, 6.5, y - 3, y + 3, "X", role="x", hover=f"X: {dims(c.l_q, d_model)}")
        cv.label(dims(c.l_q, d_model), 3.5, y - 4.6, color=t.muted, size=10)
    rows = (("Q", c.l_q, c.d_k, 17.0), ("K", c.l_k, c.d_k, 10.0), ("V", c.l_k, c.d_v, 3.0))
    for name, r, k, yy in rows:
        if d_model is not None:
            cv.box(9, 15, yy - 2.6, yy + 2.6, f"W^{name}", role=name.lower(), size=11,
                   hover=f"W^{name}: {dims(d_model, k)}")  # fmt: skip
            cv.arrow(6.5, y, 9, yy)
            cv.arrow(15, yy, 17.5, yy)
        cv.box(
            17.5, 22.5, yy - 2.6, yy + 2.6, name, role=name.lower(), hover=f"{name}: {dims(r, k)}"
        )
        cv.label(dims(r, k), 25.5, yy + 3.4, color=t.muted, size=10)
    x, width, gap = 28.5, 8.0, 2.0
    for n, (label, size, role, off, hover) in enumerate(_layer_chain(c)):
        cv.box(x, x + width, y - 3, y + 3, label, role=role, off=off, hover=hover, size=11)
        cv.label(size, x + width / 2, y - 4.6, color=t.muted, size=10)
        if n == 0:
            cv.arrow(22.5, 17, x, y + 1.5)
            cv.arrow(22.5, 10, x, y - 1.5)
        else:
            cv.arrow(x - gap, y, x, y)
        if label.startswith("· V"):
            cv.arrow(22.5, 3, x + width / 2, y - 3, color=t.roles["v"])
        x += width + gap
    return cv.figure_parts(380)


def _narrow(c: Ctx) -> tuple[list[Json], Json]:
    """Top to bottom for a phone: the two paths, X and the projections, then the chain."""
    cv = Canvas(c.t, 130)
    _paths(cv, c, 130.0, narrow=True)
    st, t = c.stages, c.t
    d_model = st.x.shape[1] if st.x is not None else None
    cols = (("Q", 17.0, c.l_q, c.d_k), ("K", 50.0, c.l_k, c.d_k), ("V", 83.0, c.l_k, c.d_v))
    if d_model is not None:
        cv.box(38, 62, 96, 102, "X", role="x", hover=f"X: {dims(c.l_q, d_model)}")
        cv.label(dims(c.l_q, d_model), 64, 99, color=t.muted, size=10, xanchor="left")
        for name, x, _, k in cols:
            cv.box(x - 12, x + 12, 85, 91, f"W^{name}", role=name.lower(), size=11,
                   hover=f"W^{name}: {dims(d_model, k)}")  # fmt: skip
            cv.arrow(50, 96, x, 91)
            cv.arrow(x, 85, x, 80)
    for name, x, r, k in cols:
        cv.box(x - 12, x + 12, 74, 80, name, role=name.lower(), hover=f"{name}: {dims(r, k)}")
        cv.label(dims(r, k), x, 72, color=t.muted, size=10)
    y1 = 68.0
    for n, (label, size, role, off, hover) in enumerate(_layer_chain(c)):
        cv.box(30, 64, y1 - 6, y1, label, role=role, off=off, hover=hover, size=11)
        cv.label(size, 28, y1 - 3, color=t.muted, size=10, xanchor="right")
        if n == 0:
            cv.arrow(17, 74, 38, y1)
            cv.arrow(50, 74, 56, y1)
        else:
            cv.arrow(47, y1 + 3, 47, y1)
        if label.startswith("· V"):
            cv.arrow(83, 74, 64, y1 - 3, color=t.roles["v"])
        y1 -= 9.0
    return cv.figure_parts(900)


def path_sentence(c: Ctx) -> str:
    """Path length for this state, from the first position to the last."""
    if c.stages.cross:
        return (
            f"In cross-attention every query reads every one of the {c.l_k} source tokens in "
            "one step: A holds a weight for each pair, all computed at once."
        )
    if c.l_q == 1:
        return "With one token there is no pair to join: add a token to see the paths."
    first, last = 0, c.l_q - 1
    a = fmt.entry("a", last + 1, first + 1)
    w = float(c.h.weights[last, first])
    via = "" if c.l_q == 2 else f", through {c.l_q - 2} position{'s' if c.l_q > 3 else ''} between"
    weight = (
        f"({a} = {fmt.weight(w)}{c.head_words})"
        if c.stages.allowed[last, first]
        else f"({a}, here blocked by {c.mask_why}, so 0)"
    )
    return (
        f"In attention, {c.tokens[last]} (row {last + 1}) reads {c.tokens[first]} (row "
        f"{first + 1}) in one step, through one weight of A {weight}; every "
        f"{'allowed ' if c.masked_any else ''}pair is one step apart and all "
        f"{c.l_q * c.l_k} weights are computed at once. A recurrent model "
        f"carries {c.tokens[first]} to {c.tokens[last]} in {c.l_q - 1} "
        f"step{'s' if c.l_q > 2 else ''}{via}, each waiting for the one before."
    )


def build(c: Ctx) -> dict[str, Any]:
    data, layout = _wide(c)
    n_data, n_layout = _narrow(c)
    lq_lk, out = dims(c.l_q, c.l_k), dims(*c.stages.output.shape)
    st = c.stages
    heads = (
        f"{c.num_heads} heads, concatenated to {dims(*st.concat.shape)}"
        if c.num_heads > 1
        else "one head (nothing to concatenate)"
    )
    w_o = "then W^O" if st.w_o is not None else "no W^O (the output is the concatenation)"
    caption = (
        "Path length: attention joins any two positions in one operation, where a recurrent "
        "model walks through every step between them. Below, the whole layer on one line "
        f"with the current sizes: {heads}, {w_o}; the output is {out}."
    )
    sizes = (
        f"Sizes: Q {dims(c.l_q, c.d_k)}, K {dims(c.l_k, c.d_k)}, V {dims(c.l_k, c.d_v)}, "
        f"A {lq_lk}, Z {dims(c.l_q, c.d_v)} per head; concatenated {dims(*st.concat.shape)}; "
        f"output {out}."
    )
    return figure(
        10,
        c.titles[10],
        caption,
        "Top: the tokens joined in a chain (recurrent) and pairwise (attention). Bottom: X "
        "through W^Q, W^K, W^V to Q, K, V, then Q Kᵀ, the divisor, softmax, times V, the "
        f"concatenation of heads and W^O, to the output {out}.",
        data,
        layout,
        readout=[path_sentence(c), sizes],
        narrow={"data": n_data, "layout": n_layout},
        tables=[
            table(
                "Sizes along the layer",
                ["shape"],
                ["Q", "K", "V", "Q Kᵀ and A", "Z (per head)", "concatenation", "output"],
                [
                    [dims(c.l_q, c.d_k)],
                    [dims(c.l_k, c.d_k)],
                    [dims(c.l_k, c.d_v)],
                    [lq_lk],
                    [dims(c.l_q, c.d_v)],
                    [dims(*st.concat.shape)],
                    [out],
                ],
            )
        ],
    )
