"""Lab `order` (LABS.md §7, entries E1–E3): permutation equivariance, sinusoidal positions,
and the reversed sentence.

PURE. Attention runs through ``ctx.run["attention"]`` (a request body -> the engine's
Stages, validated as the API does), with ``positional`` for the position switch; the
positional-encoding heatmap comes from ``app.labs.positional``, the same function as
``POST /api/v1/positional-encoding``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import Control, ControlError, choice, integer, number, toggle
from app.figures.labs.labs2_common import chart, fmt, item, matrix_grid
from app.figures.style import arrow
from app.inputs.presets import RUNNING_EXAMPLE, get_preset
from app.labs import lab_scripts
from app.labs.positional import sinusoidal

TOL = 1e-12  # per entry: equal in arithmetic, but the summation order changes (E1)


def _preset(preset_id: str) -> dict[str, Any]:
    found = get_preset(preset_id)
    assert found is not None, preset_id
    body: dict[str, Any] = found["body"]
    return body


def _permuted(body: Mapping[str, Any], perm: Sequence[int]) -> dict[str, Any]:
    return {**body, "x": [body["x"][i] for i in perm], "tokens": [body["tokens"][i] for i in perm]}


def _row(values: Any) -> str:
    return "(" + ", ".join(fmt(float(x), 3) for x in values) + ")"


def _dims(d: int) -> list[str]:
    return [f"d{j}" for j in range(d)]


# ---------------------------------------------------------------- E1 shuffle

DOG_TOKENS = ("The", "dog", "bit", "the", "man")
IDENTITY = tuple(range(len(DOG_TOKENS)))
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
        (f"{i},{j}", f"positions {i} ↔ {j}")
        for i in range(len(DOG_TOKENS))
        for j in range(len(DOG_TOKENS))
        if i != j
    ),
)


def settle_shuffle(v: dict[str, Any]) -> dict[str, Any]:
    """``perm`` must hold 0…4 once each (whole numbers); a chosen ``swap`` exchanges the
    tokens at those two positions of the current order, then resets itself."""
    entries = v["perm"]
    if any(not float(p).is_integer() for p in entries) or sorted(int(p) for p in entries) != list(
        IDENTITY
    ):
        raise ControlError(
            "perm", "must list the positions 0, 1, 2, 3 and 4 once each (a permutation)"
        )
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


def build_shuffle(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    perm = list(v["perm"])
    positional = "sinusoidal" if v["positional"] else "none"
    body = {**_preset("dog-bit-man"), "positional": positional}
    base = ctx.run["attention"](body)
    moved = ctx.run["attention"](_permuted(body, perm))
    expected = base.output[perm]  # P · Attention(X)
    diff = np.abs(moved.output - expected)
    worst = float(diff.max())
    cols = _dims(base.output.shape[1])
    rows_out, badges = [], []
    for new, old in enumerate(perm):
        same = bool(diff[new].max() <= TOL)
        badges.append("same values" if same else "different values")
        rows_out.append(
            [f"{old} → {new}", _row(base.output[old]), _row(moved.output[new]), badges[-1]]
        )
    holds = worst <= TOL
    caption = (
        f"Attention(PX) = P·Attention(X) holds: every token's output travelled with it "
        f"unchanged (largest difference {worst:.1e}, within {TOL:g})."
        if holds
        else f"With positions on, Attention(PX) ≠ P·Attention(X): the largest difference is "
        f"{fmt(worst, 3)}. The same word at a new position is a different input."
    )
    if perm == list(range(5)):
        caption = "No shuffle yet: choose one. " + caption
    tokens_after = [DOG_TOKENS[i] for i in perm]
    grids = [
        item(
            matrix_grid(
                "output",
                "Z",
                base.output,
                DOG_TOKENS,
                cols,
                theme,
                dp=3,
                row_title="token",
                col_title="output column",
            ),
            "Attention(X): the sentence in order",
        ),
        item(
            matrix_grid(
                "output-shuffled",
                "Z",
                moved.output,
                tokens_after,
                cols,
                theme,
                dp=3,
                role="z",
                row_title="token",
                col_title="output column",
            ),
            "Attention(PX): the shuffled sentence",
        ),
    ]
    return lab_figure(
        SHUFFLE,
        plot=_travel(perm, badges, ctx.theme),
        caption=caption,
        alt="Each token's output row before and after the shuffle, with a badge saying "
        "whether its values stayed the same.",
        grids=grids,
        tables=[
            table(
                "Each token's output, before and after (3 decimals)",
                ["position", "output before", "output after", "badge"],
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
    numpy=lambda v, ctx: lab_scripts.shuffle(
        _preset("dog-bit-man"), v["perm"], bool(v["positional"])
    ),
    badges=("our example",),
    controls=(
        Control(
            "perm",
            "perm: the token at positions 0…4 (0 The, 1 dog, 2 bit, 3 the, 4 man)",
            "vector",
            IDENTITY,
            0,
            len(DOG_TOKENS) - 1,
            1,
            shape=(len(DOG_TOKENS),),
            labels=tuple(f"position {i}" for i in IDENTITY),
            hint="Type any permutation of 0…4, use the buttons, or swap two positions.",
            # one text field ("2,0,1,4,3"); the presets are buttons (templates/labs/order.html)
            extra={"presets": PERMS, "single": True},
        ),
        choice("swap", "Swap the tokens at", "", SWAPS, extra={"hidden": True}),
        toggle("positional", "Add sinusoidal positions", False),
    ),
    settle=settle_shuffle,
)


# ---------------------------------------------------------------- E2 positional encoding

WIDTHS = (2, 4, 8, 16, 32, 64, 128, 256, 512)


def _curves(pe: Any, t: Any, dims: Sequence[int] = ()) -> Json:
    d = pe.shape[1]
    chosen = sorted({j for j in dims if j < d}) or sorted(
        {0, 1, min(2, d - 1), d - 2 if d > 2 else d - 1, d - 1}
    )
    palette = [t.roles["q"], t.roles["k"], t.roles["v"], t.roles["z"], t.roles["weights"]]
    pos = list(range(pe.shape[0]))
    data = [
        charts.line(
            pos,
            pe[:, j].tolist(),
            palette[n % len(palette)],
            f"dim {j} ({'sin' if j % 2 == 0 else 'cos'})",
            mode="lines+markers",
            hover=[f"PE({p}, {j}) = {pe[p, j]:.10g}" for p in pos],
        )
        for n, j in enumerate(chosen)
    ]
    layout = charts.layout(
        t,
        300,
        charts.value_axis(t, "position pos", [-0.2, max(pe.shape[0] - 0.8, 1)]),
        charts.value_axis(t, "PE", [-1.15, 1.15], dtick=0.5),
        **charts.legend(t),
    )
    return chart(data, layout)


MAX_CURVES = 8


def _chosen_dims(dims: Sequence[float]) -> list[int]:
    """The dimensions the learner asked to draw (whole numbers, at most MAX_CURVES)."""
    if any(not float(j).is_integer() for j in dims):
        raise ControlError("dims", "must be whole numbers (dimensions count from 0)")
    if len(dims) > MAX_CURVES:
        raise ControlError("dims", f"at most {MAX_CURVES} dimensions at a time")
    return [int(j) for j in dims]


def build_positional(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, theme = ctx.theme, ctx.theme.name
    d, positions, base = int(v["d"]), int(v["T"]), float(v["base"])
    pe = sinusoidal(positions, d, base)
    grids = [
        item(
            matrix_grid(
                "pe",
                "PE",
                pe,
                [f"pos {p}" for p in range(positions)],
                _dims(d),
                theme,
                role="scores",
                row_title="position",
                col_title="dimension",
            ),
            f"PE: {positions} positions × {d} dimensions (sines in even, cosines in odd "
            "dimensions)",
        )
    ]
    body = _preset("dog-bit-man")
    x = np.asarray(body["x"], dtype=np.float64)
    pe_x = sinusoidal(x.shape[0], x.shape[1])
    names = body["tokens"]
    for name, label, m in (("x", "X", x), ("pe-x", "PE", pe_x), ("x-plus-pe", "X + PE", x + pe_x)):
        grids.append(
            item(
                matrix_grid(
                    name,
                    label,
                    m,
                    names,
                    _dims(x.shape[1]),
                    theme,
                    dp=3,
                    role="x" if name == "x" else "scores",
                ),
                f"{label} for “The dog bit the man” (d_model 4, base 10000)",
            )
        )
    slow = base ** (2 * ((d - 1) // 2) / d)
    caption = (
        f"Dimension 0 turns once every 2π ≈ 6.3 positions; the last pair turns once every "
        f"2π·{slow:.4g} positions. “The” (position 0) and “the” (position 3) share an "
        "embedding but not a position, so X + PE gives them different rows."
    )
    return lab_figure(
        POSITIONAL,
        caption=caption,
        alt=f"A heatmap of the sinusoidal encoding for {positions} positions and {d} "
        "dimensions, and curves of chosen dimensions against position.",
        grids=grids,
        plot=_curves(pe, t, _chosen_dims(v["dims"])),
        readout=[
            f"PE(pos, 2i) = sin(pos / {base:g}^(2i/{d})), "
            f"PE(pos, 2i+1) = cos(pos / {base:g}^(2i/{d}))"
        ],
        quotes=[
            {
                "source": "the textbook chapter",
                "text": "“the original transformer adds "
                "sinusoids of different frequencies” (Eq. 16.4).",
            }
        ],
    )


POSITIONAL = LabFigure(
    name="positional-encoding",
    entry="E2",
    title="Sinusoidal positional encoding",
    intro="Each position gets a vector of sines and cosines at falling frequencies; it is "
    "added to X before the projections. Widen d and lengthen T to see the pattern.",
    teaching="Position vectors make the same word at two positions two different inputs, so "
    "a shuffle now changes the outputs. Low dimensions oscillate fast, high ones slowly.",
    build=build_positional,
    numpy=lambda v, ctx: lab_scripts.positional(int(v["T"]), int(v["d"]), float(v["base"])),
    controls=(
        integer("d", "Width d", 4, 2, 512, extra={"slider": True}),
        Control(
            "dims",
            "Curves of dimensions (0-based, e.g. 0,1,6,7)",
            "vector",
            (0, 1, 2, 3),
            0,
            511,
            1,
            extra={"single": True},
            hint="Dimensions past d − 1 are left out; 2i is a sine, 2i+1 its cosine.",
        ),
        integer("T", "Positions T", 5, 1, 128),
        number("base", "Base (advanced)", 10000, 2, 1_000_000, 1),
    ),
)


# ---------------------------------------------------------------- E3 reversed sentence


def build_reversed(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    positional = "sinusoidal" if v["positional"] else "none"
    body = {**RUNNING_EXAMPLE, "positional": positional}
    runs = [("I love LLMs", ctx.run["attention"](body))]
    if v["reverse"]:
        runs.append(("LLMs love I", ctx.run["attention"](_permuted(body, [2, 1, 0]))))
    grids = []
    for title, st in runs:
        h = st.head
        grids.append(
            item(
                matrix_grid(
                    "scores" if title == "I love LLMs" else "scores-reversed",
                    "QKᵀ",
                    h.scores,
                    st.tokens,
                    st.key_tokens,
                    theme,
                    dp=1,
                    role="scores",
                ),
                f"“{title}”: scores",
            )
        )
        grids.append(
            item(
                matrix_grid(
                    "weights" if title == "I love LLMs" else "weights-reversed",
                    "A",
                    h.weights,
                    st.tokens,
                    st.key_tokens,
                    theme,
                ),
                f"“{title}”: weights",
            )
        )
    rows, readout = [], []
    worst = 0.0
    for token in RUNNING_EXAMPLE["tokens"]:
        a = runs[0][1].output[runs[0][1].tokens.index(token)]
        if len(runs) == 2:
            b = runs[1][1].output[runs[1][1].tokens.index(token)]
            gap = float(np.abs(a - b).max())
            worst = max(worst, gap)
            badge = "same values" if gap <= TOL else "different values"
            rows.append([_row(a), _row(b), badge])
            readout.append(f"{token}: {badge}")
        else:
            rows.append([_row(a), "—", "—"])
    if len(runs) == 1:
        caption = "Switch on the reversal to run “LLMs love I” beside the original."
    elif worst <= TOL:
        caption = (
            "Without positions the reversed run is the original with its rows and "
            "columns reordered: every token's scores, weights and output are the same."
        )
    else:
        caption = (
            f"With positions on, the reversal is a different computation: outputs "
            f"differ by up to {fmt(worst, 3)}."
        )
    return lab_figure(
        REVERSED,
        caption=caption,
        alt="Score and weight grids of “I love LLMs” and, reversed, “LLMs love I”, with each "
        "token's output matched across the runs.",
        grids=grids,
        tables=[
            table(
                "Each token's output in both orders (3 decimals)",
                ["I love LLMs", "LLMs love I", "badge"],
                list(RUNNING_EXAMPLE["tokens"]),
                rows,
            )
        ],
        table_view=True,
        readout=readout,
    )


REVERSED = LabFigure(
    name="reversed",
    entry="E3",
    title="The reversed sentence",
    intro="The tutorial's running example, “I love LLMs”, against “LLMs love I”.",
    teaching="With positions off, the reversed run is the original with its rows and columns "
    "reordered, and nothing else. With positions on, it is a different computation.",
    build=build_reversed,
    controls=(
        toggle("reverse", "Reverse the sentence", False),
        toggle("positional", "Add sinusoidal positions", False),
    ),
)

FIGURES = (SHUFFLE, POSITIONAL, REVERSED)
