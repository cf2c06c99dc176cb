"""Figure 3: the whole computation for one focus token, played step by step, resting on
the whole pipeline.

The figure is one set of grids (X → Q, K, V → scores → scaled → weights → Z) and a list of
steps; each step reveals cells (everything before it stays visible) and outlines what it
uses: (1) X; (2) Q, K, V; (3) the score grid filling one dot product at a time in reading
order (whole rows at a time for big grids), the Q row and K row of each cell outlined;
(4) ÷ the divisor (marked as skipped when scaling is off; blocked cells become −∞); (5)
softmax, the focus row's sum shown; (6) the focus row's weights mix the rows of V into
z(focus), one entry at a time; and at rest every grid, Z complete.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import Json

MAX_FILL_FRAMES = 9  # frames for step 3 (and for step 6) beyond which cells are grouped


def _groups(n_items: int, per_item: bool) -> list[list[int]]:
    """Indices in reading order, one per frame, or grouped into at most MAX_FILL_FRAMES."""
    if per_item:
        return [[i] for i in range(n_items)]
    size = -(-n_items // MAX_FILL_FRAMES)
    return [list(range(s, min(s + size, n_items))) for s in range(0, n_items, size)]


class Steps:
    """Builds the step list: each step hides the grids not reached yet."""

    def __init__(self, c: Ctx) -> None:
        self.c = c
        qkv = ["q", "k", "v"]
        self.order = [["x", "source_x"], qkv, ["scores"], [c.masked_name], ["weights"], ["output"]]
        self.steps: list[Json] = []

    def add(self, stage: int, narration: str, marks: Json, show: Json | None = None) -> None:
        hidden = {name: 0 for group in self.order[stage + 1 :] for name in group}
        self.steps.append({"narration": narration, "show": {**hidden, **(show or {})},
                           "marks": marks})  # fmt: skip


def _step1(s: Steps) -> None:
    c, f = s.c, s.c.focus
    st = c.stages
    d_model = st.x.shape[1] if st.x is not None else c.d_k
    text = (
        f"Step 1 of 6: each of the {c.l_q} tokens is a row of X with {d_model} numbers; "
        f"the focus token {c.focus_token} is row {f + 1}."
    )
    if st.cross:
        text += f" The {c.l_k} source tokens are the rows of S."
    s.add(0, text, {"x": {"rows": [f]}})


def _step2(s: Steps) -> None:
    c = s.c
    how = "three matrix products give" if c.stages.w_q is not None else "given directly:"
    text = (
        f"Step 2 of 6{c.head_note}: {how} Q ({c.l_q} × {c.d_k}), K ({c.l_k} × {c.d_k}) and "
        f"V ({c.l_k} × {c.d_v}). {c.projection_cell('q', c.focus, 0)}."
    )
    s.add(1, text, {"q": {"rows": [c.focus]}})


def _step3(s: Steps) -> None:
    c = s.c
    cells = c.l_q * c.l_k
    per_cell = cells <= MAX_FILL_FRAMES * 3
    if per_cell:
        for n in range(cells):
            i, j = divmod(n, c.l_k)
            say = (
                f"Step 3 of 6: score of {c.tokens[i]} with {c.key_tokens[j]}: "
                f"{c.scores_deriv[i][j]}."
            )
            marks = {"q": {"rows": [i]}, "k": {"rows": [j]}, "scores": {"cells": [[i, j]]}}
            s.add(2, say, marks, {"scores": n + 1})
        return
    for rows in _groups(c.l_q, False):
        first, last = rows[0], rows[-1]
        say = (
            f"Step 3 of 6: rows {first + 1}–{last + 1} of the {c.l_q} × {c.l_k} scores, each "
            "a dot product of a Q row with every K row."
        )
        marks = {"q": {"rows": rows}, "scores": {"rows": rows}}
        s.add(2, say, marks, {"scores": (last + 1) * c.l_k})


def _step4(s: Steps) -> None:
    c, h, f = s.c, s.c.h, s.c.focus
    if c.stages.scale:
        say = (
            f"Step 4 of 6: divide every score by √d_k = √{c.d_k} "
            f"{'=' if '≈' not in c.divisor_text else '≈'} {fmt.value(h.divisor)}; "
            f"row {f + 1} becomes {fmt.listing(c.text_row('masked', f))}."
        )
    else:
        say = (
            "Step 4 of 6 is skipped: scaling is off, so the divisor is 1 and the scores "
            "pass unchanged."
        )
    if c.masked_any:
        say += f" Cells blocked by {c.mask_why} become −∞."
    s.add(3, say, {"scores": {"rows": [f]}, c.masked_name: {"rows": [f]}})


def _step5(s: Steps) -> None:
    c, h, f = s.c, s.c.h, s.c.focus
    if f in c.blocked_rows:
        say = (
            f"Step 5 of 6: softmax per row. {c.focus_token} may see no key, so its weights "
            "are all 0."
        )
    else:
        say = (
            f"Step 5 of 6: softmax turns each row into weights that sum to 1. Row {f + 1} "
            f"({c.focus_token}): {fmt.listing(c.text_row('weights', f))}; sum = "
            f"{fmt.weight(float(h.row_sum[f]))}."
        )
    if c.masked_any:
        say += " Blocked cells get exactly 0."
    s.add(4, say, {c.masked_name: {"rows": [f]}, "weights": {"rows": [f]}})


def _step6(s: Steps) -> None:
    c, f = s.c, s.c.focus
    per_entry = c.d_v <= MAX_FILL_FRAMES
    for unit in _groups(c.d_v, per_entry):
        j = unit[-1]
        if per_entry:
            say = f"Step 6 of 6: entry {j + 1} of z({c.focus_token}): {c.output_cell(f, j)}."
        else:
            say = (
                f"Step 6 of 6: entries {unit[0] + 1}–{j + 1} of z({c.focus_token}), each a "
                "weighted sum of a column of V."
            )
        marks = {
            "weights": {"rows": [f]},
            "v": {"cols": unit},
            "output": {"cells": [[f, k] for k in unit]},
        }
        s.add(5, say, marks, {"output": {"row": f, "cols": j + 1}})


def _rest(s: Steps) -> None:
    c, f = s.c, s.c.focus
    say = (
        f"Done: z({c.focus_token}) = ({fmt.listing(c.text_row('output', f), 8)}). Every other row "
        f"of Z is made the same way from its own row of A: the whole computation, "
        f"X {c.l_q} × {c.stages.x.shape[1] if c.stages.x is not None else c.d_k} to "
        f"Z {c.l_q} × {c.d_v}."
    )
    marks = {"x": {"rows": [f]}, "q": {"rows": [f]}, "weights": {"rows": [f]},
             "output": {"rows": [f]}}  # fmt: skip
    s.add(5, say, marks)


def pipeline(c: Ctx) -> list[list[Json]]:
    """X (and S) → Q, K, V; scores → scaled → weights; → Z."""
    first: list[Json] = []
    if c.stages.x is not None:
        first.append({"grid": c.grid("x")})
        if c.stages.cross:
            first.append({"grid": c.grid("source_x")})
        first.append({"arrow": "× W^Q, W^K, W^V" if c.stages.w_q is not None else "given"})
    first += [{"grid": c.grid(n)} for n in ("q", "k", "v")]
    div = c.divisor_text.split(" ≈ ")[0] if c.stages.scale else "1 (skipped)"
    second: list[Json] = [
        {"grid": c.grid("scores")},
        {"arrow": f"÷ {div}"},
        {"grid": c.grid(c.masked_name)},
        {"arrow": "softmax"},
        {"grid": c.grid("weights")},
    ]
    third: list[Json] = [{"arrow": "A × V"}, {"grid": c.grid("output")}]
    return [first, second, third]


def build(c: Ctx) -> dict[str, Any]:
    s = Steps(c)
    for step in (_step1, _step2, _step3, _step4, _step5, _step6, _rest):
        step(s)
    steps = s.steps
    last = steps[-1]
    caption = (
        f"The whole computation for {c.focus_token} (row {c.focus + 1}){c.head_note}, in "
        f"{len(steps)} frames: inputs, projections, scores, "
        + ("scaling, " if c.stages.scale else "no scaling (divisor 1), ")
        + ("masking, " if c.masked_any else "")
        + "softmax and the weighted sum of values. Play it or step through it; at rest it "
        "shows the whole pipeline."
    )
    return figure(
        3,
        c.titles[3],
        caption,
        f"Step-by-step walk-through in {len(steps)} frames. At rest: {last['narration']}",
        [],
        {},
        readout=[last["narration"]],
        panels=pipeline(c),
        steps=steps,
        tables=[
            table(
                "Narration of each frame",
                ["narration"],
                [str(i + 1) for i in range(len(steps))],
                [[st["narration"]] for st in steps],
            )
        ],
    )
