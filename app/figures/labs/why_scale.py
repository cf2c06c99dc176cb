"""Lab `why-scale` (LABS.md §5), entries C1 (the score histogram) and C2 (saturation).

PURE. Each figure names the seeded experiment runs it needs (``experiments(values,
preview)`` -> [(name, body)], bodies as for ``POST /api/v1/experiments/{name}``); the route
runs them (with progress for large runs) and hands the results in through
``ctx.run["experiment"](name, body)``. A preview (a slider being dragged) asks for a
smaller run; releasing the slider asks for the full one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import integer, number, steps, toggle

POW2 = [2**i for i in range(11)]  # 1 … 1024
DRAWS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000]
MODULE_WIDTHS = (32, 64, 128, 256)
MODULE_VAR = (0.9987, 1.0040, 1.0029, 1.0038)
PREVIEW_DRAWS = 5_000
PREVIEW_TRIALS = 200
FIXED_HALF = 4 * math.sqrt(1024)
SEED_MAX = 2**32 - 1


def thousands(n: float) -> str:
    return f"{n:,.0f}"


def se_var_over_dk(d_k: int, n: int) -> float:
    """Standard error of var/d_k over n draws: √((2 + 6/d_k)/n), from E[s⁴] = 3d_k² + 6d_k."""
    return math.sqrt((2 + 6 / d_k) / n)


# ---------------------------------------------------------------- C1 score histogram


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
        f"{what} in [{a:.3f}, {b:.3f}): {int(c):,} draws, density {h:.4g}"
        for a, b, c, h in zip(e[:-1], e[1:], counts, heights, strict=True)
    ]
    bars = charts.histogram_bars(e.tolist(), heights.tolist(), t.roles["q"], "this run", hover)
    ref = "N(0, 1)" if scale else f"N(0, {d_k})"
    line = charts.line(
        xs.tolist(),
        curve.tolist(),
        t.roles["k"],
        ref,
        hover=[f"{ref} density at {x:.3f}: {y:.4g}" for x, y in zip(xs, curve, strict=True)],
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
    module = dict(zip(MODULE_WIDTHS, MODULE_VAR, strict=True))
    xs = [math.log2(int(w["d_k"])) for w in widths]
    ys = [float(w["var_over_d_k"]) for w in widths]
    ses = [se_var_over_dk(int(w["d_k"]), draws) for w in widths]
    shapes = [
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
    hover = [
        f"d_k = {int(w['d_k'])}: var/d_k = {y:.4f}, band 1 ± {2 * se:.4f}"
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
    layout["shapes"] = [*layout.get("shapes", []), *shapes]


def build_score_histogram(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    ((name, body),) = variance_runs(v, ctx.preview)
    result = ctx.run["experiment"](name, body)
    draws, d_k, scale = int(result["draws"]), int(v["dk"]), bool(v["scale"])
    shown = next(w for w in result["widths"] if int(w["d_k"]) == d_k)
    plot = _density(ctx.theme, shown, draws, scale, bool(v["fixed"]))
    _se_band(ctx.theme, plot, list(result["widths"]), draws)
    rows, cells, measured = [], [], []
    module = dict(zip(MODULE_WIDTHS, MODULE_VAR, strict=True))
    for w in result["widths"]:
        k = int(w["d_k"])
        se = se_var_over_dk(k, draws)
        ratio = float(w["var_over_d_k"])
        rows.append(f"d_k = {k}")
        src = f"{module[k]:.4f}" if k in module else "—"
        inside = "yes" if abs(ratio - 1) <= 2 * se else "no"
        cells.append([f"{ratio:.4f}", f"± {se:.4f}", inside, src])
        measured.append(f"{ratio:.4f} (d_k = {k})")
    root = math.sqrt(d_k)
    readout = [
        f"mean {float(shown['mean']):.4f}",
        f"var {float(shown['var']):.2f}",
        f"var/d_k {float(shown['var_over_d_k']):.4f}",
        f"scaled var {float(shown['scaled_var']):.4f}",
        f"typical size √d_k = {root:.2f}",
    ]
    run = "a preview of " if ctx.preview else ""
    caption = (
        f"{run.capitalize()}{thousands(draws)} draws of s = q·k at d_k = {d_k}, "
        f"seed {int(v['seed'])}. "
        + (
            f"Divided by √{d_k} = {root:.2f}, the scores have variance "
            f"{float(shown['scaled_var']):.4f} "
            "against the N(0, 1) curve."
            if scale
            else f"Raw, they spread like √d_k: variance {float(shown['var']):.1f} against the "
            f"N(0, {d_k}) curve, about ±{2 * root:.1f} for most draws."
        )
        + (" Release the slider for the full run." if ctx.preview else "")
    )
    quotes = [
        {
            "source": "The course module measured",
            "text": "over 200,000 random draws per width, "
            "Var(qᵀk)/d_k = 0.9987, 1.0040, 1.0029 and 1.0038 for d_k = 32, 64, 128 and 256, "
            "and a scaled variance of “1.0” throughout (no seed printed).",
        },
        {
            "source": "This run measured",
            "kind": "run",
            "text": f"var/d_k = {', '.join(measured)} "
            f"over {thousands(draws)} draws, seed {int(v['seed'])}; ±2 SE is "
            f"±{2 * se_var_over_dk(d_k, draws):.4f} at d_k = {d_k}.",
        },
    ]
    tab = table(
        f"var/d_k per width, {thousands(draws)} draws (SE = √((2 + 6/d_k)/n))",
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
        alt=f"Histogram of {thousands(draws)} scores at d_k = {d_k} with the normal curve.",
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
        steps("draws", "Draws", 20_000, DRAWS, names=[thousands(d) for d in DRAWS]),
        integer("seed", "Seed", 0, 0, SEED_MAX),
        toggle("fixed", "Hold the x-axis at ±4·√1024 (±4 when scaled)", False),
        toggle(
            "reproduce",
            "Reproduce the course module (d_k = 32, 64, 128, 256; 200,000 draws)",
            False,
        ),
    ),
)


# ---------------------------------------------------------------- C2 saturation

TRIALS = [100, 200, 500, 1_000, 2_000, 5_000, 10_000]


SWEEP = POW2[4:]  # the widths of the share-against-log₂ d_k chart: 16 … 1024


def _saturation_body(v: Mapping[str, Any], d_k: int, preview: bool) -> Json:
    trials = min(int(v["trials"]), PREVIEW_TRIALS) if preview else int(v["trials"])
    return {
        "d_k": d_k,
        "keys": int(v["keys"]),
        "trials": trials,
        "threshold": float(v["threshold"]),
        "seed": int(v["seed"]),
    }


def saturation_runs(v: Mapping[str, Any], preview: bool) -> list[tuple[str, Json]]:
    """The run at the chosen d_k first; with ``sweep``, one run (same seed, trials, keys
    and threshold) per other width of SWEEP."""
    main = [("saturation", _saturation_body(v, int(v["dk"]), preview))]
    if not v.get("sweep"):
        return main
    others = [d for d in SWEEP if d != int(v["dk"])]
    return main + [("saturation", _saturation_body(v, d, preview)) for d in others]


def _sweep_chart(
    v: Mapping[str, Any], ctx: FigureContext, shares: list[tuple[int, float, float]]
) -> tuple[list[Json], Json, Json]:
    """The share saturated against log₂ d_k, unscaled and scaled: traces on x3/y3, the
    axes, and the table alternative."""
    t, thr, d_k = ctx.theme, float(v["threshold"]), int(v["dk"])
    xs = [math.log2(d) for d, _, _ in shares]
    data = []
    for n, (label, colour) in enumerate(
        (("unscaled", t.roles["k"]), ("scaled ÷ √d_k", t.roles["q"]))
    ):
        ys = [row[1 + n] for row in shares]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "x": xs,
                "y": ys,
                "name": f"share saturated, {label}",
                "line": {"color": colour, "width": 2, "dash": "solid" if n == 0 else "dash"},
                "marker": {"color": colour, "size": 7, "symbol": "circle" if n == 0 else "square"},
                "hovertext": [
                    f"d_k = {d} (log₂ d_k = {x:g}): {100 * y:.1f} % of trials saturated, {label}"
                    for (d, _, _), x, y in zip(shares, xs, ys, strict=True)
                ],
                "hoverinfo": "text",
                "xaxis": "x3",
                "yaxis": "y3",
                "showlegend": False,
            }
        )
    axes = {
        "xaxis3": charts.value_axis(
            t,
            "d_k (log₂ scale)",
            [xs[0] - 0.3, xs[-1] + 0.3],
            anchor="y3",
            tickmode="array",
            tickvals=xs,
            ticktext=[str(d) for d, _, _ in shares],
        ),
        "yaxis3": charts.value_axis(
            t,
            "share saturated",
            [0, 1.05],
            domain=[0, 0.26],
            anchor="x3",
            tickformat=".0%",
        ),
    }
    marker = {
        "type": "line",
        "xref": "x3",
        "yref": "y3 domain",
        "x0": math.log2(d_k),
        "x1": math.log2(d_k),
        "y0": 0,
        "y1": 1,
        "line": {"color": t.fg, "dash": "dot", "width": 1},
    }
    axes["marker"] = marker
    tab = table(
        f"Share of trials with p_max > {thr:g}, against d_k",
        ["log₂ d_k", "unscaled", "scaled"],
        [f"d_k = {d}" for d, _, _ in shares],
        [
            [f"{x:g}", f"{100 * a:.1f} %", f"{100 * b:.1f} %"]
            for (_, a, b), x in zip(shares, xs, strict=True)
        ],
    )
    return data, axes, tab


def _side_text(side: Json) -> str:
    g = side["mean_saturated_p_one_minus_p"]
    grad = "none saturated" if g is None else f"mean p(1 − p) over them {g:.4f}"
    return (
        f"{100 * float(side['saturated_fraction']):.1f} % saturated, mean p_max "
        f"{float(side['mean_p_max']):.3f}, {grad}"
    )


def build_saturation(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    (name, body), *_ = saturation_runs(v, ctx.preview)
    res = ctx.run["experiment"](name, body)
    thr, trials = float(v["threshold"]), int(body["trials"])
    data = []
    for n, (key, label, colour) in enumerate(
        (("unscaled", "unscaled", t.roles["k"]), ("scaled", "scaled ÷ √d_k", t.roles["q"]))
    ):
        hist = res[key]["p_max_histogram"]
        edges = np.asarray(hist["edges"], dtype=np.float64)
        counts = np.asarray(hist["counts"], dtype=np.float64)
        hover = [
            f"{label}: p_max in [{a:.2f}, {b:.2f}): {int(c)} trials"
            for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)
        ]
        bars = charts.histogram_bars(edges.tolist(), counts.tolist(), colour, label, hover)
        bars.update(xaxis="x" if n == 0 else "x2", yaxis="y" if n == 0 else "y2")
        data.append(bars)
    shapes = [
        {
            "type": "line",
            "xref": x,
            "yref": f"{y} domain",
            "x0": thr,
            "x1": thr,
            "y0": 0,
            "y1": 1,
            "line": {"color": t.fg, "dash": "dash", "width": 2},
        }
        for x, y in (("x", "y"), ("x2", "y2"))
    ]
    notes = [
        {
            "text": title,
            "x": 0,
            "y": 1.0,
            "xref": f"{x} domain",
            "yref": f"{y} domain",
            "showarrow": False,
            "xanchor": "left",
            "yanchor": "bottom",
            "font": {"color": t.fg},
        }
        for title, x, y in (
            ("unscaled: softmax(s)", "x", "y"),
            ("scaled: softmax(s/√d_k)", "x2", "y2"),
        )
    ]
    shares: list[tuple[int, float, float]] = []
    if v.get("sweep"):
        for d in SWEEP:
            r = (
                res
                if d == int(v["dk"])
                else ctx.run["experiment"]("saturation", _saturation_body(v, d, ctx.preview))
            )
            shares.append(
                (d, float(r["unscaled"]["saturated_fraction"]),
                 float(r["scaled"]["saturated_fraction"]))
            )  # fmt: skip
    # Without the sweep: two histograms; with it, a third panel below them.
    top, middle = ([0.58, 0.94], [0, 0.36]) if not shares else ([0.77, 0.97], [0.43, 0.63])
    extra: Json = {}
    sweep_tab = None
    if shares:
        sweep_data, axes, sweep_tab = _sweep_chart(v, ctx, shares)
        data += sweep_data
        shapes.append(axes.pop("marker"))
        extra = axes
        notes.append(
            {
                "text": "share saturated (dashed: scaled)",
                "x": 0,
                "y": 1.0,
                "xref": "x3 domain",
                "yref": "y3 domain",
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "bottom",
                "font": {"color": t.fg},
            }
        )
    layout = charts.layout(
        t,
        700 if shares else 440,
        charts.value_axis(t, "", [0, 1], anchor="y", matches="x2", showticklabels=True),
        charts.value_axis(t, "trials", None, domain=top, rangemode="tozero", anchor="x"),
        xaxis2=charts.value_axis(t, "largest weight p_max", [0, 1], anchor="y2"),
        yaxis2=charts.value_axis(t, "trials", None, domain=middle, rangemode="tozero", anchor="x2"),
        shapes=shapes,
        annotations=notes,
        bargap=0,
        **extra,
    )
    u, s = res["unscaled"], res["scaled"]
    caption = (
        f"{thousands(trials)} trials at d_k = {int(v['dk'])} with {int(v['keys'])} keys: "
        f"unscaled, {100 * float(u['saturated_fraction']):.1f} % of the trials put more "
        f"than {thr:g} on one key; scaled, {100 * float(s['saturated_fraction']):.1f} %."
        + (" A preview; release the slider for the full run." if ctx.preview else "")
    )
    if shares:
        first, last = shares[0], shares[-1]
        caption += (
            f" Across d_k = {first[0]} … {last[0]} (same seed), the unscaled share goes from "
            f"{100 * first[1]:.1f} % to {100 * last[1]:.1f} %; the scaled share is at most "
            f"{100 * max(r[2] for r in shares):.1f} %."
        )
    rows = ["unscaled", "scaled"]
    cells = []
    for side in (u, s):
        g = side["mean_saturated_p_one_minus_p"]
        cells.append(
            [
                f"{100 * float(side['saturated_fraction']):.1f} %",
                f"{float(side['mean_p_max']):.4f}",
                "none saturated" if g is None else f"{g:.4f}",
            ]
        )
    quotes = [
        {
            "source": "The course module measured",
            "text": "over 500 random trials at d_k = 128 "
            "with 64 keys, 35 % of the unscaled trials push p_max above 0.99; scaled, 0 %. In the "
            "saturated trials p_max(1 − p_max) = 0.0020 (a mean).",
        },
        {
            "source": "This run measured",
            "kind": "run",
            "text": f"unscaled: {_side_text(u)}; "
            f"scaled: {_side_text(s)} ({thousands(trials)} trials, seed {int(v['seed'])}).",
        },
    ]
    return lab_figure(
        SATURATION,
        caption=caption,
        plot={"data": data, "layout": layout},
        alt="Histograms of the largest weight per trial, unscaled above and scaled below"
        + (
            "; below them, the share of saturated trials against log₂ d_k, unscaled and scaled."
            if shares
            else "."
        ),
        tables=[
            table(
                f"Saturation at p_max > {thr:g}",
                ["saturated", "mean p_max", "mean p(1 − p), saturated"],
                rows,
                cells,
            ),
            *([sweep_tab] if sweep_tab else []),
        ],
        readout=[f"unscaled: {_side_text(u)}", f"scaled: {_side_text(s)}"],
        quotes=quotes,
        run={"trials": trials, "preview": ctx.preview},
    )


SATURATION = LabFigure(
    name="saturation",
    entry="C2",
    title="Saturation: how often does softmax go one-hot?",
    intro="Each trial draws one query and some keys, then takes the softmax of the same "
    "scores unscaled and scaled. A trial is saturated when its largest weight passes the "
    "threshold.",
    teaching="Unscaled, a large share of rows go nearly one-hot at realistic widths, and "
    "their tiny p(1 − p) stalls learning. Scaled, the saturation disappears.",
    build=build_saturation,
    experiment="saturation",
    runs=saturation_runs,
    controls=(
        steps("dk", "d_k", 128, POW2[4:], drag_preview=True),
        steps("keys", "Keys", 64, POW2[1:10]),
        steps("trials", "Trials", 500, TRIALS, names=[thousands(x) for x in TRIALS]),
        number("threshold", "Threshold", 0.99, 0.5, 0.999, 0.001),
        integer("seed", "Seed", 0, 0, SEED_MAX),
        toggle("sweep", "Chart the share saturated against log₂ d_k (a run per width)", True),
    ),
)
