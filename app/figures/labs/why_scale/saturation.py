"""C2, saturation: raw scores grow like √d_k, the softmax saturates and its gradient
term vanishes; scaled scores do not. Seeded runs through ``ctx.run["experiment"]``. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import integer, number, steps, toggle
from app.figures.labs.why_scale.common import POW2, PREVIEW_TRIALS, SEED_MAX
from app.figures.labs.why_scale.saturation_chart import side_text, sweep_chart
from app.figures.labs.words import source_of

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


def _note(text: str, x: str, y: str, t: Any) -> Json:
    """A panel's title, above its top-left corner."""
    return {
        "text": text,
        "x": 0,
        "y": 1.0,
        "xref": f"{x} domain",
        "yref": f"{y} domain",
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
        "font": {"color": t.fg},
    }


def _histograms(res: Json, t: Any, thr: float) -> tuple[list[Json], list[Json], list[Json]]:
    """The two histograms of p_max (unscaled above, scaled below), the threshold lines
    and the panels' titles."""
    data = []
    for n, (key, label, colour) in enumerate(
        (("unscaled", "unscaled", t.roles["k"]), ("scaled", "scaled ÷ √d_k", t.roles["q"]))
    ):
        hist = res[key]["p_max_histogram"]
        edges = np.asarray(hist["edges"], dtype=np.float64)
        counts = np.asarray(hist["counts"], dtype=np.float64)
        hover = [
            f"{label}: p_max in [{fmt.derived(a, 2)}, {fmt.derived(b, 2)}): {int(c)} trials"
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
        _note("unscaled: softmax(s)", "x", "y", t),
        _note("scaled: softmax(s/√d_k)", "x2", "y2", t),
    ]
    return data, shapes, notes


def _shares(v: Mapping[str, Any], ctx: FigureContext, res: Json) -> list[tuple[int, float, float]]:
    """(d_k, unscaled share, scaled share) saturated per width of SWEEP (with ``sweep``)."""
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
    return shares


def _caption(v: Mapping[str, Any], res: Json, trials: int, shares: list[Any], preview: bool) -> str:
    u, s, thr = res["unscaled"], res["scaled"], float(v["threshold"])
    caption = (
        f"{fmt.count(trials)} trials at d_k = {int(v['dk'])} with {int(v['keys'])} keys: "
        f"unscaled, {fmt.percent(float(u['saturated_fraction']), 1)} of the trials put more "
        f"than {fmt.significant(thr)} on one key; scaled, "
        f"{fmt.percent(float(s['saturated_fraction']), 1)}."
        + (" A preview; release the slider for the full run." if preview else "")
    )
    if shares:
        first, last = shares[0], shares[-1]
        caption += (
            f" Across d_k = {first[0]} … {last[0]} (same seed), the unscaled share goes from "
            f"{fmt.percent(first[1], 1)} to {fmt.percent(last[1], 1)}; the scaled share is at most "
            f"{fmt.percent(max(r[2] for r in shares), 1)}."
        )
    return caption


def _cells(res: Json) -> list[list[str]]:
    """The table's rows, unscaled then scaled."""
    cells = []
    for side in (res["unscaled"], res["scaled"]):
        g = side["mean_saturated_p_one_minus_p"]
        cells.append(
            [
                f"{fmt.percent(float(side['saturated_fraction']), 1)}",
                f"{fmt.weight(float(side['mean_p_max']), 4)}",
                "none saturated" if g is None else fmt.derived(g, 4),
            ]
        )
    return cells


def _quotes(res: Json, trials: int, seed: int) -> list[Json]:
    return [
        {
            **source_of("course-module", "measured"),
            "text": "over 500 random trials at d_k = 128 "
            "with 64 keys, 35 % of the unscaled trials push p_max above 0.99; scaled, 0 %. In the "
            "saturated trials p_max(1 − p_max) = 0.0020 (a mean).",
        },
        {
            "source": "This run measured",
            "kind": "run",
            "text": f"unscaled: {side_text(res['unscaled'])}; "
            f"scaled: {side_text(res['scaled'])} ({fmt.count(trials)} trials, seed {seed}).",
        },
    ]


def _plot(
    v: Mapping[str, Any], ctx: FigureContext, res: Json, shares: list[Any]
) -> tuple[Json, Any]:
    """The chart (histograms, and the sweep panel below them with ``sweep``) and the
    sweep's table (None without it)."""
    t = ctx.theme
    data, shapes, notes = _histograms(res, t, float(v["threshold"]))
    # Without the sweep: two histograms; with it, a third panel below them.
    top, middle = ([0.58, 0.94], [0, 0.36]) if not shares else ([0.77, 0.97], [0.43, 0.63])
    extra: Json = {}
    sweep_tab = None
    if shares:
        sweep_data, axes, sweep_tab = sweep_chart(v, ctx, shares)
        data += sweep_data
        shapes.append(axes.pop("marker"))
        extra = axes
        notes.append(_note("share saturated (dashed: scaled)", "x3", "y3", t))
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
    return {"data": data, "layout": layout}, sweep_tab


def build_saturation(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    (name, body), *_ = saturation_runs(v, ctx.preview)
    res = ctx.run["experiment"](name, body)
    thr, trials = float(v["threshold"]), int(body["trials"])
    shares = _shares(v, ctx, res)
    plot, sweep_tab = _plot(v, ctx, res, shares)
    u, s = res["unscaled"], res["scaled"]
    return lab_figure(
        SATURATION,
        caption=_caption(v, res, trials, shares, ctx.preview),
        plot=plot,
        alt="Histograms of the largest weight per trial, unscaled above and scaled below"
        + (
            "; below them, the share of saturated trials against log₂ d_k, unscaled and scaled."
            if shares
            else "."
        ),
        tables=[
            table(
                f"Saturation at p_max > {fmt.significant(thr)}",
                ["saturated", "mean p_max", "mean p(1 − p), saturated"],
                ["unscaled", "scaled"],
                _cells(res),
            ),
            *([sweep_tab] if sweep_tab else []),
        ],
        readout=[f"unscaled: {side_text(u)}", f"scaled: {side_text(s)}"],
        quotes=_quotes(res, trials, int(v["seed"])),
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
        steps("trials", "Trials", 500, TRIALS, names=[fmt.count(x) for x in TRIALS]),
        number("threshold", "Threshold", 0.99, 0.5, 0.999, 0.001),
        integer("seed", "Seed", 0, 0, SEED_MAX),
        toggle("sweep", "Chart the share saturated against log₂ d_k (a run per width)", True),
    ),
)
