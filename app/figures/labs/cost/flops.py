"""G1, FLOPs of one attention layer against N, the crossover N = 2·d_model, as stacked
terms and a log-log chart. PURE: the counts are ``app.labs.cost``'s exact integers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import steps, toggle
from app.figures.labs.cost.common import BASE, HEADS, POWERS, TERMS, short_number
from app.figures.labs.parts import chart
from app.figures.labs.words import source_of
from app.labs import cost


def _stacked(f: cost.Flops, factor: int, t: Any) -> list[Json]:
    colours = [t.roles["q"], t.roles["scores"], t.roles["weights"], t.roles["z"]]
    return [
        {
            "type": "bar",
            "orientation": "h",
            "name": label,
            "y": ["one layer"],
            "x": [getattr(f, key) * factor],
            "marker": {"color": colour},
            "xaxis": "x",
            "yaxis": "y",
            "hovertemplate": f"{label}: {fmt.count(getattr(f, key) * factor)}<extra></extra>",
        }
        for (key, label), colour in zip(TERMS, colours, strict=True)
    ]


def _log_log(n: int, d: int, factor: int, t: Any) -> list[Json]:
    ns = [2**k for k in range(0, 18)]
    linear = [factor * 4 * x * d * d for x in ns]
    quadratic = [factor * 2 * x * x * d for x in ns]
    here = cost.flops(n, d)
    cross = 2 * d
    return [
        charts.line(
            ns,
            linear,
            t.roles["q"],
            "linear 4·N·d_model²",
            xaxis="x2",
            yaxis="y2",
            hover=[
                f"N = {fmt.count(x)}: 4·N·d_model² = {fmt.count(y)}"
                for x, y in zip(ns, linear, strict=True)
            ],
        ),
        charts.line(
            ns,
            quadratic,
            t.roles["k"],
            "quadratic 2·N²·d_model",
            xaxis="x2",
            yaxis="y2",
            hover=[
                f"N = {fmt.count(x)}: 2·N²·d_model = {fmt.count(y)}"
                for x, y in zip(ns, quadratic, strict=True)
            ],
        ),
        {
            "type": "scatter",
            "mode": "markers+text",
            "x": [cross],
            "y": [factor * 4 * cross * d * d],
            "xaxis": "x2",
            "yaxis": "y2",
            "name": f"crossover N = 2·d_model = {fmt.count(cross)}",
            "text": ["crossover"],
            "textposition": "top left",
            "textfont": {"color": t.fg},
            "marker": {"size": 12, "color": t.fg, "symbol": "x"},
            "hovertemplate": f"crossover at N = {fmt.count(cross)}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [n, n],
            "y": [factor * here.linear, factor * here.quadratic],
            "xaxis": "x2",
            "yaxis": "y2",
            "name": f"current N = {fmt.count(n)}",
            "marker": {"size": 10, "color": t.roles["weights"]},
            "hovertemplate": f"N = {fmt.count(n)}: %{{y:,}}<extra></extra>",
        },
    ]


def _layout(t: Any, unit: str) -> Json:
    """The stacked bar above, the log-log chart against N below."""
    layout = charts.layout(
        t,
        520,
        charts.value_axis(t, unit, None, domain=[0, 1], anchor="y", rangemode="tozero"),
        charts.value_axis(
            t, "", None, domain=[0.8, 1], anchor="x", type="category", showticklabels=False
        ),
        xaxis2=charts.value_axis(
            t, "sequence length N (log)", None, type="log", anchor="y2", dtick=1
        ),
        yaxis2=charts.value_axis(
            t, unit + " (log)", None, type="log", domain=[0, 0.62], anchor="x2"
        ),
        barmode="stack",
        **charts.legend(t),
    )
    layout["legend"]["y"] = -0.18
    return layout


def build_flops(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    n, d, h = int(v["n"]), int(v["d_model"]), int(v["heads"])
    c = cost.cost(cost.Config(n=n, d_model=d, heads=h))
    factor = 2 if v["x2"] else 1
    f = c.flops
    unit = "FLOPs (multiply and add counted apart)" if factor == 2 else "multiply-adds"
    wins = (
        "the quadratic terms"
        if f.quadratic > f.linear
        else ("neither (a tie)" if f.quadratic == f.linear else "the linear projections")
    )
    caption = (
        f"At N = {fmt.count(n)} and d_model = {fmt.count(d)} one attention layer costs "
        f"{fmt.count(f.total * factor)} {unit}: linear {fmt.count(f.linear * factor)}, quadratic "
        f"{fmt.count(f.quadratic * factor)}. {wins[0].upper() + wins[1:]} dominate"
        f"{'s' if wins.startswith('neither') else ''}; the crossover is N = 2·d_model = "
        f"{fmt.count(c.crossover_n)}. h = {h} gives d_k = {c.heads.d_k} and changes no term."
    )
    rows = [
        [label.split(" ", 1)[1] if " " in label else label, fmt.count(getattr(f, key) * factor)]
        for key, label in TERMS
    ]
    rows += [
        ["linear 4·N·d_model²", fmt.count(f.linear * factor)],
        ["quadratic 2·N²·d_model", fmt.count(f.quadratic * factor)],
        ["total", fmt.count(f.total * factor)],
    ]
    return lab_figure(
        FLOPS,
        caption=caption,
        alt="A stacked bar of the four terms and a log-log chart of 4·N·d_model² and "
        f"2·N²·d_model against N, crossing at N = {fmt.count(c.crossover_n)}.",
        plot=chart(_stacked(f, factor, t) + _log_log(n, d, factor, t), _layout(t, unit)),
        readout=[
            f"d_k = d_model / h = {c.heads.d_k}",
            f"crossover N = {fmt.count(c.crossover_n)}",
            f"total {short_number(f.total * factor)} {unit}",
        ],
        tables=[
            table(
                f"One attention layer ({unit})",
                ["formula", "count"],
                [k for k, _ in TERMS] + ["linear", "quadratic", "total"],
                rows,
            )
        ],
        quotes=[
            {
                **source_of("course-module"),
                "text": "“the second wins when 2N²d_model > 4N d_model², that is, N > 2 d_model.”",
            }
        ],
    )


FLOPS = LabFigure(
    name="flops",
    entry="G1",
    title="FLOPs and the crossover N = 2·d_model",
    intro="The multiply-adds of one multi-head attention layer, term by term. Slide N and "
    "d_model and watch which part dominates.",
    teaching="The projections, linear in N, dominate short sequences. Past N = 2·d_model, "
    "the quadratic scores and weighted sum take over.",
    build=build_flops,
    numpy="flops",
    badges=("our reconstruction",),
    controls=(
        steps("n", "Sequence length N", BASE.n, POWERS),
        steps("d_model", "d_model", BASE.d_model, tuple(2**k for k in range(6, 14))),
        steps("heads", "Heads h", BASE.heads, HEADS),
        toggle("x2", "Count multiply and add separately (×2)", False),
    ),
)
