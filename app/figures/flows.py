"""Figures 5 and 10: the dataflow of Equation 1, and the whole pipeline on one line.

Figure 5: MatMul (Q Kᵀ) → Scale (÷ divisor) → [Mask] → Softmax → MatMul (· V) → Z with
the current shapes on the arrows; Scale is drawn dashed and marked off when scaling is
off; the Mask box exists only when some cell is blocked or the causal mask is on.
Figure 10: X → W^Q, W^K, W^V → Q, K, V → Q Kᵀ → ÷ divisor → softmax → A → · V → Z, sizes
under every step.
"""

from __future__ import annotations

from typing import Any

from app.figures.context import Ctx, figure, table
from app.figures.diagram import Canvas, dims


def mask_on(c: Ctx) -> bool:
    return c.stages.mask != "none" or c.masked_any


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
            f"Scale<br>÷ {c.divisor_text}" if c.stages.scale else "Scale<br>off (÷ 1)",
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
        f"The dataflow of Equation 1{c.head_note}",
        caption,
        f"Flow diagram: {' → '.join(names)} → Z, with shapes on the arrows.",
        data,
        layout,
        readout=[f"Weights: {lq_lk}; output: {dims(c.l_q, c.d_v)}."],
        tables=[
            table(
                "Steps and shapes",
                ["step", "result shape"],
                [str(i + 1) for i in range(len(names))],
                [[n, lq_lk] for n in names[:-1]] + [[names[-1], dims(c.l_q, c.d_v)]],
            )
        ],
    )


def build_10(c: Ctx) -> dict[str, Any]:
    cv = Canvas(c.t, 40)
    st = c.stages
    d_model = st.x.shape[1] if st.x is not None else None
    lq_lk, out = dims(c.l_q, c.l_k), dims(c.l_q, c.d_v)
    if d_model is not None:
        cv.box(0.5, 8, 17, 23, "X", role="x", hover=f"X: {dims(c.l_q, d_model)}")
        cv.label(dims(c.l_q, d_model), 4.25, 15, color=c.t.muted, size=11)
        if st.cross:
            cv.box(0.5, 8, 4, 10, "S", role="x", hover=f"S: {dims(c.l_k, d_model)}")
            cv.label(dims(c.l_k, d_model), 4.25, 2.5, color=c.t.muted, size=11)
    rows = (
        ("Q", "q", "W<sup>Q</sup>", 32, c.l_q, c.d_k),
        ("K", "k", "W<sup>K</sup>", 20, c.l_k, c.d_k),
        ("V", "v", "W<sup>V</sup>", 8, c.l_k, c.d_v),
    )
    for name, role, w, y, r, k in rows:
        if d_model is not None:
            src_y = 7 if (st.cross and name != "Q") else 20
            cv.box(
                12,
                20,
                y - 3,
                y + 3,
                w,
                role=role,
                hover=f"{w}: {dims(d_model, k)}".replace("<sup>", "^").replace("</sup>", ""),
                size=12,
            )
            cv.arrow(8, src_y, 12, y)
            cv.arrow(20, y, 24, y)
        cv.box(24, 31, y - 3, y + 3, name, role=role, hover=f"{name}: {dims(r, k)}")
        cv.label(dims(r, k), 27.5, y - 4.6, color=c.t.muted, size=11)
    chain = [
        ("Q Kᵀ", lq_lk),
        (f"÷ {c.divisor_text}" if st.scale else "÷ 1 (off)", lq_lk),
        ("softmax", lq_lk),
        ("A", lq_lk),
        ("· V", out),
        ("Z", out),
    ]
    x = 35.0
    for n, (label, size) in enumerate(chain):
        role = "weights" if label == "A" else "z" if label == "Z" else ""
        off = label.endswith("(off)")
        cv.box(x, x + 8.5, 23, 29, label, role=role, off=off, hover=f"{label}: {size}", size=12)
        cv.label(size, x + 4.25, 21.2, color=c.t.muted, size=11)
        if n == 0:
            cv.arrow(31, 32, x, 27.5)
            cv.arrow(31, 20, x, 24.5)
        else:
            cv.arrow(x - 2.2, 26, x, 26)
        x += 10.7
    cv.arrow(31, 8, 35 + 4 * 10.7 + 4.25, 23, "", color=c.t.roles["v"])
    data, layout = cv.figure_parts(280)
    n_rows = c.l_q
    caption = (
        f"The whole layer{c.head_note} in one line. Every step is a matrix operation over all "
        f"{n_rows} query rows at once (and all {c.l_k} keys), so no position waits for another: "
        f"the weights are {lq_lk} and the output is {out}."
    )
    return figure(
        10,
        "Everything on one line",
        caption,
        "Pipeline: X through W^Q, W^K, W^V to Q, K, V, then Q Kᵀ, the divisor, softmax, A, "
        f"times V, to Z; weights {lq_lk}, output {out}.",
        data,
        layout,
        readout=[
            f"Sizes: Q {dims(c.l_q, c.d_k)}, K {dims(c.l_k, c.d_k)}, "
            f"V {dims(c.l_k, c.d_v)}, A {lq_lk}, Z {out}."
        ],
        tables=[
            table(
                "Sizes along the pipeline",
                ["shape"],
                ["Q", "K", "V", "Q Kᵀ", "A", "Z"],
                [
                    [dims(c.l_q, c.d_k)],
                    [dims(c.l_k, c.d_k)],
                    [dims(c.l_k, c.d_v)],
                    [lq_lk],
                    [lq_lk],
                    [out],
                ],
            )
        ],
    )
