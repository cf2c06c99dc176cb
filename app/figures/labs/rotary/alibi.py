"""J3, ALiBi: the slope m of each head by the paper's rule (powers of two and not), the
bias −m·(i − j) added to the scores before the softmax, and the locality it gives each
head: with every content score equal, the weights the bias alone makes. PURE: the maths
is ``app.labs.alibi``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, integer
from app.figures.labs.parts import chart, matrix_grid
from app.figures.labs.rotary.common import slope_text
from app.labs import alibi
from app.labs.attend import Matrix, causal

MAX_HEADS = 64
MAX_TOKENS = 16


def rule_text(heads: int) -> str:
    """The paper's rule for this head count, in words with its numbers."""
    n0 = 1 << (heads.bit_length() - 1)
    first = f"2^(−8/{n0}), 2^(−16/{n0}), …, 2^(−8)"
    if n0 == heads:
        if heads == 1:
            return "1 head: the sequence's only slope, 2^(−8) = 1/256."
        return f"{heads} heads, a power of two: the geometric sequence {first}."
    return (
        f"{heads} heads, not a power of two: the {n0} slopes of {n0} heads ({first}), then the "
        f"first {heads - n0} of every other slope of {2 * n0} heads, which fall between them."
    )


def _weights(slopes: Matrix, n: int) -> list[Matrix]:
    return [alibi.flat_weights(float(m), n) for m in slopes]


def _reveal(slopes: Matrix, n: int) -> Json:
    """Predict first: which head reads furthest back when content says nothing."""
    reach = [float(alibi.mean_distance(w)[-1]) for w in _weights(slopes, n)]
    steep, flat = int(np.argmax(slopes)), int(np.argmin(slopes))
    far = int(np.argmax(reach))
    asked = sorted({steep, flat, far})
    choices = [[str(h), f"head {h + 1} (slope {slope_text(float(slopes[h]))})"] for h in asked]
    spread = max(reach) - min(reach)
    correct = str(far)
    if len(slopes) > 1:  # one head reads as far as itself: no "the same" to offer
        choices.append(["same", "every head reads as far"])
        correct = "same" if spread <= 1e-12 * max(1.0, max(reach)) else correct
    return {
        "question": f"Every content score equal, {n} tokens: the last token's weights come from "
        "ALiBi's bias alone. Which head reads furthest back (the largest average distance "
        "Σ_j w_j·(i − j))?",
        "choices": choices,
        "correct": correct,
        "correct_label": {c[0]: c[1] for c in choices}[correct],
        "why": f"Each step back costs a factor e^(−m): head {steep + 1}'s e^(−"
        f"{fmt.significant(float(slopes[steep]), 4)}) = "
        f"{fmt.significant(float(np.exp(-slopes[steep])), 4)} keeps it near, head "
        f"{flat + 1}'s e^(−{fmt.significant(float(slopes[flat]), 4)}) = "
        f"{fmt.significant(float(np.exp(-slopes[flat])), 4)} spreads it out. Average distance: "
        f"{fmt.derived(reach[steep], 2)} against {fmt.derived(reach[flat], 2)} tokens.",
        "answer": f"furthest back: head {far + 1}, {fmt.derived(reach[far], 2)} tokens on average",
    }


def _grids(slope: float, head: int, n: int, theme: str) -> list[Json]:
    rows = [f"q_{i + 1}" for i in range(n)]
    cols = [f"k_{j + 1}" for j in range(n)]
    blocked = ~causal(n, n)
    b = matrix_grid("scores-bias", "−m·(i − j)", alibi.bias(slope, n, n), rows, cols, theme,
                    role="scores", blocked=blocked, blocked_text="−∞", row_title="queries",
                    col_title="keys", hover_name="bias")  # fmt: skip
    b["text"] = [["−∞" if blocked[i, j] else fmt.significant(float(x), 4) for j, x in
                  enumerate(row)] for i, row in enumerate(alibi.bias(slope, n, n))]  # fmt: skip
    w = matrix_grid("weights", "softmax(−m·(i − j))", alibi.flat_weights(slope, n), rows, cols,
                    theme, blocked=blocked, row_title="queries", col_title="keys",
                    hover_name="w")  # fmt: skip
    name = f"head {head + 1}, m = {slope_text(slope)}"
    return [
        grid_item(b, f"The bias of {name}, added to Q Kᵀ / √d before the softmax"),
        grid_item(w, f"Its weights when every content score is equal ({name})"),
    ]


def _locality_chart(slopes: Matrix, n: int, ctx: FigureContext) -> Json:
    t = ctx.theme
    last = [w[-1] for w in _weights(slopes, n)]
    dist = list(range(n))  # distance back from the last token, i − j
    traces = [
        charts.line([float(x) for x in dist], [float(w[n - 1 - x]) for x in dist],
                    t.roles["weights"] if h == 0 else t.roles["q"], f"head {h + 1}",
                    dash="solid" if h == 0 else "dot",
                    hover=[f"head {h + 1}, {x} back: weight {fmt.weight(float(w[n - 1 - x]), 4)}"
                           for x in dist], mode="lines+markers")
        for h, w in ((h, last[h]) for h in sorted({0, len(slopes) - 1}))
    ]  # fmt: skip
    xa = charts.value_axis(t, "distance back from the last token, i − j", [-0.3, n - 0.7])
    ya = charts.value_axis(t, "weight", [0, 1.05])
    return chart(traces, charts.layout(t, 300, xa, ya, **charts.legend(t)))


def build_alibi(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    heads, n = int(v["heads"]), int(v["tokens"])
    warnings = []
    head = int(v["head"])
    if head >= heads:
        warnings.append(f"Head {head + 1} does not exist with {heads} heads; showing head "
                        f"{heads}.")  # fmt: skip
        head = heads - 1
    slopes = alibi.slopes(heads)
    ws = _weights(slopes, n)
    own = [float(w[-1, -1]) for w in ws]
    reach = [float(alibi.mean_distance(w)[-1]) for w in ws]
    reveal = _reveal(slopes, n)
    listed = fmt.listing([slope_text(float(m)) for m in slopes], 8)
    m = float(slopes[head])
    caption = (
        f"{rule_text(heads)} Head {head + 1}'s slope m = {slope_text(m)}: query i's score for "
        f"key j ≤ i loses m·(i − j), so with equal content the last token keeps "
        f"{fmt.weight(own[head], 3)} of its weight on itself and reads "
        f"{fmt.derived(reach[head], 2)} tokens back on average."
    )
    return lab_figure(
        ALIBI,
        caption=caption,
        alt=f"The bias −m·(i − j) and the weights it alone makes for head {head + 1} of "
        f"{heads}, {n} tokens, and a chart of the last token's weight by distance for the "
        "steepest and the flattest head.",
        plot=_locality_chart(slopes, n, ctx),
        grids=_grids(m, head, n, ctx.theme.name),
        readout=[f"slopes: {listed}", reveal["answer"]],
        tables=[
            table(
                f"Each head's slope and the locality it gives ({n} tokens, content equal)",
                ["slope m", "e^(−m) per step back", "weight on itself", "average distance"],
                [f"head {h + 1}" for h in range(heads)],
                [
                    [
                        slope_text(float(s)),
                        fmt.significant(float(np.exp(-s)), 4),
                        fmt.weight(own[h], 3),
                        fmt.derived(reach[h], 2),
                    ]
                    for h, s in enumerate(slopes)
                ],
            )
        ],
        reveal=reveal,
        warnings=warnings,
        choice_labels={
            "head": [f"head {h + 1} (m = {slope_text(float(s))})" for h, s in enumerate(slopes)]
        },
    )


ALIBI = LabFigure(
    name="alibi",
    numpy="rotary-alibi",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="J3",
    title="ALiBi",
    intro='ALiBi (Press, Smith and Lewis, "Train Short, Test Long", 2022) adds no position '
    "to X or to q and k: it subtracts m·(i − j) from query i's score for key j, a different "
    "slope m per head, before the softmax. Change the head count (a power of two or not) "
    "and pick a head.",
    teaching="The bias makes every head prefer near tokens, each at its own rate: steep heads "
    "read their neighbours, flat ones almost the whole prefix.",
    build=build_alibi,
    controls=(
        integer("heads", "Heads", 8, 1, MAX_HEADS),
        # a 0-based head in the URL; the page names each with its slope (choice_labels)
        choice("head", "Head shown", 0, [(h, f"head {h + 1}") for h in range(MAX_HEADS)]),
        integer("tokens", "Tokens", 8, 2, MAX_TOKENS),
    ),
)
