"""C3, the scaling table over d_k: the measured score variance, raw and scaled, from
one seeded run (``ctx.run["experiment"]``). PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import choice, integer, multi, steps
from app.figures.labs.why_scale.common import POW2, SEED_MAX
from app.figures.labs.words import source_of

KEYS = [2, 4, 8, 16, 32, 64, 128]


TABLE_DRAWS = [50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000]


def table_runs(v: Mapping[str, Any], preview: bool) -> list[tuple[str, Json]]:
    draws = min(int(v["draws"]), 50) if preview else int(v["draws"])
    body = {
        "d_ks": [int(d) for d in v["dks"]],
        "keys": int(v["keys"]),
        "draws": draws,
        "seed": int(v["seed"]),
    }
    return [("scaling-table", body)]


def _scaling_layout(t: Any, top: float) -> Json:
    """Entropy against log₂ d_k above (the maximum dashed), spread against √d_k below."""
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
    return layout


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
            f"d_k = {q['d_k']}: {side} entropy {fmt.derived(q[f'{side}_entropy_bits'], 4)} bits"
            for q in r
        ]
        tr["hovertemplate"] = "%{customdata}<extra></extra>"
    return {"data": data, "layout": _scaling_layout(t, top)}


def _quotes(rows: list[Json], seed: int) -> list[Json]:
    """The chapter's table, this run's, and why two spreads are shown."""
    return [
        {
            **source_of("textbook", "printed"),
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
                f"d_k = {r['d_k']}: spread {fmt.derived(r['spread'], 3)}, pooled "
                f"{fmt.derived(r['pooled_spread'], 3)}, raw "
                f"max weight {fmt.weight(r['raw_max_weight'], 3)}"
                for r in rows
            )
            + f" (seed {seed}).",
        },
        {
            "source": "Why both spreads",
            "kind": "note",
            "text": "0.90 is the expected population std of 8 "
            "independent standard normals. Here the keys share one query, whose length varies, "
            "so at small d_k the per-draw spread runs a little lower still.",
        },
    ]


def build_scaling_table(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    ((name, body),) = table_runs(v, ctx.preview)
    res = ctx.run["experiment"](name, body)
    rows, top = list(res["rows"]), float(res["max_entropy_bits"])
    cells = [
        [
            f"{fmt.derived(r['spread'], 3)}",
            f"{fmt.derived(r['pooled_spread'], 3)}",
            f"{fmt.weight(r['raw_max_weight'], 3)}",
            f"{fmt.derived(r['raw_entropy_bits'], 3)}",
            f"{fmt.weight(r['scaled_max_weight'], 3)}",
            f"{fmt.derived(r['scaled_entropy_bits'], 3)}",
        ]
        for r in rows
    ]
    tab = table(
        f"Averaged over {fmt.count(int(body['draws']))} draws with {int(v['keys'])} keys "
        f"(maximum entropy log₂ {int(v['keys'])} = {fmt.derived(top, 3)} bits)",
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
        f"{fmt.derived(first['spread'], 3)} to {fmt.derived(last['spread'], 3)} and the raw "
        f"weights' maximum from "
        f"{fmt.weight(first['raw_max_weight'], 3)} to {fmt.weight(last['raw_max_weight'], 3)}; "
        f"the scaled maximum "
        f"goes from {fmt.weight(first['scaled_max_weight'], 3)} to "
        f"{fmt.weight(last['scaled_max_weight'], 3)}."
    )
    quotes = _quotes(rows, int(v["seed"]))
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
    "raw scores, and the largest weight and entropy of the softmax, raw and scaled. This "
    "table is our reconstruction of the one in {textbook} (see Sources); what the chapter "
    "says about it is quoted below.",
    teaching="Each fourfold rise in d_k doubles the raw spread, and the raw weights pile onto "
    "one key; the scaled columns stay put.",
    build=build_scaling_table,
    experiment="scaling-table",
    runs=table_runs,
    controls=(
        multi("dks", "Widths d_k", (4, 16, 64, 256, 1024), POW2),
        steps("keys", "Keys", 8, KEYS),
        steps(
            "draws", "Draws per width", 200, TABLE_DRAWS, names=[fmt.count(x) for x in TABLE_DRAWS]
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
