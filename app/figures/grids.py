"""Figure 7: one grid, three stages: raw scores Q Kᵀ → scaled (÷ the real divisor) → weights.

Same L_Q × L_K shape throughout. Blocked cells are gaps (z null) printed −∞ in the middle
grid and 0 in the weights grid.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import Json, annotation, axis, base_layout, heatmap, symmetric_range
from app.figures.weights import grid_height

DOMAINS = ([0.0, 0.27], [0.365, 0.635], [0.73, 1.0])


def _axes(c: Ctx) -> Json:
    t = c.t
    axes: Json = {}
    for n, dom in enumerate(DOMAINS, start=1):
        sfx = "" if n == 1 else str(n)
        x = axis(t, c.key_tokens, side="top")
        x.update(domain=dom, anchor=f"y{sfx}")
        y = axis(t, c.tokens if n == 1 else [""] * c.l_q, reverse=True)
        y.update(anchor=f"x{sfx}")
        if n > 1:
            y["matches"] = "y"
        axes[f"xaxis{sfx}"] = x
        axes[f"yaxis{sfx}"] = y
    return axes


def scale_phrase(c: Ctx) -> str:
    """'÷ 2' or '÷ 1 (scaling off)': the arrow label between the first two grids."""
    if not c.stages.scale:
        return "÷ 1 (scaling off)"
    return f"÷ {c.divisor_text}"


def build(c: Ctx) -> dict[str, Any]:
    t, h = c.t, c.h
    raw_r = symmetric_range(h.scores)
    scaled_r = symmetric_range(h.scaled)
    traces = [
        heatmap(
            h.scores,
            c.scores_text,
            c.scores_deriv,
            t.scales["scores"],
            zmin=-raw_r,
            zmax=raw_r,
            name="QKᵀ",
        ),
        heatmap(
            c.masked_z(),
            c.masked_text,
            c.scaled_deriv,
            t.scales["scores"],
            zmin=-scaled_r,
            zmax=scaled_r,
            xaxis="x2",
            yaxis="y2",
            name="scaled",
        ),
        c.weights_heatmap("x3", "y3"),
    ]
    step = scale_phrase(c)
    titles = [
        "Q Kᵀ (raw scores)",
        f"{step}{' and mask' if c.masked_any else ''}",
        "softmax per row → A",
    ]
    anns = [
        annotation(f"<b>{text}</b>", (d[0] + d[1]) / 2, 1.0, t, yanchor="bottom", yshift=28)
        for text, d in zip(titles, DOMAINS, strict=True)
    ]
    anns += [
        annotation(label, x, 0.5, t, font={"size": 14, "color": t.fg})
        for label, x in ((f"÷ {fmt.num(c.h.divisor)}<br>→", 0.3175), ("softmax<br>→", 0.6825))
    ]
    layout = base_layout(t, grid_height(c.l_q, lo=260), "", annotations=anns, **_axes(c))
    layout["margin"].update(t=80, l=70)
    shape = f"{c.l_q} × {c.l_k}"
    if c.stages.scale:
        why = f"divided by √d_k = √{c.d_k} = {fmt.num(h.divisor)}"
        if "≈" in c.divisor_text:
            why = f"divided by √d_k = √{c.d_k} ≈ {h.divisor:.3f}"
    else:
        why = "left as they are (scaling is off, so the divisor is 1)"
    caption = (
        f"The same {shape} grid at three stages{c.head_note}. Raw dot products q·k are {why}, "
        f"then each row goes through softmax so it sums to 1."
    )
    if c.masked_any:
        caption += (
            f" Cells blocked by {c.mask_why} become −∞ before the softmax and exactly 0 after."
        )
    f = c.focus
    readout = [
        f"Row {f + 1} ({c.focus_token}): raw {fmt.listing(c.scores_text[f])} → scaled "
        f"{fmt.listing(c.masked_text[f])} → weights {fmt.listing(c.weights_text[f])}."
    ]
    return figure(
        7,
        f"One grid, three stages{c.head_note}",
        caption,
        f"Three {shape} heatmaps side by side: raw scores, scores {step}, and the weights.",
        traces,
        layout,
        readout=readout,
        tables=[
            table("Q Kᵀ: raw scores", c.key_tokens, c.tokens, c.scores_text),
            table(f"Scaled scores ({step})", c.key_tokens, c.tokens, c.masked_text),
            table("A: weights", c.key_tokens, c.tokens, c.weights_text),
        ],
        derivations={"0": c.scores_deriv, "1": c.scaled_deriv, "2": c.weights_deriv},
    )
