"""D1, kinds of mask and combining them: each active mask in additive or allowed form,
their sum, and the weights of softmax(S + mask) from the engine's softmax stage. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.attention import softmax_stage
from app.figures import fmt
from app.figures.grid import grid
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import Control, choice, integer, matrix, toggle
from app.figures.labs.masks.common import (
    D1,
    L_MAX,
    L_MIN,
    S_DEFAULT,
    active_masks,
    d1_allowed,
    keys,
    queries,
    scores_of,
    settle_d1,
)
from app.figures.labs.parts import matrix_grid
from app.figures.labs.words import vec
from app.labs import masks


def _mask_grid(name: str, allowed: Any, form: str, theme: str, label: str) -> Json:
    n = allowed.shape[0]
    qs, ks = queries(n), keys(n)
    additive = masks.additive(allowed)
    text = (
        [["·" if a else "−∞" for a in row] for row in allowed.tolist()]
        if form == "additive"
        else [["✓" if a else "✗" for a in row] for row in allowed.tolist()]
    )
    hover = [
        [
            f"{label}: query {qs[i]} {'may' if a else 'may not'} read key {ks[j]}"
            + ("" if a else " (masked: −∞ added)")
            for j, a in enumerate(row)
        ]
        for i, row in enumerate(allowed.tolist())
    ]
    return grid(
        name,
        label,
        additive,
        rows=list(qs),
        cols=list(ks),
        theme=theme,
        role="scores",
        text=text,
        hover=hover,
        row_title="query",
        col_title="key",
        masked=~allowed,
    )


def _allowed_readout(allowed: Any) -> list[str]:
    counts = allowed.sum(axis=1)
    qs = queries(allowed.shape[0])
    return [
        f"row {qs[i]}: {int(n)} allowed key{'s' * (int(n) != 1)}"
        + (" — none: see D3, a row with no allowed key" if n == 0 else "")
        for i, n in enumerate(counts)
    ]


def build_mask_kinds(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    scores = scores_of(v)
    n = int(v["L"])
    active = active_masks(v)
    combined = d1_allowed(v)
    stage = softmax_stage(scores, allowed=combined, mask_order="before")
    grids = [
        grid_item(_mask_grid(f"mask-{i}", m, v["form"], theme, "mask"), name)
        for i, (name, m) in enumerate(active)
    ]
    total = (
        "their sum (= AND of the allowed sets)" if len(active) > 1 else "the sum: that mask alone"
    )
    grids.append(
        grid_item(
            _mask_grid("mask-sum", combined, v["form"], theme, "mask"),
            total if active else "no mask: every key allowed",
        )
    )
    grids.append(
        grid_item(
            matrix_grid(
                "weights",
                "A",
                stage.weights,
                queries(n),
                keys(n),
                theme,
                blocked=~combined,
                hover_name="weight",
            ),
            "weights: softmax of S + mask, row by row",
        )
    )
    n_allowed = int(combined.sum())
    names = [n for n, _ in active]
    caption = (
        (f"{' + '.join(names)}: " if names else "No mask: ")
        + f"{n_allowed} of {n * n} cells allowed. Each row's weights sum to 1 over its "
        "allowed keys"
        + (", except rows with no allowed key, which are all zero." if stage.warnings else ".")
    )
    rows = [[fmt.derived(float(x), 2) for x in row] for row in stage.weights]
    return lab_figure(
        MASK_KINDS,
        caption=caption,
        alt=f"Mask grids ({', '.join(names) or 'none'}), their sum and the weights on S.",
        grids=grids,
        readout=_allowed_readout(combined),
        tables=[table("Weights (2 decimals)", list(keys(n)), list(queries(n)), rows)],
        warnings=[
            f"row {queries(n)[i]} has no allowed key: its weights are all zero"
            for i in range(n)
            if not combined[i].any()
        ],
    )


L_CONTROL = integer(
    "L", "Length L (queries = keys; shared by D1–D3)", 4, L_MIN, L_MAX, extra={"slider": True}
)


S_CONTROL = matrix(
    "S",
    "Scores S, L × L (shared by D1–D3; row q_1 from the textbook chapter “Self-Attention and "
    "the Transformer”, the rest our example)",
    S_DEFAULT,
    -10,
    10,
    0.1,
    labels=queries(L_MAX),
    extra={"square": (L_MIN, L_MAX), "row_prefix": "q_"},
)


PAD_CONTROL = Control(
    "pad",
    "Padding: blocked keys",
    "multi",
    (),
    choices=tuple((j, vec("k", j)) for j in range(L_MAX)),
    extra={"empty_ok": True, "size_by": "L", "size_offset": 0},
)


WINDOW_CONTROL = choice(
    "window",
    "Sliding window w (our example: the sources only name it)",
    "off",
    (("off", "off"), *((str(w), str(w)) for w in range(1, L_MAX + 1))),
    extra={"size_by": "L", "size_offset": 1},
)


MASK_KINDS = LabFigure(
    name=D1,
    entry="D1",
    title="Kinds of mask, and combining them",
    intro="Switch masks on and off. Each one is a rule about which keys a query may read; "
    "in additive form it adds 0 where a key is allowed and −∞ where it is blocked. L and S "
    "here are shared: D2 and D3 use them too.",
    teaching="Each mask states a rule: no peeking ahead, ignore padding, stay local. Adding "
    "their −∞ entries intersects what each allows.",
    build=build_mask_kinds,
    numpy="mask-kinds",
    badges=("our reconstruction",),
    controls=(
        toggle("causal", "Causal (key j only when j ≤ i)", True),
        PAD_CONTROL,
        WINDOW_CONTROL,
        choice(
            "form",
            "Show masks as",
            "additive",
            (("additive", "additive: · and −∞"), ("allowed", "allowed: ✓ and ✗")),
        ),
        L_CONTROL,
        S_CONTROL,
    ),
    settle=settle_d1,
)
