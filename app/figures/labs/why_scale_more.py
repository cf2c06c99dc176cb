"""Lab `why-scale` (LABS.md §5), entries C3 (the scaling table over d_k) and C4 (the flat
line under the width-scaling model). PURE; C3's seeded run arrives through
``ctx.run["experiment"]``, C4 runs the engine's softmax stage directly."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.attention import softmax_stage
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import choice, integer, multi, number, steps
from app.figures.labs.why_scale import POW2, SEED_MAX, thousands

KEYS = [2, 4, 8, 16, 32, 64, 128]
TABLE_DRAWS = [50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000]


# ---------------------------------------------------------------- C3 the scaling table


def table_runs(v: Mapping[str, Any], preview: bool) -> list[tuple[str, Json]]:
    draws = min(int(v["draws"]), 50) if preview else int(v["draws"])
    body = {
        "d_ks": [int(d) for d in v["dks"]],
        "keys": int(v["keys"]),
        "draws": draws,
        "seed": int(v["seed"]),
    }
    return [("scaling-table", body)]


def _scaling_plot(t: Any, rows: list[Json], top: float, which: str) -> Json:
    x = [math.log2(int(r["d_k"])) for r in rows]
    roots = [math.sqrt(int(r["d_k"])) for r in rows]
    key = "spread" if which == "per-draw" else "pooled_spread"
    data = [
        charts.line(
            x,
            [r["raw_entropy_bits"] for r in rows],
            t.roles["k"],
            "raw entropy",
            mode="lines+markers",
        ),
        charts.line(
            x,
            [r["scaled_entropy_bits"] for r in rows],
            t.roles["q"],
            "scaled entropy",
            mode="lines+markers",
        ),
        charts.line(
            roots,
            [r[key] for r in rows],
            t.roles["v"],
            f"{which} spread",
            mode="markers",
            xaxis="x2",
            yaxis="y2",
            marker={"size": 10},
        ),
        charts.line([0, max(roots)], [0, max(roots)], t.fg, "y = √d_k", xaxis="x2", yaxis="y2"),
        charts.line(
            [0, max(roots)],
            [0, 0.9 * max(roots)],
            t.muted,
            "y = 0.90·√d_k",
            dash="dot",
            xaxis="x2",
            yaxis="y2",
        ),
    ]
    for tr, r in zip(data[:2], (rows, rows), strict=True):
        side = "raw" if tr is data[0] else "scaled"
        tr["customdata"] = [
            f"d_k = {q['d_k']}: {side} entropy {q[f'{side}_entropy_bits']:.4f} bits" for q in r
        ]
        tr["hovertemplate"] = "%{customdata}<extra></extra>"
    mark = {
        "type": "line",
        "xref": "x domain",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": top,
        "y1": top,
        "line": {"color": t.fg, "dash": "dash", "width": 1},
    }
    layout = charts.layout(
        t,
        560,
        charts.value_axis(t, "log₂ d_k", None, anchor="y", dtick=1),
        charts.value_axis(t, "entropy (bits)", [0, top * 1.08], domain=[0.6, 1], anchor="x"),
        xaxis2=charts.value_axis(t, "√d_k", None, anchor="y2", rangemode="tozero"),
        yaxis2=charts.value_axis(
            t, "spread (population std)", None, domain=[0, 0.4], anchor="x2", rangemode="tozero"
        ),
        shapes=[mark],
        **charts.legend(t),
    )
    layout["legend"]["y"] = -0.18
    return {"data": data, "layout": layout}


def build_scaling_table(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    ((name, body),) = table_runs(v, ctx.preview)
    res = ctx.run["experiment"](name, body)
    rows, top = list(res["rows"]), float(res["max_entropy_bits"])
    cells = [
        [
            f"{r['spread']:.3f}",
            f"{r['pooled_spread']:.3f}",
            f"{r['raw_max_weight']:.3f}",
            f"{r['raw_entropy_bits']:.3f}",
            f"{r['scaled_max_weight']:.3f}",
            f"{r['scaled_entropy_bits']:.3f}",
        ]
        for r in rows
    ]
    tab = table(
        f"Averaged over {thousands(int(body['draws']))} draws with {int(v['keys'])} keys "
        f"(maximum entropy log₂ {int(v['keys'])} = {top:.3f} bits)",
        [
            "spread",
            "pooled spread",
            "raw max weight",
            "raw entropy",
            "scaled max weight",
            "scaled entropy",
        ],
        [f"d_k = {r['d_k']}" for r in rows],
        cells,
    )
    first, last = rows[0], rows[-1]
    caption = (
        f"From d_k = {first['d_k']} to {last['d_k']} the raw spread goes from "
        f"{first['spread']:.3f} to {last['spread']:.3f} and the raw weights' maximum from "
        f"{first['raw_max_weight']:.3f} to {last['raw_max_weight']:.3f}; the scaled maximum "
        f"goes from {first['scaled_max_weight']:.3f} to {last['scaled_max_weight']:.3f}."
    )
    quotes = [
        {
            "source": "The textbook chapter printed",
            "text": "averaged over 200 random draws with "
            "eight keys: a maximum entropy of 3 bits; a population std of 8 samples “runs low by a "
            "predictable factor of about 0.90”, which is why d_k = 4 reads 1.756 rather than 2; "
            "pooled spreads 2.04, 4.01, 8.06, 16.2 and 31.7; at d_k = 1024 the raw weights put "
            "“96 per cent” on one key; “each fourfold rise in d_k doubles the spread”, and the "
            "scaled column “barely moves”.",
        },
        {
            "source": "This run measured",
            "kind": "run",
            "text": "; ".join(
                f"d_k = {r['d_k']}: spread {r['spread']:.3f}, pooled {r['pooled_spread']:.3f}, raw "
                f"max weight {r['raw_max_weight']:.3f}"
                for r in rows
            )
            + f" (seed {int(v['seed'])}).",
        },
        {
            "source": "Why both spreads",
            "text": "0.90 is the expected population std of 8 "
            "independent standard normals. Here the keys share one query, whose length varies, "
            "so at small d_k the per-draw spread runs a little lower still.",
        },
    ]
    return lab_figure(
        SCALING_TABLE,
        caption=caption,
        tables=[tab],
        table_view=True,
        plot=_scaling_plot(ctx.theme, rows, top, str(v["spread"])),
        alt="Entropy against log₂ d_k, raw and scaled, and the spread against √d_k.",
        quotes=quotes,
        run={"draws": int(body["draws"]), "preview": ctx.preview},
    )


SCALING_TABLE = LabFigure(
    name="scaling-table",
    entry="C3",
    title="The scaling table over d_k",
    intro="For each width, many draws of one query shared by a few keys: the spread of the "
    "raw scores, and the largest weight and entropy of the softmax, raw and scaled. The "
    "chapter's own table is missing; its prose survives (quoted below).",
    teaching="Each fourfold rise in d_k doubles the raw spread, and the raw weights pile onto "
    "one key; the scaled columns stay put.",
    build=build_scaling_table,
    experiment="scaling-table",
    runs=table_runs,
    controls=(
        multi("dks", "Widths d_k", (4, 16, 64, 256, 1024), POW2),
        steps("keys", "Keys", 8, KEYS),
        steps(
            "draws", "Draws per width", 200, TABLE_DRAWS, names=[thousands(x) for x in TABLE_DRAWS]
        ),
        integer("seed", "Seed", 0, 0, SEED_MAX),
        choice(
            "spread",
            "Spread to plot",
            "per-draw",
            [("per-draw", "per draw (averaged)"), ("pooled", "pooled")],
        ),
    ),
)


# ---------------------------------------------------------------- C4 the flat line

PATTERN = np.array([2.0, 1.0, 0.0])
ITEMS = ["item 0", "item 1", "item 2"]


def build_flat_line(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t, d, g = ctx.theme, int(v["d"]), float(v["gap"])
    exps = np.linspace(0, 10, 81)
    lead = [float(softmax_stage(PATTERN, math.sqrt(2**e)).max_weight[0]) for e in exps]
    flat = softmax_stage(PATTERN)
    at = softmax_stage(PATTERN, math.sqrt(d))
    x = exps.tolist()
    data = [
        charts.line(
            x,
            lead,
            t.roles["k"],
            "unscaled: softmax((2, 1, 0)·√d)",
            hover=[
                f"d = {2**e:.4g}: leading weight {w:.6f}" for e, w in zip(exps, lead, strict=True)
            ],
        ),
        charts.line(
            x,
            [float(flat.max_weight[0])] * len(x),
            t.roles["q"],
            "scaled: softmax(2, 1, 0)",
            hover=[f"leading weight {flat.max_weight[0]:.6f}"] * len(x),
        ),
        charts.line(
            [math.log2(d)] * 2,
            [float(at.max_weight[0]), float(flat.max_weight[0])],
            t.fg,
            f"d = {d}",
            mode="markers",
            marker={"size": 11, "symbol": "diamond"},
        ),
    ]
    layout = charts.layout(
        t,
        320,
        charts.value_axis(t, "log₂ d", [0, 10], dtick=1),
        charts.value_axis(t, "leading weight", [0, 1.05], dtick=0.25),
        **charts.legend(t),
    )
    cells = [
        [f"{float(a):.3f}", f"{float(b):.3f}"]
        for a, b in zip(at.weights[0], flat.weights[0], strict=True)
    ]
    eg = math.exp(g)
    caption = (
        f"At d = {d} the raw scores are (2, 1, 0)·√{d} = "
        f"({', '.join(f'{x:.2f}' for x in PATTERN * math.sqrt(d))}); unscaled, the "
        f"weights are {', '.join(f'{w:.3f}' for w in at.weights[0])}. Divided by √{d} "
        f"they are {', '.join(f'{w:.3f}' for w in flat.weights[0])} at every width — in "
        "this model. With random vectors the scaled weights fluctuate from draw to draw (C3)."
    )
    return lab_figure(
        FLAT_LINE,
        caption=caption,
        plot={"data": data, "layout": layout},
        alt="Leading weight against log₂ d: unscaled rises toward 1, scaled stays at "
        f"{flat.max_weight[0]:.3f}.",
        tables=[table(f"The three weights at d = {d}", ["unscaled", "scaled"], ITEMS, cells)],
        readout=[
            f"a gap of {g:g} in the scores: one weight is e^{g:g} = {eg:,.4f} times the other",
            f"stretch √{d} = {math.sqrt(d):.4f}",
        ],
        quotes=[
            {
                "source": "The queries/keys/values notes",
                "text": "dividing by the square root "
                "of the key length “holds the three weights at 0.665, 0.245 and 0.090 at every "
                "width”; “with keys of length two, the divisor is about 1.414, so a raw score of 2 "
                "becomes 1.414.”",
            },
            {"source": "The course module", "text": "at d_k = 128, “gaps of 20 are common”."},
        ],
    )


FLAT_LINE = LabFigure(
    name="flat-line",
    entry="C4",
    title="The flat line, the stretch and the typical size",
    intro="A model of width alone: at width d the raw scores are (2, 1, 0)·√d. Unscaled, "
    "softmax sees them stretched; scaled, it sees (2, 1, 0) at every width. This model is "
    "our reconstruction of the notes' synthetic figure.",
    teaching="Scaling removes the growth that comes from width alone; without it the same "
    "pattern hardens into a one-hot.",
    build=build_flat_line,
    badges=("reconstructed",),
    controls=(
        steps("d", "Width d", 64, POW2),
        number("gap", "Gap g between two scores", 20, 0, 30, 0.5, extra={"slider": True}),
    ),
)
