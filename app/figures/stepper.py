"""Figure 3: the whole computation for one focus token, as frames the page can play.

Steps: (1) X; (2) Q, K, V; (3) the score grid filling one dot product at a time in
reading order (whole rows at a time for big grids), the Q row and K row that make each
cell outlined; (4) ÷ the divisor (marked as skipped when scaling is off; blocked cells
become −∞); (5) softmax, the focus row's sum shown; (6) the focus row's weights mix the
rows of V into z(focus), one entry at a time. The figure's own data/layout is the last
frame, which the page shows when idle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import (
    Json,
    annotation,
    base_layout,
    heatmap,
    numbered,
    outline,
    small,
    subplot_axes,
    symmetric_range,
    value_range,
)
from app.figures.weights import grid_height

MAX_FILL_FRAMES = 9  # frames for step 3 (and for step 6) beyond which cells are grouped
GAP = 0.06


@dataclass
class Panel:
    title: str
    z: Any
    text: list[list[str]]
    scale: str
    xlabels: list[str]
    ylabels: list[str]
    zrange: tuple[float | None, float | None] = (None, None)
    hover: list[list[str]] | None = None
    zmid: float | None = None


def _frame(c: Ctx, panels: list[Panel], narration: str, outlines: list[tuple[int, Json]]) -> Json:
    """One full figure: panels side by side; ``outlines`` = (panel index, rect in cells)."""
    t = c.t
    n = len(panels)
    width = (1 - GAP * (n - 1)) / n
    data: list[Json] = []
    axes: Json = {}
    anns: list[Json] = []
    for i, p in enumerate(panels):
        sfx = "" if i == 0 else str(i + 1)
        dom = [i * (width + GAP), i * (width + GAP) + width]
        axes.update(subplot_axes(t, i + 1, dom, [0.0, 0.88], p.xlabels, p.ylabels))
        lo, hi = p.zrange
        data.append(
            heatmap(
                p.z,
                p.text,
                _hover(p),
                t.scales[p.scale],
                zmin=lo,
                zmax=hi,
                zmid=p.zmid,
                xaxis=f"x{sfx}",
                yaxis=f"y{sfx}",
                name=p.title,
            )
        )
        anns.append(annotation(f"<b>{p.title}</b>", (dom[0] + dom[1]) / 2, 1.0, t))
    shapes = []
    for i, rect in outlines:
        sfx = "" if i == 0 else str(i + 1)
        shapes.append(
            outline(t, rect["x0"], rect["x1"], rect["y0"], rect["y1"], f"x{sfx}", f"y{sfx}")
        )
    rows = max(len(p.text) for p in panels)
    layout = base_layout(t, grid_height(rows, lo=240), "", annotations=anns, shapes=shapes, **axes)
    layout["margin"].update(t=40, l=60)
    return {"data": data, "layout": layout, "narration": narration}


def _hover(p: Panel) -> list[list[str]] | None:
    """Derivations in frames only where numbers are printed: frames of big grids would
    otherwise repeat megabytes of strings (the idle figure keeps them all)."""
    if not small(p.text):
        return None
    return p.hover if p.hover is not None else p.text


def _row_rect(row: int, cols: int) -> Json:
    return {"x0": -0.5, "x1": cols - 0.5, "y0": row - 0.5, "y1": row + 0.5}


def _cell_rect(row: int, col: int) -> Json:
    return {"x0": col - 0.5, "x1": col + 0.5, "y0": row - 0.5, "y1": row + 0.5}


def _matrix_panel(
    c: Ctx,
    title: str,
    m: Any,
    text: list[list[str]],
    role: str,
    rows: list[str],
    hover: list[list[str]] | None = None,
) -> Panel:
    return Panel(title, m, text, role, numbered(m.shape[1]), rows, value_range(m), hover)


def _step1(c: Ctx) -> list[Json]:
    st = c.stages
    f = c.focus
    if st.x is None:
        return []
    d_model = st.x.shape[1]
    panels = [_matrix_panel(c, "X", st.x, fmt.grid(st.x), "x", c.tokens)]
    text = (
        f"Step 1 of 6: each of the {c.l_q} tokens is a row of X with {d_model} numbers; "
        f"the focus token {c.focus_token} is row {f + 1}."
    )
    if st.cross and st.source_x is not None:
        panels.append(
            _matrix_panel(c, "S (source)", st.source_x, fmt.grid(st.source_x), "x", c.key_tokens)
        )
        text += f" The {c.l_k} source tokens are the rows of S."
    return [_frame(c, panels, text, [(0, _row_rect(f, d_model))])]


def _qkv_panels(c: Ctx) -> list[Panel]:
    h = c.h
    return [
        _matrix_panel(c, "Q", h.q, c.q_text, "q", c.tokens, c.projection_derivation("q")),
        _matrix_panel(c, "K", h.k, c.k_text, "k", c.key_tokens, c.projection_derivation("k")),
        _matrix_panel(c, "V", h.v, c.v_text, "v", c.key_tokens, c.projection_derivation("v")),
    ]


def _step2(c: Ctx) -> list[Json]:
    how = "three matrix products give" if c.stages.w_q is not None else "given directly:"
    text = (
        f"Step 2 of 6{c.head_note}: {how} Q ({c.l_q} × {c.d_k}), K ({c.l_k} × {c.d_k}) and "
        f"V ({c.l_k} × {c.d_v}). {c.projection_derivation('q')[c.focus][0]}."
    )
    return [_frame(c, _qkv_panels(c), text, [(0, _row_rect(c.focus, c.d_k))])]


def _groups(n_items: int, per_item: bool) -> list[list[int]]:
    """Indices in reading order, one per frame, or grouped into at most MAX_FILL_FRAMES."""
    if per_item:
        return [[i] for i in range(n_items)]
    size = -(-n_items // MAX_FILL_FRAMES)
    return [list(range(s, min(s + size, n_items))) for s in range(0, n_items, size)]


def _step3(c: Ctx) -> list[Json]:
    h = c.h
    r = symmetric_range(h.scores)
    cells = c.l_q * c.l_k
    per_cell = cells <= MAX_FILL_FRAMES * 3
    frames = []
    units = (
        _groups(cells, True)
        if per_cell
        else [[i * c.l_k + j for i in rows for j in range(c.l_k)] for rows in _groups(c.l_q, False)]
    )
    filled: set[int] = set()
    for unit in units:
        filled.update(unit)
        z = [
            [h.scores[i, j] if i * c.l_k + j in filled else None for j in range(c.l_k)]
            for i in range(c.l_q)
        ]
        text = [
            [c.scores_text[i][j] if i * c.l_k + j in filled else "" for j in range(c.l_k)]
            for i in range(c.l_q)
        ]
        i, j = divmod(unit[-1], c.l_k)
        grid = Panel("Q Kᵀ", z, text, "scores", c.key_tokens, c.tokens, (-r, r), None, 0.0)
        panels = (
            [
                _matrix_panel(c, "Q", h.q, c.q_text, "q", c.tokens),
                _matrix_panel(c, "K", h.k, c.k_text, "k", c.key_tokens),
                grid,
            ]
            if per_cell
            else [grid]
        )  # big grids: the filling grid alone keeps frames small
        if per_cell:
            who = f"{c.tokens[i]} with {c.key_tokens[j]}"
            say = f"Step 3 of 6: score of {who}: {c.scores_deriv[i][j]}."
            marks = [(0, _row_rect(i, c.d_k)), (1, _row_rect(j, c.d_k)), (2, _cell_rect(i, j))]
        else:
            first = unit[0] // c.l_k
            say = (
                f"Step 3 of 6: rows {first + 1}–{i + 1} of the {c.l_q} × {c.l_k} scores, each "
                f"a dot product of a Q row with every K row."
            )
            marks = [(0, {"x0": -0.5, "x1": c.l_k - 0.5, "y0": first - 0.5, "y1": i + 0.5})]
        frames.append(_frame(c, panels, say, marks))
    return frames


def _scaled_panel(c: Ctx, title: str) -> Panel:
    """The scaled (and masked) grid, as steps 4 and 5 show it: −∞ where blocked."""
    scaled = symmetric_range(c.h.scaled)
    return Panel(
        title, c.masked_z(), c.masked_text, "scores", c.key_tokens, c.tokens,
        (-scaled, scaled), c.scaled_deriv, 0.0,
    )  # fmt: skip


def _step4(c: Ctx) -> list[Json]:
    h, f = c.h, c.focus
    raw = symmetric_range(h.scores)
    title = f"÷ {c.divisor_text.split(' ≈ ')[0]}" if c.stages.scale else "÷ 1 (skipped)"
    panels = [
        Panel(
            "Q Kᵀ",
            h.scores,
            c.scores_text,
            "scores",
            c.key_tokens,
            c.tokens,
            (-raw, raw),
            c.scores_deriv,
            0.0,
        ),
        _scaled_panel(c, title),
    ]
    if c.stages.scale:
        say = (
            f"Step 4 of 6: divide every score by √d_k = √{c.d_k} "
            f"{'=' if '≈' not in c.divisor_text else '≈'} {fmt.num(h.divisor)}; "
            f"row {f + 1} becomes {fmt.listing(c.masked_text[f])}."
        )
    else:
        say = (
            "Step 4 of 6 is skipped: scaling is off, so the divisor is 1 and the scores "
            "pass unchanged."
        )
    if c.masked_any:
        say += f" Cells blocked by {c.mask_why} become −∞."
    return [_frame(c, panels, say, [(1, _row_rect(f, c.l_k))])]


def _step5(c: Ctx) -> list[Json]:
    h, f = c.h, c.focus
    panels = [
        _scaled_panel(c, "scaled"),
        Panel(
            "softmax → A",
            h.weights,
            c.weights_text,
            "weights",
            c.key_tokens,
            c.tokens,
            (0.0, 1.0),
            c.weights_deriv,
        ),
    ]
    if f in c.blocked_rows:
        say = (
            f"Step 5 of 6: softmax per row. {c.focus_token} may see no key, so its weights "
            "are all 0."
        )
    else:
        say = (
            f"Step 5 of 6: softmax turns each row into weights that sum to 1. Row {f + 1} "
            f"({c.focus_token}): {fmt.listing(c.weights_text[f])}; sum = "
            f"{fmt.weight(float(h.row_sum[f]))}."
        )
    if c.masked_any:
        say += " Blocked cells get exactly 0."
    return [_frame(c, panels, say, [(1, _row_rect(f, c.l_k))])]


def _step6(c: Ctx) -> list[Json]:
    h, f = c.h, c.focus
    frames = []
    z_lo, z_hi = value_range(h.output[f])
    shown: set[int] = set()
    per_entry = c.d_v <= MAX_FILL_FRAMES
    for unit in _groups(c.d_v, per_entry):
        shown.update(unit)
        z = [[h.output[f, j] if j in shown else None for j in range(c.d_v)]]
        text = [[c.output_text[f][j] if j in shown else "" for j in range(c.d_v)]]
        panels = [
            Panel(
                f"weights of {c.focus_token}",
                h.weights[f : f + 1],
                [c.weights_text[f]],
                "weights",
                c.key_tokens,
                [c.focus_token],
                (0.0, 1.0),
                [c.weights_deriv[f]],
            ),
            _matrix_panel(c, "V", h.v, c.v_text, "v", c.key_tokens, c.projection_derivation("v")),
            Panel(
                f"z({c.focus_token})",
                z,
                text,
                "z",
                numbered(c.d_v),
                [c.focus_token],
                (z_lo, z_hi),
                [c.output_deriv[f]],
            ),
        ]
        j = unit[-1]
        if per_entry:
            say = f"Step 6 of 6: entry {j + 1} of z({c.focus_token}): {c.output_deriv[f][j]}."
        else:
            say = (
                f"Step 6 of 6: entries {unit[0] + 1}–{j + 1} of z({c.focus_token}), each a "
                f"weighted sum of a column of V."
            )
        marks = [
            (1, {"x0": unit[0] - 0.5, "x1": j + 0.5, "y0": -0.5, "y1": c.l_k - 0.5}),
            (2, {"x0": unit[0] - 0.5, "x1": j + 0.5, "y0": -0.5, "y1": 0.5}),
        ]
        frames.append(_frame(c, panels, say, marks))
    frames[-1]["narration"] += f" Done: z({c.focus_token}) = ({fmt.listing(c.output_text[f], 8)})."
    return frames


def _lighten(frame: Json) -> None:
    """Big grids in passing frames: z to 3 decimals (it only sets the colour there; hover
    and the idle figure keep full precision), which cuts the frames' bytes by half."""
    for trace in frame["data"]:
        if "text" in trace:
            continue
        rounded = np.round(np.asarray(trace["z"], dtype=np.float64), 3).tolist()
        trace["z"] = [[None if v != v else v for v in row] for row in rounded]


def build(c: Ctx) -> dict[str, Any]:
    frames = [*_step1(c), *_step2(c), *_step3(c), *_step4(c), *_step5(c), *_step6(c)]
    for frame in frames[:-1]:
        _lighten(frame)
    last = frames[-1]
    caption = (
        f"The whole computation for {c.focus_token} (row {c.focus + 1}){c.head_note}, in "
        f"{len(frames)} frames: inputs, projections, scores, "
        + ("scaling, " if c.stages.scale else "no scaling (divisor 1), ")
        + ("masking, " if c.masked_any else "")
        + "softmax and the weighted sum of values. Play it or step through it; when idle it "
        "shows the last step."
    )
    return figure(
        3,
        f"The whole computation, played once{c.head_note}",
        caption,
        f"Step-by-step animation in {len(frames)} frames. Final frame: {last['narration']}",
        last["data"],
        last["layout"],
        readout=[last["narration"]],
        frames=frames,
        tables=[
            table(
                "Narration of each frame",
                ["narration"],
                [str(i + 1) for i in range(len(frames))],
                [[fr["narration"]] for fr in frames],
            )
        ],
        derivations={"2": [c.output_deriv[c.focus]]},
    )
