"""G2, parameter counts of one layer (W_Q, W_K, W_V, W^O), independent of N. PURE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.figures import fmt
from app.figures.labs import charts
from app.figures.labs.base import FigureContext, Json, LabFigure, lab_figure, table
from app.figures.labs.controls import integer, steps, toggle
from app.figures.labs.cost.common import BASE, HEADS
from app.figures.labs.parts import chart
from app.figures.labs.words import source_of
from app.labs import cost


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
        ["embedding", "vocab·d", fmt.count(p.embedding)],
        ["attention", "4·d²" + (" + 4·d" if b else ""), fmt.count(p.attention)],
        ["feed-forward", "2·d·d_ff" + (" + d_ff + d" if b else ""), fmt.count(p.ffn)],
        ["LayerNorm ×2", "2·2·d" if b else "not counted (biases off)", fmt.count(p.layer_norm)],
        [
            "per layer",
            "attention + feed-forward" + (" + LayerNorm" if b else ""),
            fmt.count(p.per_layer),
        ],
        ["total", f"embedding + {cfg.layers}·per layer", fmt.count(p.total)],
    ]
    labels = ["attention", "feed-forward"]
    vals = [p.attention, p.ffn]
    bars, layout = charts.count_bars(
        t,
        labels,
        vals,
        [f"{fmt.derived(x / 1e6, 2)} M" for x in vals],
        [
            f"{lab}: {fmt.count(x)} parameters per layer"
            for lab, x in zip(labels, vals, strict=True)
        ],
        t.roles["v"],
        "parameters per layer",
    )
    ratio = p.ffn / p.attention
    return lab_figure(
        PARAMS,
        caption=f"Per layer the feed-forward block holds {fmt.count(p.ffn)} parameters against "
        f"attention's {fmt.count(p.attention)} ({fmt.derived(ratio, 2)}×). h = {cfg.heads} "
        f"changes neither. "
        f"Convention: biases and the two LayerNorms count only with biases on; the embedding "
        "counts once.",
        alt=f"Bars: attention {fmt.count(p.attention)}, feed-forward {fmt.count(p.ffn)} "
        f"parameters per "
        "layer.",
        plot=chart([bars], layout),
        tables=[
            table("Parameters", ["formula", "count"], [r[0] for r in rows], [r[1:] for r in rows])
        ],
        table_view=True,
        readout=[f"total {fmt.derived(p.total / 1e6, 2)} million parameters"],
        quotes=[
            {
                **source_of("textbook"),
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
    numpy="params",
    controls=(
        integer("vocab", "Vocabulary size", BASE.vocab, 1000, 100_000),
        steps("d_model", "d_model", BASE.d_model, (64, 128, 256, 512, 1024)),
        integer("layers", "Layers", BASE.layers, 1, 24),
        steps("heads", "Heads h", BASE.heads, HEADS),
        steps("d_ff", "d_ff", BASE.d_ff, tuple(2**k for k in range(7, 14))),
        toggle("biases", "Count biases and LayerNorms", False),
    ),
)
