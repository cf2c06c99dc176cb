"""E1, shuffle the tokens: attention is permutation-equivariant, so each output row
travels with its token, until positions are added. PURE; attention runs through
``ctx.run["attention"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import Control, choice, toggle
from app.figures.labs.order.common import TOL, columns, permuted_body, row_text
from app.figures.labs.parts import chart, matrix_grid, preset_body
from app.figures.style import arrow

DOG_TOKENS = ("The", "dog", "bit", "the", "man")


IDENTITY = tuple(range(len(DOG_TOKENS)))
# The figure opens shuffled beside the original, so its point shows before any click:
# "dog" and "man" swapped ("The man bit the dog").
SWAPPED = (0, 4, 2, 3, 1)


# The page's buttons (templates/labs/order.html): a name and the permutation it sets.
PERMS = (
    ("0,1,2,3,4", "Reset (The dog bit the man)"),
    ("0,4,2,3,1", "Swap dog ↔ man"),
    ("3,0,4,1,2", "Shuffle"),
    ("4,3,2,1,0", "Reverse"),
    ("1,2,3,4,0", "Rotate"),
)


# A swap of the tokens at two positions (either order), set by the token buttons of
# static/js/labs/order.js; the select itself is hidden.
SWAPS = (
    ("", "none"),
    *(
        (f"{i},{j}", f"rows {i + 1} ↔ {j + 1}")
        for i in range(len(DOG_TOKENS))
        for j in range(len(DOG_TOKENS))
        if i != j
    ),
)


def settle_shuffle(v: dict[str, Any]) -> dict[str, Any]:
    """A chosen ``swap`` exchanges the tokens at those two positions of the current order
    ``perm`` (0…4 once each: the control's ``permutation`` rule), then resets itself."""
    entries = v["perm"]
    perm = [int(p) for p in entries]
    if v["swap"]:
        i, j = (int(p) for p in v["swap"].split(","))
        perm[i], perm[j] = perm[j], perm[i]
    return dict(v, perm=tuple(perm), swap="")


def _travel(perm: Sequence[int], badges: Sequence[str], t: Any) -> Json:
    """Each token's output as an arrow from its old position (left) to its new one (right):
    solid when its values stayed the same, dashed when they changed."""
    n = len(perm)
    arrows, points = [], []
    for new, old in enumerate(perm):
        same = badges[new] == "same values"
        colour = t.roles["v"] if same else t.roles["k"]
        width = 2.5 if same else 1.5
        arrows.append(arrow((0.82, new), (0.18, old), colour, width, standoff=2, startstandoff=2))
    for x, order in ((0.0, list(range(n))), (1.0, list(perm))):
        points.append(
            {
                "type": "scatter",
                "mode": "text",
                "x": [x] * n,
                "y": list(range(n)),
                "text": [DOG_TOKENS[i] for i in order],
                "textfont": {"color": t.fg, "size": 14},
                "hovertemplate": "%{text}<extra></extra>",
                "showlegend": False,
            }
        )
    legend = [
        {
            "text": "solid: same values · thin: different values",
            "x": 0.5,
            "y": n - 0.3,
            "xref": "x",
            "yref": "y",
            "showarrow": False,
            "font": {"color": t.muted, "size": 12},
        }
    ]
    layout = charts.layout(
        t,
        60 + 44 * n,
        charts.value_axis(
            t,
            "",
            [-0.25, 1.25],
            tickmode="array",
            tickvals=[0, 1],
            ticktext=["before", "after"],
            showgrid=False,
            side="top",
        ),
        charts.value_axis(t, "", [n - 0.2, -0.8], visible=False),
        annotations=arrows + legend,
    )
    layout["margin"] = {"l": 16, "r": 16, "t": 36, "b": 8}
    return chart(points, layout)


def _grids(before: Any, after: Any, tokens_after: list[str], theme: str) -> list[Json]:
    """The outputs in order and shuffled."""
    cols = columns(before.shape[1])
    grids = [
        grid_item(
            matrix_grid(
                "output",
                "Z",
                before,
                DOG_TOKENS,
                cols,
                theme,
                row_title="token",
                col_title="output column",
            ),
            "Attention(X): the sentence in order",
        ),
        grid_item(
            matrix_grid(
                "output-shuffled",
                "Z",
                after,
                tokens_after,
                cols,
                theme,
                role="z",
                row_title="token",
                col_title="output column",
            ),
            "Attention(PX): the shuffled sentence",
        ),
    ]
    return grids


def build_shuffle(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    perm = list(v["perm"])
    positional = "sinusoidal" if v["positional"] else "none"
    body = {**preset_body("dog-bit-man"), "positional": positional}
    base = ctx.run["attention"](body)
    moved = ctx.run["attention"](permuted_body(body, perm))
    expected = base.output[perm]  # P · Attention(X)
    diff = np.abs(moved.output - expected)
    worst = float(diff.max())
    rows_out, badges = [], []
    for new, old in enumerate(perm):
        same = bool(diff[new].max() <= TOL)
        badges.append("same values" if same else "different values")
        rows_out.append(
            [
                f"row {old + 1} → row {new + 1}",
                row_text(base.output[old]),
                row_text(moved.output[new]),
                badges[-1],
            ]
        )
    holds = worst <= TOL
    caption = (
        f"Attention(PX) = P·Attention(X) holds: every token's output travelled with it "
        f"unchanged (largest difference {fmt.significant(worst, 2)}, within "
        f"{fmt.significant(TOL)})."
        if holds
        else f"With positions on, Attention(PX) ≠ P·Attention(X): the largest difference is "
        f"{fmt.derived(worst, 3)}. The same word at a new position is a different input."
    )
    if perm == list(range(5)):
        caption = "No shuffle yet: choose one. " + caption
    tokens_after = [DOG_TOKENS[i] for i in perm]
    grids = _grids(base.output, moved.output, tokens_after, theme)
    return lab_figure(
        SHUFFLE,
        plot=_travel(perm, badges, ctx.theme),
        caption=caption,
        alt="Each token's output row before and after the shuffle, with a badge saying "
        "whether its values stayed the same.",
        grids=grids,
        tables=[
            table(
                "Each token's output, before and after",
                ["moved", "output before", "output after", "badge"],
                tokens_after,
                rows_out,
            )
        ],
        table_view=True,
        readout=[f"{t}: {b}" for t, b in zip(tokens_after, badges, strict=True)]
        + ["A causal mask breaks equivariance too: who may be read depends on position."],
    )


SHUFFLE = LabFigure(
    name="shuffle",
    entry="E1",
    title="Shuffle the tokens",
    intro="“The dog bit the man” with the running example's W^Q, W^K and W^V (our embeddings; "
    "“The” and “the” share one). Reorder the tokens and compare each token's output with "
    "its output before.",
    teaching="Without positions, self-attention sees a set: outputs travel with their tokens, "
    "unchanged, so word order is invisible. The precise word is equivariant, not invariant.",
    build=build_shuffle,
    numpy="shuffle",
    badges=("our example",),
    controls=(
        Control(
            "perm",
            "Order: which token sits in each row, as the URL writes it (counting from 0: "
            "0 The, 1 dog, 2 bit, 3 the, 4 man)",
            "vector",
            SWAPPED,
            0,
            len(DOG_TOKENS) - 1,
            1,
            shape=(len(DOG_TOKENS),),
            labels=tuple(f"row {i + 1}" for i in IDENTITY),
            hint="Type any order of 0…4, use the buttons, or swap two tokens.",
            # one text field ("2,0,1,4,3"); the presets are buttons (templates/labs/order.html)
            extra={"presets": PERMS, "single": True, "permutation": True},
        ),
        choice("swap", "Swap the tokens at", "", SWAPS, extra={"hidden": True}),
        toggle("positional", "Add sinusoidal positions", False),
    ),
    settle=settle_shuffle,
)
