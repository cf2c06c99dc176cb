"""Lab `cost` (LABS.md §9, entries G1–G3): FLOPs of one attention layer and the crossover
N = 2·d_model, parameter counts, and what the sequence length costs.

PURE. Every count comes from ``app.labs.cost`` (exact Python integers, the same function
as ``POST /api/v1/cost``); this module only lays them out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import integer, steps, toggle
from app.figures.labs.labs2_common import chart, count
from app.labs import cost, lab_scripts

BASE = cost.Config()
POWERS = tuple(2**k for k in range(17))  # 1 … 65,536
HEADS = (1, 2, 4, 8, 16, 32, 64)  # powers of two: each divides every d_model offered
TERMS = (
    ("projections", "projections 3·N·d²"),
    ("scores", "scores N²·d"),
    ("weighted_sum", "weighted sum N²·d"),
    ("output_projection", "output projection N·d²"),
)


def _bytes(n: int) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit} ({count(n)} bytes)"
    return f"{count(n)} bytes"


def _short(n: float) -> str:
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:g}"


# ---------------------------------------------------------------- G1 FLOPs


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
            "hovertemplate": f"{label}: {count(getattr(f, key) * factor)}<extra></extra>",
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
            "linear 4·N·d²",
            xaxis="x2",
            yaxis="y2",
            hover=[f"N = {count(x)}: 4·N·d² = {count(y)}" for x, y in zip(ns, linear, strict=True)],
        ),
        charts.line(
            ns,
            quadratic,
            t.roles["k"],
            "quadratic 2·N²·d",
            xaxis="x2",
            yaxis="y2",
            hover=[
                f"N = {count(x)}: 2·N²·d = {count(y)}" for x, y in zip(ns, quadratic, strict=True)
            ],
        ),
        {
            "type": "scatter",
            "mode": "markers+text",
            "x": [cross],
            "y": [factor * 4 * cross * d * d],
            "xaxis": "x2",
            "yaxis": "y2",
            "name": f"crossover N = 2·d_model = {count(cross)}",
            "text": ["crossover"],
            "textposition": "top left",
            "textfont": {"color": t.fg},
            "marker": {"size": 12, "color": t.fg, "symbol": "x"},
            "hovertemplate": f"crossover at N = {count(cross)}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [n, n],
            "y": [factor * here.linear, factor * here.quadratic],
            "xaxis": "x2",
            "yaxis": "y2",
            "name": f"current N = {count(n)}",
            "marker": {"size": 10, "color": t.roles["weights"]},
            "hovertemplate": f"N = {count(n)}: %{{y:,}}<extra></extra>",
        },
    ]


def build_flops(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    n, d, h = int(v["n"]), int(v["d_model"]), int(v["heads"])
    c = cost.cost(cost.Config(n=n, d_model=d, heads=h))
    factor = 2 if v["x2"] else 1
    f = c.flops
    unit = "FLOPs (multiply and add counted apart)" if factor == 2 else "multiply-adds"
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
    wins = (
        "the quadratic terms"
        if f.quadratic > f.linear
        else ("neither (a tie)" if f.quadratic == f.linear else "the linear projections")
    )
    caption = (
        f"At N = {count(n)} and d_model = {count(d)} one attention layer costs "
        f"{count(f.total * factor)} {unit}: linear {count(f.linear * factor)}, quadratic "
        f"{count(f.quadratic * factor)}. {wins[0].upper() + wins[1:]} dominate"
        f"{'s' if wins.startswith('neither') else ''}; the crossover is N = 2·d_model = "
        f"{count(c.crossover_n)}. h = {h} gives d_k = {c.heads.d_k} and changes no term."
    )
    rows = [
        [label.split(" ", 1)[1] if " " in label else label, count(getattr(f, key) * factor)]
        for key, label in TERMS
    ]
    rows += [
        ["linear 4·N·d²", count(f.linear * factor)],
        ["quadratic 2·N²·d", count(f.quadratic * factor)],
        ["total", count(f.total * factor)],
    ]
    return lab_figure(
        FLOPS,
        caption=caption,
        alt=f"A stacked bar of the four terms and a log-log chart of 4·N·d² and 2·N²·d against "
        f"N, crossing at N = {count(c.crossover_n)}.",
        plot=chart(_stacked(f, factor, t) + _log_log(n, d, factor, t), layout),
        readout=[
            f"d_k = d_model / h = {c.heads.d_k}",
            f"crossover N = {count(c.crossover_n)}",
            f"total {_short(f.total * factor)} {unit}",
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
                "source": "the course module",
                "text": "“the second wins when 2N²d_model > 4N d_model², that is, N > 2d_model.”",
            }
        ],
    )


def _config(**sizes: Any) -> dict[str, Any]:
    """The base model's sizes with ``sizes`` changed, as the keyword arguments of the
    script's ``cost`` (the body of POST /api/v1/cost)."""
    return {**dataclasses.asdict(BASE), **sizes}


FLOPS = LabFigure(
    name="flops",
    entry="G1",
    title="FLOPs and the crossover N = 2·d_model",
    intro="The multiply-adds of one multi-head attention layer, term by term. Slide N and "
    "d_model and watch which part dominates.",
    teaching="The projections, linear in N, dominate short sequences. Past N = 2·d_model, "
    "the quadratic scores and weighted sum take over.",
    build=build_flops,
    numpy=lambda v, ctx: lab_scripts.cost(
        "G1",
        "flops",
        [_config(n=int(v["n"]), d_model=int(v["d_model"]), heads=int(v["heads"]))],
        "N, d_model and h of the figure; the rest the base model's",
    ),
    badges=("reconstructed",),
    controls=(
        steps("n", "Sequence length N", BASE.n, POWERS),
        steps("d_model", "d_model", BASE.d_model, tuple(2**k for k in range(6, 14))),
        steps("heads", "Heads h", BASE.heads, HEADS),
        toggle("x2", "Count multiply and add separately (×2)", False),
    ),
)


# ---------------------------------------------------------------- G2 parameters


def build_params(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    cfg = cost.Config(
        n=BASE.n,
        d_model=int(v["d_model"]),
        heads=int(v["heads"]),
        d_ff=int(v["d_ff"]),
        vocab=int(v["vocab"]),
        layers=int(v["layers"]),
        biases=bool(v["biases"]),
    )
    p = cost.cost(cfg).params
    b = cfg.biases
    rows = [
        ["embedding", "vocab·d", count(p.embedding)],
        ["attention", "4·d²" + (" + 4·d" if b else ""), count(p.attention)],
        ["feed-forward", "2·d·d_ff" + (" + d_ff + d" if b else ""), count(p.ffn)],
        ["LayerNorm ×2", "2·2·d" if b else "not counted (biases off)", count(p.layer_norm)],
        [
            "per layer",
            "attention + feed-forward" + (" + LayerNorm" if b else ""),
            count(p.per_layer),
        ],
        ["total", f"embedding + {cfg.layers}·per layer", count(p.total)],
    ]
    labels = ["attention", "feed-forward"]
    vals = [p.attention, p.ffn]
    bars, layout = charts.count_bars(
        t,
        labels,
        vals,
        [f"{x / 1e6:.2f} M" for x in vals],
        [f"{lab}: {count(x)} parameters per layer" for lab, x in zip(labels, vals, strict=True)],
        t.roles["v"],
        "parameters per layer",
    )
    ratio = p.ffn / p.attention
    return lab_figure(
        PARAMS,
        caption=f"Per layer the feed-forward block holds {count(p.ffn)} parameters against "
        f"attention's {count(p.attention)} ({ratio:.2f}×). h = {cfg.heads} changes neither. "
        f"Convention: biases and the two LayerNorms count only with biases on; the embedding "
        "counts once.",
        alt=f"Bars: attention {count(p.attention)}, feed-forward {count(p.ffn)} parameters per "
        "layer.",
        plot=chart([bars], layout),
        tables=[
            table("Parameters", ["formula", "count"], [r[0] for r in rows], [r[1:] for r in rows])
        ],
        table_view=True,
        readout=[f"total {p.total / 1e6:.2f} million parameters"],
        quotes=[
            {
                "source": "the textbook chapter",
                "text": "the feed-forward block “is the "
                "larger one at 2.1 million against 1.0 million”.",
            }
        ],
    )


PARAMS = LabFigure(
    name="params",
    entry="G2",
    title="Parameter counts",
    intro="The original base model by default: vocabulary 50,000, d_model 512, 6 layers, "
    "h = 8, d_ff 2048.",
    teaching="Per layer, the feed-forward block outweighs attention, and h does not change "
    "the count.",
    build=build_params,
    numpy=lambda v, ctx: lab_scripts.cost(
        "G2",
        "params",
        [
            _config(
                **{k: int(v[k]) for k in ("d_model", "heads", "d_ff", "vocab", "layers")},
                biases=bool(v["biases"]),
            )
        ],
        "the figure's sizes",
    ),
    controls=(
        integer("vocab", "Vocabulary size", BASE.vocab, 1000, 100_000),
        steps("d_model", "d_model", BASE.d_model, (64, 128, 256, 512, 1024)),
        integer("layers", "Layers", BASE.layers, 1, 24),
        steps("heads", "Heads h", BASE.heads, HEADS),
        steps("d_ff", "d_ff", BASE.d_ff, tuple(2**k for k in range(7, 14))),
        toggle("biases", "Count biases and LayerNorms", False),
    ),
)


# ---------------------------------------------------------------- G3 growth


def build_growth(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    t = ctx.theme
    n = int(v["n"])
    sizes = [n, 4 * n] if v["x4"] else [n]
    runs = [cost.cost(cost.Config(n=s)) for s in sizes]
    scale = BASE.heads * BASE.layers if v["all"] else 1
    where = f"× h = {BASE.heads} × {BASE.layers} layers" if v["all"] else "one head, one layer"
    rows = [
        [count(c.score_cells), _bytes(c.memory.score_table_bytes * scale), count(c.flops.quadratic)]
        for c in runs
    ]
    labels = [f"N = {count(s)}" for s in sizes]
    cells = [c.score_cells for c in runs]
    bars, layout = charts.count_bars(
        t,
        labels,
        cells,
        [count(x) for x in cells],
        [f"{lab}: {count(x)} score cells" for lab, x in zip(labels, cells, strict=True)],
        t.roles["scores"],
        "score cells N²",
    )
    readout = [
        f"score table: {count(runs[0].score_cells)} cells",
        f"float32 memory ({where}): {_bytes(runs[0].memory.score_table_bytes * scale)}",
        f"quadratic FLOPs 2·N²·d_model: {count(runs[0].flops.quadratic)}",
    ]
    caption = f"The score table is N × N = {count(n)}² = {count(runs[0].score_cells)} cells."
    if v["x4"]:
        ratio = runs[1].score_cells // runs[0].score_cells
        qratio = runs[1].flops.quadratic // runs[0].flops.quadratic
        caption += (
            f" Four times the context, N = {count(4 * n)}, means ×{ratio} the cells "
            f"and ×{qratio} the quadratic work."
        )
        readout.append(f"after ×4: cells ×{ratio}, memory ×{ratio}, quadratic FLOPs ×{qratio}")
    return lab_figure(
        GROWTH,
        caption=caption,
        alt="Bars of the score cells at N" + (" and 4·N" if v["x4"] else "") + ".",
        plot=chart([bars], layout),
        readout=readout,
        tables=[
            table(
                f"What N costs (d_model = {BASE.d_model}; memory {where})",
                ["score cells N²", "float32 memory", "quadratic FLOPs"],
                labels,
                rows,
            )
        ],
        table_view=True,
        quotes=[
            {
                "source": "the textbook chapter",
                "text": "“Quadruple the context and the attention cost rises sixteen-fold.”",
            }
        ],
    )


GROWTH = LabFigure(
    name="growth",
    entry="G3",
    title="O(n²): what the sequence length costs",
    intro="Every query scores every key, so one head's score table has N × N cells.",
    teaching="The score table is n × n. Four times the context means sixteen times the cells "
    "and the quadratic work.",
    build=build_growth,
    numpy=lambda v, ctx: lab_scripts.cost(
        "G3",
        "growth",
        [_config(n=s) for s in ([int(v["n"]), 4 * int(v["n"])] if v["x4"] else [int(v["n"])])],
        "N (and 4 N with x4); all tables = score_table_bytes x h x layers",
    ),
    controls=(
        steps("n", "Sequence length N", 512, tuple(2**k for k in range(7, 18))),
        toggle("x4", "×4: compare with four times the context", False),
        toggle("all", f"Memory for every head and layer (× {BASE.heads} × {BASE.layers})", False),
    ),
)

FIGURES = (FLOPS, PARAMS, GROWTH)
