"""H3, memory traffic: Theorem 2's high-bandwidth memory accesses of standard attention,
Θ(N·d + N²), and of FlashAttention, Θ(N²·d²·M⁻¹), as N grows: orders of growth with the
constants left out, not counts. PURE: the expressions are ``app.labs.flash.traffic``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import steps
from app.figures.labs.parts import chart
from app.labs import flash

NS = tuple(2**k for k in range(8, 18))  # N = 256 … 131,072
WIDTHS = (16, 32, 64, 128, 256)
MEMORIES = tuple(2**k for k in range(12, 21))  # M = 4,096 … 1,048,576 numbers
LABEL = "order of growth (Theorem 2), not a count"
ASKED_N = 4096


def _reveal(d: int, sram: int) -> Json:
    """Predict first: at N = 4,096, is the tiled order smaller than the standard one?"""
    t = flash.traffic(ASKED_N, d, sram)
    ratio = t.standard / t.tiled
    correct = "smaller" if ratio > 1 else "larger" if ratio < 1 else "same"
    choices = [["smaller", "smaller"], ["same", "the same"], ["larger", "larger"]]
    return {
        "question": f"With d = {d} and M = {fmt.count(sram)} numbers on chip, at N = "
        f"{fmt.count(ASKED_N)}: is FlashAttention's order of memory accesses, N²·d² / M, "
        "smaller or larger than the standard N·d + N²?",
        "choices": choices,
        "correct": correct,
        "correct_label": dict(choices)[correct],
        "why": f"N·d + N² = {fmt.count(int(t.standard))} and N²·d² / M = "
        f"{fmt.significant(t.tiled, 4)}: a ratio of {fmt.significant(ratio, 3)}, close to "
        f"M / d² = {fmt.significant(sram / d**2, 3)} once N² outweighs N·d.",
        "answer": f"standard / tiled at N = {fmt.count(ASKED_N)}: {fmt.significant(ratio, 3)}",
    }


def build_traffic(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    d, sram = int(v["d"]), int(v["sram"])
    runs = [flash.traffic(n, d, sram) for n in NS]
    std = [r.standard for r in runs]
    tiled = [r.tiled for r in runs]
    x = [float(n) for n in NS]
    traces = [
        charts.line(x, std, t.roles["scores"], "standard: N·d + N²",
                    hover=[f"N = {fmt.count(n)}: N·d + N² = {fmt.count(int(s))}"
                           for n, s in zip(NS, std, strict=True)], mode="lines+markers"),
        charts.line(x, tiled, t.roles["weights"], "FlashAttention: N²·d² / M", dash="dash",
                    hover=[f"N = {fmt.count(n)}: N²·d² / M = {fmt.significant(s, 4)}"
                           for n, s in zip(NS, tiled, strict=True)], mode="lines+markers"),
    ]  # fmt: skip
    xa = charts.value_axis(t, "sequence length N", type="log", dtick=1)
    # short enough for a phone: the axis says what the numbers are (Theorem 2 in the caption)
    ya = charts.value_axis(t, "order of growth, not a count", type="log", exponentformat="power")
    layout = charts.layout(t, 340, xa, ya, **charts.legend(t))
    ratio = sram / d**2
    reveal = _reveal(d, sram)
    caption = (
        f"With d = {d} and M = {fmt.count(sram)}, the tiled order N²·d² / M is the standard "
        f"N² term times d² / M = {fmt.significant(1 / ratio, 3)}: "
        + (
            f"about {fmt.significant(ratio, 3)} times fewer accesses once N is large."
            if ratio > 1
            else "no fewer (d² ≥ M): tiling pays only when M is larger than d² = "
            f"{fmt.count(d * d)}."
        )
        + " Both grow as N²; these are orders of growth, not counts."
    )
    return lab_figure(
        TRAFFIC,
        caption=caption,
        alt=f"Two lines on log axes over N = {fmt.count(NS[0])} … {fmt.count(NS[-1])}: "
        f"N·d + N² and N²·d² / M for d = {d}, M = {fmt.count(sram)}.",
        plot=chart(traces, layout),
        readout=[
            f"M / d² = {fmt.count(sram)} / {fmt.count(d * d)} = {fmt.significant(ratio, 4)}",
            reveal["answer"],
            f"every number here is an {LABEL}",
        ],
        tables=[
            table(
                f"Theorem 2's expressions ({LABEL}), d = {d}, M = {fmt.count(sram)}",
                ["standard N·d + N²", "FlashAttention N²·d² / M", "ratio"],
                [f"N = {fmt.count(n)}" for n in NS],
                [
                    [fmt.count(int(a)), fmt.significant(b, 4), fmt.significant(a / b, 3)]
                    for a, b in zip(std, tiled, strict=True)
                ],
            )
        ],
        reveal=reveal,
    )


TRAFFIC = LabFigure(
    name="traffic",
    numpy="flash-traffic",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="H3",
    title="Memory traffic",
    intro="Theorem 2 of the FlashAttention paper (Dao et al., 2022): standard attention makes "
    "Θ(N·d + N²) accesses to the GPU's high-bandwidth memory, FlashAttention Θ(N²·d² / M). "
    "The Θ drops the constants, so the chart compares how the two grow, not how many "
    "accesses either makes. Pick d and M.",
    teaching="Tiling does not change the N² work; it divides the N² memory traffic by about "
    "M / d², which is large for typical widths and on-chip memories.",
    build=build_traffic,
    controls=(
        steps("d", "Width d", 64, WIDTHS),
        steps(
            "sram",
            "On-chip memory M (numbers)",
            2**16,
            MEMORIES,
            names=[fmt.count(m) for m in MEMORIES],
        ),
    ),
)
