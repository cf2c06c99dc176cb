"""C1, the score histogram: q·k over seeded draws has mean 0 and variance d_k; scaled by
√d_k the variance is 1. The seeded run arrives through ``ctx.run["experiment"]``. PURE.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import integer, steps, toggle
from app.figures.labs.parts import root_text
from app.figures.labs.why_scale.common import (
    DRAWS,
    FIXED_HALF,
    MODULE_VAR,
    MODULE_WIDTHS,
    POW2,
    PREVIEW_DRAWS,
    SEED_MAX,
)
from app.figures.labs.words import source_of


def se_var_over_dk(d_k: int, n: int) -> float:
    """Standard error of var/d_k over n draws: √((2 + 6/d_k)/n), from E[s⁴] = 3d_k² + 6d_k."""
    return math.sqrt((2 + 6 / d_k) / n)


def variance_runs(v: Mapping[str, Any], preview: bool) -> list[tuple[str, Json]]:
    widths = list(MODULE_WIDTHS) if v["reproduce"] else [int(v["dk"])]
    if v["reproduce"] and int(v["dk"]) not in widths:
        widths.append(int(v["dk"]))
    draws = 200_000 if v["reproduce"] else int(v["draws"])
    if preview:
        widths, draws = [int(v["dk"])], min(draws, PREVIEW_DRAWS)
    return [
        ("score-variance", {"d_ks": widths, "draws": draws, "seed": int(v["seed"]), "bins": 60})
    ]


def _density(t: Any, w: Json, draws: int, scale: bool, fixed: bool) -> Json:
    d_k = int(w["d_k"])
    root = math.sqrt(d_k)
    edges = np.asarray(w["histogram"]["edges"], dtype=np.float64)
    counts = np.asarray(w["histogram"]["counts"], dtype=np.float64)
    div = root if scale else 1.0
    e = edges / div  # the same counts, with edges ÷ √d_k when scaled
    heights = counts / (draws * np.diff(e))
    sd = 1.0 if scale else root
    half = (4.0 if scale else FIXED_HALF) if fixed else max(float(np.abs(e).max()), 4 * sd)
    xs = np.linspace(-half, half, 201)
    curve = np.exp(-(xs**2) / (2 * sd * sd)) / (sd * math.sqrt(2 * math.pi))
    what = "s/√d_k" if scale else "s = q·k"
    hover = [
        f"{what} in [{fmt.derived(a, 3)}, {fmt.derived(b, 3)}): {fmt.count(int(c))} draws, "
        f"density {fmt.significant(h, 4)}"
        for a, b, c, h in zip(e[:-1], e[1:], counts, heights, strict=True)
    ]
    bars = charts.histogram_bars(e.tolist(), heights.tolist(), t.roles["q"], "this run", hover)
    ref = "N(0, 1)" if scale else f"N(0, {d_k})"
    line = charts.line(
        xs.tolist(),
        curve.tolist(),
        t.roles["k"],
        ref,
        hover=[
            f"{ref} density at {fmt.derived(x, 3)}: {fmt.significant(y, 4)}"
            for x, y in zip(xs, curve, strict=True)
        ],
    )
    layout = charts.layout(
        t,
        320,
        charts.value_axis(t, what, [-half, half]),
        charts.value_axis(t, "density", None, rangemode="tozero"),
        bargap=0,
        **charts.legend(t),
    )
    return {"data": [bars, line], "layout": layout}


def _se_band(t: Any, plot: Json, widths: list[Json], draws: int) -> None:
    """Below the histogram: var/d_k per width, the shaded band 1 ± 2 SE, and the course
    module's values where it measured the same width."""
    xs = [math.log2(int(w["d_k"])) for w in widths]
    ys = [float(w["var_over_d_k"]) for w in widths]
    ses = [se_var_over_dk(int(w["d_k"]), draws) for w in widths]
    data = _band_points(t, widths, xs, ys, ses)
    spread = max(max(abs(y - 1) for y in ys), max(2 * se for se in ses), 0.005) * 1.4
    lo, hi = min(xs) - 0.6, max(xs) + 0.6
    plot["data"] += data
    layout = plot["layout"]
    layout["height"] = 520
    layout["yaxis"]["domain"] = [0.46, 1]
    layout["xaxis"]["anchor"] = "y"
    layout["xaxis2"] = charts.value_axis(
        t,
        "d_k (band: 1 ± 2 SE)",
        [lo, hi],
        anchor="y2",
        tickmode="array",
        tickvals=xs,
        ticktext=[str(int(w["d_k"])) for w in widths],
    )
    layout["yaxis2"] = charts.value_axis(
        t, "var/d_k", [1 - spread, 1 + spread], domain=[0, 0.26], anchor="x2"
    )
    layout["shapes"] = [*layout.get("shapes", []), *_band_shapes(t, xs, ses)]


def _band_shapes(t: Any, xs: list[float], ses: list[float]) -> list[Json]:
    """The shaded band 1 ± 2 SE at each width."""
    return [
        {
            "type": "rect",
            "xref": "x2",
            "yref": "y2",
            "x0": x - 0.3,
            "x1": x + 0.3,
            "y0": 1 - 2 * se,
            "y1": 1 + 2 * se,
            "line": {"width": 0},
            "fillcolor": t.roles["q"],
            "opacity": 0.2,
            "layer": "below",
        }
        for x, se in zip(xs, ses, strict=True)
    ]


def _band_points(
    t: Any, widths: list[Json], xs: list[float], ys: list[float], ses: list[float]
) -> list[Json]:
    """This run's var/d_k per width, and the course module's where it measured the same."""
    module = dict(zip(MODULE_WIDTHS, MODULE_VAR, strict=True))
    hover = [
        f"d_k = {int(w['d_k'])}: var/d_k = {fmt.derived(y, 4)}, band 1 ± {fmt.derived(2 * se, 4)}"
        for w, y, se in zip(widths, ys, ses, strict=True)
    ]
    runs = charts.line(
        xs,
        ys,
        t.fg,
        "this run: var/d_k",
        mode="markers",
        hover=hover,
        xaxis="x2",
        yaxis="y2",
        marker={"size": 9, "color": t.fg},
    )
    data = [runs]
    quoted = [
        (math.log2(int(w["d_k"])), module[int(w["d_k"])]) for w in widths if int(w["d_k"]) in module
    ]
    if quoted:
        data.append(
            charts.line(
                [q[0] for q in quoted],
                [q[1] for q in quoted],
                t.roles["k"],
                "the course module",
                mode="markers",
                xaxis="x2",
                yaxis="y2",
                marker={"size": 10, "symbol": "x", "color": t.roles["k"]},
            )
        )
    return data


def _per_width(widths: list[Json], draws: int) -> tuple[list[str], list[list[str]], list[str]]:
    """The table's rows and cells per width, and the measured var/d_k for the quote."""
    rows, cells, measured = [], [], []
    module = dict(zip(MODULE_WIDTHS, MODULE_VAR, strict=True))
    for w in widths:
        k = int(w["d_k"])
        se = se_var_over_dk(k, draws)
        ratio = float(w["var_over_d_k"])
        rows.append(f"d_k = {k}")
        src = fmt.derived(module[k], 4) if k in module else "—"
        inside = "yes" if abs(ratio - 1) <= 2 * se else "no"
        cells.append([fmt.derived(ratio, 4), f"± {fmt.derived(se, 4)}", inside, src])
        measured.append(f"{fmt.derived(ratio, 4)} (d_k = {k})")
    return rows, cells, measured


def build_score_histogram(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    ((name, body),) = variance_runs(v, ctx.preview)
    result = ctx.run["experiment"](name, body)
    draws, d_k, scale = int(result["draws"]), int(v["dk"]), bool(v["scale"])
    shown = next(w for w in result["widths"] if int(w["d_k"]) == d_k)
    plot = _density(ctx.theme, shown, draws, scale, bool(v["fixed"]))
    _se_band(ctx.theme, plot, list(result["widths"]), draws)
    rows, cells, measured = _per_width(list(result["widths"]), draws)
    root = math.sqrt(d_k)
    readout = [
        f"mean {fmt.derived(float(shown['mean']), 4)}",
        f"var {fmt.derived(float(shown['var']), 2)}",
        f"var/d_k {fmt.derived(float(shown['var_over_d_k']), 4)}",
        f"scaled var {fmt.derived(float(shown['scaled_var']), 4)}",
        f"typical size √d_k: {root_text(d_k)}",
    ]
    run = "a preview of " if ctx.preview else ""
    caption = (
        f"{run.capitalize()}{fmt.count(draws)} draws of s = q·k at d_k = {d_k}, "
        f"seed {int(v['seed'])}. "
        + (
            f"Divided by √{d_k} = {fmt.derived(root, 2)}, the scores have variance "
            f"{fmt.derived(float(shown['scaled_var']), 4)} "
            "against the N(0, 1) curve."
            if scale
            else f"Raw, they spread like √d_k: variance {fmt.derived(float(shown['var']), 1)} "
            f"against the "
            f"N(0, {d_k}) curve, about ±{fmt.derived(2 * root, 1)} for most draws."
        )
        + (" Release the slider for the full run." if ctx.preview else "")
    )
    quotes = [
        {
            **source_of("course-module", "measured"),
            "text": "over 200,000 random draws per width, "
            "Var(qᵀk)/d_k = 0.9987, 1.0040, 1.0029 and 1.0038 for d_k = 32, 64, 128 and 256, "
            "and a scaled variance of “1.0” throughout (no seed printed).",
        },
        {
            "source": "This run measured",
            "kind": "run",
            "text": f"var/d_k = {', '.join(measured)} "
            f"over {fmt.count(draws)} draws, seed {int(v['seed'])}; ±2 SE is "
            f"±{fmt.derived(2 * se_var_over_dk(d_k, draws), 4)} at d_k = {d_k}.",
        },
    ]
    tab = table(
        f"var/d_k per width, {fmt.count(draws)} draws (SE = √((2 + 6/d_k)/n))",
        ["var/d_k", "SE", "within 1 ± 2 SE", "the module"],
        rows,
        cells,
    )
    return lab_figure(
        SCORE_HISTOGRAM,
        caption=caption,
        plot=plot,
        tables=[tab],
        readout=readout,
        alt=f"Histogram of {fmt.count(draws)} scores at d_k = {d_k} with the normal curve.",
        quotes=quotes,
        run={"draws": draws, "preview": ctx.preview},
    )


SCORE_HISTOGRAM = LabFigure(
    name="score-histogram",
    entry="C1",
    title="The spread of q·k grows like √d_k",
    intro="Draw random q and k with N(0, 1) entries and look at s = q·k. Move d_k and "
    "watch the spread; turn scaling on to see s/√d_k. The run is seeded, so a link "
    "reproduces it exactly.",
    teaching="Raw scores spread like √d_k; divided by √d_k they have unit variance at any width.",
    build=build_score_histogram,
    experiment="score-variance",
    runs=variance_runs,
    controls=(
        steps("dk", "d_k", 64, POW2, drag_preview=True),
        toggle("scale", "Divide by √d_k", False),
        steps("draws", "Draws", 20_000, DRAWS, names=[fmt.count(d) for d in DRAWS]),
        integer("seed", "Seed", 0, 0, SEED_MAX),
        toggle("fixed", "Hold the x-axis at ±4·√1024 (±4 when scaled)", True),
        toggle(
            "reproduce",
            "Reproduce the run of the course module “Attention” (d_k = 32, 64, 128, 256; "
            "200,000 draws)",
            False,
        ),
    ),
)
