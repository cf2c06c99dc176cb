"""J2, the wavelengths: pair i turns once every 2π / θ_i = 2π·base^(2i/d) positions, from
2π for pair 0 to 2π·base^((d−2)/d) for the last, for two bases side by side (10,000 and
100,000 by default). PURE: the maths is ``app.labs.rotary.wavelengths``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import number, steps
from app.figures.labs.parts import chart
from app.figures.labs.rotary.common import BASES, base_text, positions_text
from app.labs import rotary

WIDTHS = tuple(2**k for k in range(2, 11))  # d = 4 … 1024
MAX_BASE = 1e9


def _reveal(d: int, base: float) -> Json:
    """Predict first: the slowest pair's wavelength, from the fastest pair's 2π."""
    w = rotary.wavelengths(d, base)
    right = float(w[-1])
    others = [base, 2 * math.pi * base, 2 * math.pi * d]
    options = [right] + [x for x in others if abs(x - right) > 0.01 * right]
    labels = sorted({positions_text(x): x for x in options}.items(), key=lambda kv: kv[1])
    choices = [[text, f"about {text} positions"] for text, _ in labels]
    return {
        "question": f"With d = {d} and base {base_text(base)}, pair 0 turns once every 2π ≈ "
        f"{positions_text(float(w[0]))} positions. How many positions does the slowest pair, "
        f"pair {d // 2 - 1}, take to turn once?",
        "choices": choices,
        "correct": positions_text(right),
        "correct_label": f"about {positions_text(right)} positions",
        "why": f"θ_{d // 2 - 1} = {base_text(base)}^(−{d - 2}/{d}), so its wavelength is "
        f"2π·{base_text(base)}^({d - 2}/{d}) = {positions_text(right)}: a little less than "
        f"2π·{base_text(base)} = {positions_text(2 * math.pi * base)}, because the last "
        "exponent is (d − 2)/d, not 1.",
        "answer": f"slowest pair at base {base_text(base)}: {positions_text(right)} positions",
    }


def build_wavelengths(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    d = int(v["d"])
    bases = [float(v["base"]), float(v["other"])]
    waves = [rotary.wavelengths(d, b) for b in bases]
    pairs = list(range(d // 2))
    colours = [t.roles["q"], t.roles["k"]]
    traces = [
        charts.line([float(i) for i in pairs], [float(x) for x in w], colour,
                    f"base {base_text(b)}", dash=dash,
                    hover=[f"pair {i}, base {base_text(b)}: {positions_text(float(x))} positions"
                           for i, x in zip(pairs, w, strict=True)],
                    mode="lines+markers" if d <= 64 else "lines")
        for w, b, colour, dash in zip(waves, bases, colours, ("solid", "dash"), strict=True)
    ]  # fmt: skip
    xa = charts.value_axis(t, "pair i", [-0.5, d // 2 - 0.5])
    ya = charts.value_axis(t, "positions per turn", type="log", exponentformat="power")
    layout = charts.layout(t, 320, xa, ya, **charts.legend(t))
    reveal = _reveal(d, bases[0])
    longest = [float(w[-1]) for w in waves]
    ratio = longest[1] / longest[0]
    caption = (
        f"d = {d}: pair 0 turns once every 2π = {positions_text(2 * math.pi)} positions for "
        f"any base; the slowest, pair {d // 2 - 1}, every {positions_text(longest[0])} with "
        f"base {base_text(bases[0])} and {positions_text(longest[1])} with base "
        f"{base_text(bases[1])}, {fmt.significant(ratio, 4)} times as far. The wavelengths "
        "grow geometrically in between: a straight line on the log axis."
    )
    return lab_figure(
        WAVELENGTHS,
        caption=caption,
        alt=f"Two rising lines on a log axis over pairs 0 … {d // 2 - 1}: the wavelength of each "
        f"pair for base {base_text(bases[0])} and base {base_text(bases[1])}.",
        plot=chart(traces, layout),
        readout=[
            f"shortest: 2π = {positions_text(2 * math.pi)} positions (pair 0, θ_0 = 1)",
            *[
                f"longest at base {base_text(b)}: 2π·{base_text(b)}^({d - 2}/{d}) = "
                f"{positions_text(x)} positions"
                for b, x in zip(bases, longest, strict=True)
            ],
            f"each pair's wavelength is the one before times base^(2/d) = "
            f"{fmt.significant(bases[0] ** (2 / d), 6)} (base {base_text(bases[0])})",
        ],
        tables=[
            table(
                f"Positions per turn of each pair, d = {d}",
                [f"base {base_text(b)}" for b in bases],
                [f"pair {i}" for i in pairs],
                [[positions_text(float(w[i])) for w in waves] for i in pairs],
            )
        ],
        reveal=reveal,
    )


WAVELENGTHS = LabFigure(
    name="wavelengths",
    numpy="rotary-wavelengths",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="J2",
    title="Wavelengths",
    intro="Pair i turns by θ_i = base^(−2i/d) per position, so it comes back to where it "
    "started after 2π / θ_i positions: 2π for pair 0, 2π·base^((d−2)/d) for the last. "
    "RoFormer uses base 10,000; some newer models use a larger base to reach further. "
    "Change d and the two bases.",
    teaching="The first pairs turn fast and tell near positions apart; the last turn so "
    "slowly that they tell apart positions thousands apart. A larger base stretches the "
    "slow end.",
    build=build_wavelengths,
    controls=(
        steps("d", "Width d", 128, WIDTHS),
        number("base", "Base", BASES[0], 2, MAX_BASE, 1),
        number("other", "Second base", BASES[1], 2, MAX_BASE, 1),
    ),
)
