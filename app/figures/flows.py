"""Figure 5: the dataflow of Equation 1 (Figure 10, path length and the whole layer on one
line, is ``app.figures.pathlength``).

Figure 5: MatMul (Q Kᵀ) → Scale (÷ divisor) → [Mask] → Softmax → MatMul (· V) → Z with
the current shapes on the arrows; Scale is drawn dashed and marked off when scaling is
off; the Mask box exists only when some cell is blocked or the causal mask is on.
"""

from __future__ import annotations

from typing import Any

from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims


def mask_on(c: Ctx) -> bool:
    return c.stages.mask != "none" or c.masked_any


def _side_label(cv: Canvas, c: Ctx, text: str, x: float, y: float) -> None:
    """A shape written beside a vertical arrow or box (left-aligned), not over it."""
    cv.label(text, x, y, color=c.t.muted, size=11, xanchor="left")


# A step's box on a phone, in units of the 100-unit-high canvas: tall enough for its two
# lines of 12 px text ("MatMul", "· V") at the height figure_parts gives the diagram.
BOX_5 = 9.0


def _narrow_5(c: Ctx, steps: list[tuple[str, str, bool, str]]) -> dict[str, Any]:
    """Figure 5 top to bottom, for a phone: Q and K, then each step, then Z."""
    cv = Canvas(c.t, 100)
    lq_lk = dims(c.l_q, c.l_k)
    cv.box(8, 34, 92, 99, "Q", role="q", hover=f"Q: {dims(c.l_q, c.d_k)}")
    cv.box(66, 92, 92, 99, "K", role="k", hover=f"K: {dims(c.l_k, c.d_k)}")
    cv.label(dims(c.l_q, c.d_k), 21, 89.5, color=c.t.muted, size=11)
    cv.label(dims(c.l_k, c.d_k), 79, 89.5, color=c.t.muted, size=11)
    pitch = 74.0 / len(steps)
    top = 86.0
    for n, (label, _, off, hover) in enumerate(steps):
        y1 = top - n * pitch
        y0 = y1 - BOX_5
        cv.box(28, 66, y0, y1, label, off=off, hover=hover, size=12)
        if n == 0:
            cv.arrow(21, 92, 40, y1)
            cv.arrow(79, 92, 54, y1)
        else:
            cv.arrow(47, y1 + pitch - BOX_5, 47, y1)
            _side_label(cv, c, lq_lk, 49, y1 + (pitch - BOX_5) / 2)
        if n == len(steps) - 1:
            cv.box(80, 96, y0, y1, "V", role="v", hover=f"V: {dims(c.l_k, c.d_v)}")
            cv.arrow(80, (y0 + y1) / 2, 66, (y0 + y1) / 2)
            cv.label(dims(c.l_k, c.d_v), 88, y0 - 2, color=c.t.muted, size=11)
            cv.box(34, 60, 1, 8, "Z", role="z", hover=f"Z: {dims(c.l_q, c.d_v)}")
            cv.arrow(47, y0, 47, 8)
            _side_label(cv, c, dims(c.l_q, c.d_v), 49, (y0 + 8) / 2)
    data, layout = cv.figure_parts(40 + 60 * (len(steps) + 2))
    return {"data": data, "layout": layout}


def build_5(c: Ctx) -> dict[str, Any]:
    cv = Canvas(c.t, 40)
    lq_lk = dims(c.l_q, c.l_k)
    cv.box(1, 9, 27, 33, "Q", role="q", hover=f"Q: {dims(c.l_q, c.d_k)}")
    cv.box(1, 9, 15, 21, "K", role="k", hover=f"K: {dims(c.l_k, c.d_k)}")
    cv.label(dims(c.l_q, c.d_k), 5, 25, color=c.t.muted, size=11)
    cv.label(dims(c.l_k, c.d_k), 5, 13, color=c.t.muted, size=11)
    steps: list[tuple[str, str, bool, str]] = [
        ("MatMul<br>Q Kᵀ", "", False, f"Q Kᵀ: ({dims(c.l_q, c.d_k)}) · ({dims(c.d_k, c.l_k)})"),
        (
            # the radical alone fits the box ("÷ √2"); the hover gives its value
            f"Scale<br>÷ {c.divisor_text.split(' ≈ ')[0]}"
            if c.stages.scale
            else "Scale<br>off (÷ 1)",
            "",
            not c.stages.scale,
            f"divide every score by {c.divisor_text}",
        ),
    ]
    if mask_on(c):
        steps.append(
            (
                f"Mask<br>{c.stages.mask if c.stages.mask != 'none' else 'custom'}",
                "",
                False,
                f"blocked cells ({c.mask_why}) become −∞",
            )
        )
    steps += [
        ("Softmax<br>per row", "weights", False, "each row → weights that sum to 1"),
        ("MatMul<br>· V", "", False, f"A V: ({lq_lk}) · ({dims(c.l_k, c.d_v)})"),
    ]
    width = 10.0 if len(steps) == 5 else 12.0
    gap = (80 - len(steps) * width) / len(steps)
    x = 12.0 + gap / 2
    prev = (9.0, 24.0)
    for n, (label, _, off, hover) in enumerate(steps):
        _, cy = cv.box(x, x + width, 20, 28, label, off=off, hover=hover, size=12)
        shape = dims(c.l_q, c.d_k) if n == 0 else lq_lk
        if n == 0:
            cv.arrow(9, 30, x, 26)
            cv.arrow(9, 18, x, 22)
        else:
            cv.arrow(prev[0], 24, x, 24, shape)
        prev = (x + width, cy)
        x += width + gap
    matmul_v = x - gap - width / 2
    cv.box(matmul_v - 4, matmul_v + 4, 2, 8, "V", role="v", hover=f"V: {dims(c.l_k, c.d_v)}")
    cv.arrow(matmul_v, 8, matmul_v, 20, dims(c.l_k, c.d_v), dy=0)
    cv.box(93, 99, 21, 27, "Z", role="z", hover=f"Z: {dims(c.l_q, c.d_v)}")
    cv.arrow(prev[0], 24, 93, 24, dims(c.l_q, c.d_v))
    data, layout = cv.figure_parts(260)
    narrow = _narrow_5(c, steps)
    names = [s[0].replace("<br>", " ") for s in steps]
    scale = (
        f"the Scale step divides by {c.divisor_text}"
        if c.stages.scale
        else "the Scale step is off (scaling disabled, divisor 1)"
    )
    mask = f"a Mask step blocks cells ({c.mask_why})" if mask_on(c) else "no mask is applied"
    caption = (
        f"Equation 1 as a dataflow{c.head_note}: {', then '.join(names)}. Here {scale} and "
        f"{mask}. The weights are {lq_lk} and the output Z is {dims(c.l_q, c.d_v)}."
    )
    return figure(
        5,
        c.titles[5],
        caption,
        f"Flow diagram: {' → '.join(names)} → Z, with shapes on the arrows.",
        data,
        layout,
        readout=[f"Weights: {lq_lk}; output: {dims(c.l_q, c.d_v)}."],
        narrow=narrow,
        tables=[
            table(
                "Steps and shapes",
                ["step", "result shape"],
                [str(i + 1) for i in range(len(names))],
                [[n, lq_lk] for n in names[:-1]] + [[names[-1], dims(c.l_q, c.d_v)]],
            )
        ],
    )
