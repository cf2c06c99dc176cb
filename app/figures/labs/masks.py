"""Lab `masks` (LABS.md §6, entries D1–D3): kinds of mask, mask before vs after softmax,
and a row with no allowed key.

PURE. D1 and D2 run the engine's softmax stage on the 4 × 4 score matrix S with an
``allowed`` mask (the same computation as ``POST /api/v1/softmax`` with ``mask``,
``allowed`` and ``mask_order``); D3 runs attention on the running example with a
``<pad>`` token in front, through ``ctx.run["attention"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.attention import softmax_stage
from app.figures.grid import grid
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import Control, choice, integer, matrix, toggle
from app.figures.labs.labs2_common import chart, fmt, item, matrix_grid
from app.inputs.presets import RUNNING_EXAMPLE
from app.labs import lab_scripts, masks

# The default S (reconstructed): row 0 reproduces the chapter's 0.4551; the rest are ours.
S_DEFAULT = (
    (1.0, 0.5, -0.5, 0.0),
    (0.5, 1.5, 0.0, -1.0),
    (0.0, 1.0, 2.0, 0.5),
    (-0.5, 0.5, 1.0, 1.5),
)
L_MIN, L_MAX = 2, 8
D1 = "mask-kinds"  # the figure holding the shared L and S, and the masks D2 and D3 may use


def queries(n: int) -> tuple[str, ...]:
    return tuple(f"q{i}" for i in range(n))


def keys(n: int) -> tuple[str, ...]:
    return tuple(f"k{j}" for j in range(n))


def resized(s: Any, n: int) -> tuple[tuple[float, ...], ...]:
    """S as n × n: kept cells stay, new cells are 0 (LABS.md §6)."""
    return tuple(
        tuple(float(s[i][j]) if i < len(s) and j < len(s) else 0.0 for j in range(n))
        for i in range(n)
    )


def settle_d1(v: dict[str, Any]) -> dict[str, Any]:
    """S follows L; padded keys past L are dropped; a window wider than L becomes L."""
    n = int(v["L"])
    out = dict(v, S=resized(v["S"], n), pad=tuple(j for j in v["pad"] if j < n))
    if out["window"] != "off" and int(out["window"]) > n:
        out["window"] = str(n)
    return out


def shared(ctx: FigureContext, v: Mapping[str, Any]) -> Mapping[str, Any]:
    """D1's values (L, S and its masks): D1's own, or those of the figure read."""
    return v if "L" in v else ctx.others[D1]


def scores_of(d1: Mapping[str, Any]) -> Any:
    return np.asarray(d1["S"], dtype=np.float64)


def _masks(v: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(name, allowed) of each active mask of D1's controls."""
    n = int(v["L"])
    active: list[tuple[str, Any]] = []
    if v["causal"]:
        active.append(("causal", masks.causal(n, n)))
    if v["pad"]:
        padded = [j in v["pad"] for j in range(n)]
        names = ", ".join(f"k{j}" for j in v["pad"])
        active.append((f"padding ({names})", masks.padding(n, padded)))
    if v["window"] != "off":
        w = int(v["window"])
        active.append(
            (
                f"window w = {w}" + (" (causal)" if v["causal"] else ""),
                masks.window(n, n, w, causal_too=bool(v["causal"])),
            )
        )
    return active


def d1_allowed(v: Mapping[str, Any]) -> Any:
    """The AND of D1's active masks (every cell allowed when none is on)."""
    n = int(v["L"])
    return masks.combine([m for _, m in _masks(v)], (n, n))


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
            + ("" if a else " (−∞ added)")
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
    )


def _allowed_readout(allowed: Any) -> list[str]:
    counts = allowed.sum(axis=1)
    qs = queries(allowed.shape[0])
    return [
        f"row {qs[i]}: {int(n)} allowed key{'s' * (int(n) != 1)}"
        + (" — none: see D3, a row with no allowed key" if n == 0 else "")
        for i, n in enumerate(counts)
    ]


# ---------------------------------------------------------------- D1 kinds of mask


def build_mask_kinds(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    scores = scores_of(v)
    n = int(v["L"])
    active = _masks(v)
    combined = d1_allowed(v)
    stage = softmax_stage(scores, allowed=combined, mask_order="before")
    grids = [
        item(_mask_grid(f"mask-{i}", m, v["form"], theme, "mask"), name)
        for i, (name, m) in enumerate(active)
    ]
    total = (
        "their sum (= AND of the allowed sets)" if len(active) > 1 else "the sum: that mask alone"
    )
    grids.append(
        item(
            _mask_grid("mask-sum", combined, v["form"], theme, "mask"),
            total if active else "no mask: every key allowed",
        )
    )
    grids.append(
        item(
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
    rows = [[fmt(float(x), 2) for x in row] for row in stage.weights]
    return lab_figure(
        MASK_KINDS,
        caption=caption,
        alt=f"Mask grids ({', '.join(names) or 'none'}), their sum and the weights on S.",
        grids=grids,
        readout=_allowed_readout(combined),
        tables=[table("Weights (2 decimals)", list(keys(n)), list(queries(n)), rows)],
        warnings=list(stage.warnings),
    )


L_CONTROL = integer(
    "L", "Length L (queries = keys; shared by D1–D3)", 4, L_MIN, L_MAX, extra={"slider": True}
)
S_CONTROL = matrix(
    "S",
    "Scores S, L × L (shared by D1–D3; reconstructed: row 0 is the chapter's)",
    S_DEFAULT,
    -10,
    10,
    0.1,
    labels=queries(L_MAX),
    extra={"square": (L_MIN, L_MAX), "row_prefix": "q"},
)
PAD_CONTROL = Control(
    "pad",
    "Padding: blocked keys",
    "multi",
    (),
    choices=tuple((j, f"k{j}") for j in range(L_MAX)),
    extra={"empty_ok": True, "size_by": "L", "size_offset": 0},
)
WINDOW_CONTROL = choice(
    "window",
    "Sliding window w (ours)",
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
    numpy=lambda v, ctx: lab_scripts.mask_kinds(v),
    badges=("reconstructed",),
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


# ---------------------------------------------------------------- D2 before vs after

ORDER_CHOICES = (("both", "both"), ("before", "before (correct)"), ("after", "after (wrong)"))
D2_MASKS = (("causal", "causal"), ("d1", "D1's combination"))


def _d2_allowed(name: str, d1: Mapping[str, Any]) -> Any:
    n = int(d1["L"])
    return masks.causal(n, n) if name == "causal" else d1_allowed(d1)


def _row_sum_bars(sums: dict[str, Any], t: Any, n: int) -> Json:
    data = []
    colours = {"before": t.roles["q"], "after": t.roles["k"]}
    for order, s in sums.items():
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": f"mask {order} softmax",
                "y": list(queries(n)),
                "x": [float(x) for x in s],
                "text": [fmt(float(x), 4) for x in s],
                "textposition": "outside",
                "cliponaxis": False,
                "marker": {"color": colours[order]},
                "hovertemplate": f"{order}: row %{{y}} sums to %{{x:.10g}}<extra></extra>",
            }
        )
    dashed = {
        "type": "line",
        "x0": 1,
        "x1": 1,
        "y0": -0.5,
        "y1": n - 0.5,
        "xref": "x",
        "yref": "y",
        "line": {"color": t.fg, "dash": "dash", "width": 2},
    }
    layout = charts.layout(
        t,
        120 + 40 * n,
        charts.value_axis(t, "row sum", [0, 1.25], dtick=0.25),
        charts.value_axis(t, "", None, autorange="reversed", type="category"),
        shapes=[dashed],
        barmode="group",
        **charts.legend(t),
    )
    return chart(data, layout)


def build_mask_order(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, theme = ctx.theme, ctx.theme.name
    d1 = shared(ctx, v)
    scores, n = scores_of(d1), int(d1["L"])
    qs, ks = queries(n), keys(n)
    allowed = _d2_allowed(v["mask"], d1)
    orders = ("before", "after") if v["order"] == "both" else (v["order"],)
    stages = {o: softmax_stage(scores, allowed=allowed, mask_order=o) for o in orders}
    plain = softmax_stage(scores)  # the unmasked softmax: what "after" discards from
    grids = []
    for o, st in stages.items():
        g = matrix_grid(
            f"weights-{o}",
            "A",
            st.weights,
            qs,
            ks,
            theme,
            blocked=~allowed,
            hover_name=f"weight ({o})",
        )
        if o == "after":  # the discarded weight, in the blocked cells
            for i in range(n):
                for j in range(n):
                    if not allowed[i, j]:
                        lost = float(plain.weights[i, j])
                        g["text"][i][j] = f"({fmt(lost)})"
                        g["hover"][i][j] = f"discarded: weight {lost:.10g} was set to 0"
        sums = ", ".join(fmt(float(s), 4) for s in st.row_sums)
        title = (
            "mask before softmax (attention proper)"
            if o == "before"
            else "mask after softmax (wrong): discarded weight in brackets"
        )
        grids.append(item(g, f"{title}; row sums {sums}"))
    parts = []
    if "before" in stages:
        parts.append("Masked before the softmax, every row sums to 1 over its allowed keys.")
    if "after" in stages:
        s0 = float(stages["after"].row_sums[0])
        parts.append(
            f"Masked after, row q0 keeps only {fmt(s0, 4)} of its weight: the rest "
            "is discarded, not redistributed."
        )
    rows = [[fmt(float(st.row_sums[i]), 4) for st in stages.values()] for i in range(n)]
    return lab_figure(
        MASK_ORDER,
        caption=" ".join(parts),
        alt="Weight grids masked " + " and ".join(orders) + " the softmax, with row sums.",
        grids=grids,
        plot=_row_sum_bars({o: st.row_sums for o, st in stages.items()}, t, n),
        readout=[
            f"{o}: row sums {', '.join(fmt(float(s), 4) for s in st.row_sums)}"
            for o, st in stages.items()
        ],
        tables=[table("Row sums (4 decimals)", [f"mask {o}" for o in stages], list(qs), rows)],
        quotes=[
            {
                "source": "the textbook chapter",
                "text": "“The first row now sums to 0.4551, because the weight that belonged "
                "to the blocked positions has been discarded rather than redistributed.”",
            }
        ],
    )


MASK_ORDER = LabFigure(
    name="mask-order",
    entry="D2",
    title="Mask before vs after softmax",
    intro="The same scores and mask, masked at two moments: before the softmax (blocked "
    "scores become −∞) or after it (the softmax of the full row, then blocked weights "
    "zeroed). The scores are D1's S (edit L and its entries there); the mask is causal or "
    "the combination you built in D1.",
    teaching="Masking before softmax renormalises over the allowed keys. Masking after "
    "discards weight: rows stop summing to one, and the outputs shrink.",
    build=build_mask_order,
    numpy=lambda v, ctx: lab_scripts.mask_order(shared(ctx, v), v["mask"]),
    badges=("reconstructed",),
    controls=(
        choice("order", "Order", "both", ORDER_CHOICES),
        choice("mask", "Mask", "causal", D2_MASKS),
    ),
    reads=(D1,),
)


# ---------------------------------------------------------------- D3 the empty row

PAD_TOKENS = ("<pad>", "I", "love", "LLMs")
LARGE_NEGATIVE = -1e9


def _pad_first_body() -> dict[str, Any]:
    return {
        **RUNNING_EXAMPLE,
        "tokens": list(PAD_TOKENS),
        "x": [[0, 0, 0, 0], *RUNNING_EXAMPLE["x"]],
        "mask": "causal",
        "padding": [True, False, False, False],
    }


def build_empty_row(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    theme = ctx.theme.name
    if v["case"] == "pad-first":
        stages = ctx.run["attention"](_pad_first_body())
        h = stages.head
        rows, cols = stages.tokens, stages.key_tokens
        masked_scores, allowed, warnings = h.scaled, stages.allowed, list(stages.warnings)
        weights = h.weights
    else:  # on D1's S: key k0 padded with causal on, or D1's own combination
        d1 = shared(ctx, v)
        n = int(d1["L"])
        rows, cols = queries(n), keys(n)
        if v["case"] == "pad-key0":
            allowed = masks.causal(n, n) & masks.padding(n, [j == 0 for j in range(n)])
        else:
            allowed = d1_allowed(d1)
        st = softmax_stage(scores_of(d1), allowed=allowed)
        masked_scores, warnings, weights = st.scores, list(st.warnings), st.weights
    empty = [i for i in range(len(rows)) if not allowed[i].any()]
    r = empty[0] if empty else 0
    outline = {"rows": empty, "cols": [], "cells": []}
    grids = [
        item(
            matrix_grid(
                "weights",
                "A",
                weights,
                rows,
                cols,
                theme,
                blocked=~allowed,
                hover_name="weight",
                outline=outline,
            ),
            "weights, guarded (the engine): the empty row is all zeros",
        )
    ]
    # The large-finite variant: −1e9 instead of −∞, a uniform row.
    finite = softmax_stage(np.where(allowed, masked_scores, LARGE_NEGATIVE))
    if v["large"]:
        grids.append(
            item(
                matrix_grid(
                    "weights-finite",
                    "A",
                    finite.weights,
                    rows,
                    cols,
                    theme,
                    hover_name="weight (−1e9 mask)",
                    outline=outline,
                ),
                "weights with −1e9 instead of −∞: the empty row is uniform",
            )
        )
    n = len(cols)
    naive = [
        [
            ("−∞" if not allowed[r, j] else fmt(float(masked_scores[r, j]))),
            "0" if not allowed[r, j] else "e^s",
            "0/0 = NaN",
            "0",
            fmt(float(finite.weights[r, j]), 4),
        ]
        for j in range(n)
    ]
    caption = (
        f"Row {rows[r]} (position {r}) has no allowed key: every score is −∞, so a naive "
        "softmax divides e^−∞ = 0 by their sum 0 and gets NaN. The engine guards the row "
        "(zeros and a warning); a large finite negative such as −1e9 instead gives a uniform "
        f"row, 1/{n} each."
        if empty
        else "Every row has at least one allowed key, so no row needs guarding."
    )
    return lab_figure(
        EMPTY_ROW,
        caption=caption,
        alt=f"The weight grid with row {rows[r]} flagged as empty, and the naive softmax "
        "of that row: NaN.",
        grids=grids,
        tables=[
            table(
                f"Row {rows[r]} three ways",
                ["masked score", "naive e^s", "naive weight", "guarded weight", "−1e9 weight"],
                list(cols),
                naive,
            )
        ],
        table_view=True,
        warnings=[f"The engine's warning, verbatim: “{w}”" for w in warnings],
        quotes=[
            {
                "source": "the course module",
                "text": "“Every row must keep at least one "
                "allowed key, or the softmax computes 0/0 = NaN.”",
            },
            {
                "source": "the queries/keys/values notes",
                "text": "implementations “guard that row or accept a useless output”.",
            },
        ],
    )


def numpy_empty_row(v: Mapping[str, Any], ctx: FigureContext) -> str:
    """D3's script: the padded running example through attention, or the shared S."""
    if v["case"] == "pad-first":
        allowed = masks.causal(4, 4) & masks.padding(4, [True, False, False, False])
        return lab_scripts.empty_row_attention(_pad_first_body(), allowed)
    d1 = shared(ctx, v)
    n = int(d1["L"])
    if v["case"] == "pad-key0":
        allowed = masks.causal(n, n) & masks.padding(n, [j == 0 for j in range(n)])
    else:
        allowed = d1_allowed(d1)
    return lab_scripts.empty_row_scores(d1["S"], allowed)


EMPTY_ROW = LabFigure(
    name="empty-row",
    entry="D3",
    title="A row with no allowed key",
    intro="“<pad>” in front of the running example, padded and causal: position 0 may read "
    "only itself, and itself is padding. What should its weights be?",
    teaching="Every query needs at least one key to read. An empty row has no meaningful "
    "answer, so implementations must guard it: the sources say NaN, this engine gives "
    "zeros and a warning.",
    build=build_empty_row,
    numpy=numpy_empty_row,
    badges=("our example",),
    controls=(
        choice(
            "case",
            "Example",
            "pad-first",
            (
                ("pad-first", "<pad> I love LLMs (causal)"),
                ("pad-key0", "D1's S with key k0 padded (causal)"),
                ("d1", "D1's S with D1's masks"),
            ),
        ),
        toggle("large", "Also show −1e9 instead of −∞", True),
    ),
    reads=(D1,),
)

FIGURES = (MASK_KINDS, MASK_ORDER, EMPTY_ROW)
