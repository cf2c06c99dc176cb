"""Figure 13: the shape rules of one attention layer, with every box edge labelled.

Q is L_Q × d_k, K is L_K × d_k, V is L_K × d_v. Q and K must share d_k (the multiply),
K and V must share L_K (each key has one value row); L_Q and d_v are free; the output
is L_Q × d_v. The diagram reads Q · Kᵀ → softmax → A, then A · V = Z: the scores become
weights on the way, so no "=" joins Q Kᵀ to A.

A rule is only visible when the sizes it ties differ from the sizes it leaves free. When
the page's sizes coincide (the running example has L_Q = L_K = 3 and d_k = d_v = 4), the
figure first draws an example where all four differ (``EXAMPLE``), then the page's own
sizes; otherwise the page's sizes alone. A portrait variant (``narrow``) splits each
equation over two lines for a phone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims


@dataclass(frozen=True)
class Sizes:
    l_q: int
    l_k: int
    d_k: int
    d_v: int

    def telling(self) -> bool:
        """Whether these sizes show the rules by themselves: L_Q ≠ L_K and d_k ≠ d_v."""
        return self.l_q != self.l_k and self.d_k != self.d_v


# Four different sizes, small enough to draw: every edge that must match is forced.
EXAMPLE = Sizes(l_q=2, l_k=5, d_k=3, d_v=4)

# (name, role, rows name, cols name) of each matrix; a string alone is an operator.
Item = tuple[str, str, str, str] | str
FIRST: list[Item] = [("Q", "q", "L_Q", "d_k"), "·", ("Kᵀ", "k", "d_k", "L_K"), "softmax",
                     ("A", "weights", "L_Q", "L_K")]  # fmt: skip
SECOND: list[Item] = ["·", ("V", "v", "L_K", "d_v"), "=", ("Z", "z", "L_Q", "d_v")]
OP_WIDTH = {"·": 4.0, "=": 4.0, "softmax": 13.0}
LEFT_LABEL = 3.5  # room for the rows label left of each box


def _size(s: Sizes, name: str) -> int:
    return int(getattr(s, name.lower()))


def _band(cv: Canvas, s: Sizes, items: list[Item], top: float, height: float, narrow: bool) -> None:
    """One line of the equation between y = top − height and top, fitted to the width
    (a phone's 100 units are a third as wide: its labels need more of them)."""
    boxes = [i for i in items if not isinstance(i, str)]
    ops = [i for i in items if isinstance(i, str)]
    widen = 2.2 if narrow else 1.0
    op_width = {o: w * widen for o, w in OP_WIDTH.items()}
    left = LEFT_LABEL * (1.8 if narrow else 1.0)
    room = 98.0 - sum(op_width[o] for o in ops) - left * len(boxes)
    ux = min(6.0 if narrow else 3.0, room / sum(_size(s, b[3]) for b in boxes))
    uy = min(2.4, (height - 5.0) / max(_size(s, b[2]) for b in boxes))
    x = 1.0
    y_top = top - 3.2  # the column label sits above the box
    t = cv.t
    for item in items:
        if isinstance(item, str):
            mid = y_top - 1.5
            if item == "softmax":
                cv.arrow(x + 0.5, mid, x + op_width[item] - 0.5, mid)
                cv.label("softmax<br>(÷ √d_k)", x + op_width[item] / 2, mid + 2.6,
                         color=t.muted, size=10)  # fmt: skip
            else:
                cv.label(item, x + op_width[item] / 2, mid, size=18)
            x += op_width[item]
            continue
        name, role, rows, cols = item
        r, k = _size(s, rows), _size(s, cols)
        x += left
        w, h = max(k * ux, 2.0), max(r * uy, 2.0)
        cv.box(x, x + w, y_top - h, y_top, name, role=role, hover=f"{name}: {dims(r, k)}",
               size=12)  # fmt: skip
        cv.label(f"{cols} = {k}", x + w / 2, y_top + 1.3, color=t.muted, size=10)
        cv.label(f"{rows} = {r}", x - left / 2, y_top - h / 2, color=t.muted, size=10,
                 textangle=-90)  # fmt: skip
        x += w


def _draw(t: Any, rows: list[tuple[str, Sizes]], narrow: bool) -> tuple[list[Any], Any]:
    """The equations, one per (heading, sizes); on a phone each takes two lines."""
    band = 14.0 if narrow else 16.0
    second: list[Item] = [FIRST[-1], *SECOND]  # a phone's second line starts again from A
    lines = [FIRST, second] if narrow else [[*FIRST, *SECOND]]
    per_row = len(lines) * band + 4.0
    cv = Canvas(t, per_row * len(rows))
    top = cv.height_units
    for heading, s in rows:
        cv.label(f"<b>{heading}</b>", 1.0, top - 1.5, size=12, xanchor="left")
        y = top - 3.5
        for line in lines:
            _band(cv, s, line, y, band, narrow)
            y -= band
        top -= per_row
    px = (95 if narrow else 130) * len(rows) * len(lines)
    return cv.figure_parts(max(px, 200))


def rules(s: Sizes) -> list[str]:
    return [
        f"Forced: Q and K share d_k = {s.d_k}, because Q Kᵀ multiplies each query by each key.",
        f"Forced: K and V share L_K = {s.l_k}, because each key has exactly one value row.",
        f"Free: L_Q = {s.l_q} (any number of queries) and d_v = {s.d_v} (any value width).",
        f"Output Z: L_Q × d_v = {dims(s.l_q, s.d_v)}.",
    ]


def build(c: Ctx) -> dict[str, Any]:
    now = Sizes(c.l_q, c.l_k, c.d_k, c.d_v)
    rows = [(f"The page now{c.head_note}", now)]
    if not now.telling():
        rows.insert(0, ("An example where every size differs", EXAMPLE))
    data, layout = _draw(c.t, rows, narrow=False)
    n_data, n_layout = _draw(c.t, rows, narrow=True)
    readout = rules(now)
    if not now.telling():
        same = [p for p, ok in (("L_Q = L_K", now.l_q == now.l_k),
                                ("d_k = d_v", now.d_k == now.d_v)) if ok]  # fmt: skip
        readout.append(
            f"Here {' and '.join(same)} by choice, not by rule: the example above changes them "
            f"(L_Q = {EXAMPLE.l_q}, L_K = {EXAMPLE.l_k}, d_k = {EXAMPLE.d_k}, "
            f"d_v = {EXAMPLE.d_v}) and every rule still holds."
        )
    caption = (
        f"Shapes through one layer{c.head_note}: Q is {dims(c.l_q, c.d_k)}, K is "
        f"{dims(c.l_k, c.d_k)}, V is {dims(c.l_k, c.d_v)}, so the scores Q Kᵀ and, after "
        f"softmax, the weights A are {dims(c.l_q, c.l_k)}, and the output A V is "
        f"{dims(c.l_q, c.d_v)}. Every box edge carries its size."
    )
    drawn = "; ".join(
        f"{h}: Q {dims(s.l_q, s.d_k)} times Kᵀ {dims(s.d_k, s.l_k)}, through softmax to "
        f"A {dims(s.l_q, s.l_k)}, times V {dims(s.l_k, s.d_v)} gives Z {dims(s.l_q, s.d_v)}"
        for h, s in rows
    )
    return figure(
        13,
        c.titles[13],
        caption,
        f"Rectangles in proportion to their sizes. {drawn}.",
        data,
        layout,
        readout=readout,
        narrow={"data": n_data, "layout": n_layout},
        tables=[
            table(
                "Shapes",
                ["rows", "columns"],
                ["Q", "K", "V", "Q Kᵀ and A", "Z"],
                [
                    [fmt.count(c.l_q), fmt.count(c.d_k)],
                    [fmt.count(c.l_k), fmt.count(c.d_k)],
                    [fmt.count(c.l_k), fmt.count(c.d_v)],
                    [fmt.count(c.l_q), fmt.count(c.l_k)],
                    [fmt.count(c.l_q), fmt.count(c.d_v)],
                ],
            )
        ],
    )
