"""Figure 3: the whole computation for one focus token, played step by step, resting on
the whole pipeline.

The figure is one set of grids (X → Q, K, V → scores → scaled → weights → Z) and a list of
steps; each step reveals cells (everything before it stays visible) and outlines what it
uses: (1) X; (2) Q, K, V; (3) the score grid filling one row per frame (a query against
every key; groups of rows for long inputs), the focus row's dot products worked out;
(4) ÷ the divisor (marked as skipped when scaling is off; blocked cells become −∞); (5)
softmax, the focus row's sum shown; (6) Z built row by row as the scores were, every row
a blend of the rows of V; and at rest every grid, Z complete, the focus row's output
named. Scores and outputs get the same number of frames, and the answer for the focus
row is said in its own frame only: the figure has no readout that would show it early.
The narration names each step by what it does; the player's one counter counts frames.
"""

from __future__ import annotations

from typing import Any

from app.figures import fmt
from app.figures.context import Ctx, figure, table
from app.figures.style import Json

MAX_ROW_FRAMES = 4  # frames for step 3 (and for step 6) beyond which rows are grouped


def _groups(n_items: int) -> list[list[int]]:
    """Row indices in reading order, one per frame, or grouped into MAX_ROW_FRAMES frames:
    scores and outputs get the same share of the play whatever the length."""
    size = max(1, -(-n_items // MAX_ROW_FRAMES))
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

    def named(self, i: int) -> str:
        """'love (row 2)': a query token with its row number."""
        return f"{self.c.tokens[i]} (row {i + 1})"

    def rows_named(self, rows: list[int]) -> str:
        """'rows 1–16 (t0 … t15)': a group of query rows (a long input's frame)."""
        first, last = rows[0], rows[-1]
        return f"rows {first + 1}–{last + 1} ({self.c.tokens[first]} … {self.c.tokens[last]})"


# The narration names each step by what it does (the player counts the frames: one counter).


def _step1(s: Steps) -> None:
    c, f = s.c, s.c.focus
    st = c.stages
    d_model = st.x.shape[1] if st.x is not None else c.d_k
    one = c.l_q == 1
    text = (
        f"Inputs: {'the one token is' if one else f'each of the {c.l_q} tokens is'} a row of X "
        f"with {d_model} numbers; the focus token is {s.named(f)}."
    )
    if st.cross:
        text += f" The {c.l_k} source tokens are the rows of S."
    s.add(0, text, {"x": {"rows": [f]}})


def _step2(s: Steps) -> None:
    c = s.c
    how = "three matrix products give" if c.stages.w_q is not None else "given directly:"
    text = (
        f"Projections{c.head_note}: {how} Q ({c.l_q} × {c.d_k}), K ({c.l_k} × {c.d_k}) and "
        f"V ({c.l_k} × {c.d_v}). {c.projection_cell('q', c.focus, 0)}."
    )
    s.add(1, text, {"q": {"rows": [c.focus]}})


def _step3(s: Steps) -> None:
    c, f = s.c, s.c.focus
    every_key = list(range(c.l_k))
    for rows in _groups(c.l_q):
        last = rows[-1]
        if len(rows) == 1:
            i = rows[0]
            q_i = fmt.vec("q", i + 1)
            products = [
                f"{q_i}·{fmt.vec('k', j + 1)} ({c.key_tokens[j]}) = {c.text_row('scores', i)[j]}"
                for j in range(min(c.l_k, 8))
            ]
            say = f"Scores of {s.named(i)}: its query {q_i} against every key, " + (
                fmt.listing(products, 8) + ("" if c.l_k <= 8 else ", …") + "."
            )
        else:
            say = (
                f"Scores of {s.rows_named(rows)}: each query against every key, "
                f"{len(rows) * c.l_k} dot products."
            )
        if f in rows:
            say += f" Worked out for {s.named(f)}: " + "; ".join(c.scores_deriv[f][: min(c.l_k, 3)])
            say += "." if c.l_k <= 3 else "; …"
        marks = {"q": {"rows": rows}, "k": {"rows": every_key}, "scores": {"rows": rows}}
        s.add(2, say, marks, {"scores": (last + 1) * c.l_k})


def _step4(s: Steps) -> None:
    c, f = s.c, s.c.focus
    if c.stages.scale:
        say = (
            f"Scaling: divide every score by √d_k = "
            f"{c.divisor_text if '≈' in c.divisor_text else f'√{c.d_k} = {c.divisor_text}'}; "
            f"the scores of {s.named(f)} become {fmt.listing(c.text_row('masked', f))}."
        )
    else:
        say = (
            "Scaling is skipped: it is switched off, so the divisor is 1 and the scores "
            "pass unchanged."
        )
    if c.masked_any:
        say += f" Cells blocked by {c.mask_why} become −∞ (hatched)."
    s.add(3, say, {"scores": {"rows": [f]}, c.masked_name: {"rows": [f]}})


def _step5(s: Steps) -> None:
    c, h, f = s.c, s.c.h, s.c.focus
    if f in c.blocked_rows:
        say = f"Softmax, row by row: {s.named(f)} may see no key, so its weights are all 0."
    else:
        say = (
            f"Softmax turns each row{' with an allowed key' if c.blocked_rows else ''} into "
            f"weights that sum to 1. {s.named(f)}: "
            f"{fmt.listing(c.text_row('weights', f))}; sum = {fmt.value(float(h.row_sum[f]))}."
        )
    if c.masked_any:
        say += " Blocked cells get exactly 0."
    s.add(4, say, {c.masked_name: {"rows": [f]}, "weights": {"rows": [f]}})


def _step6(s: Steps) -> None:
    c, f = s.c, s.c.focus
    every_key = list(range(c.l_k))
    for rows in _groups(c.l_q):
        last = rows[-1]
        if len(rows) == 1:
            i = rows[0]
            blend = " + ".join(
                f"{c.text_row('weights', i)[j]}·{fmt.vec('v', j + 1)} ({c.key_tokens[j]})"
                for j in range(min(c.l_k, 4))
            ) + (" + …" if c.l_k > 4 else "")
            say = (
                f"Output of {s.named(i)}: its weights mix the rows of V, "
                f"{fmt.vec('z', i + 1)} = {blend} = ({fmt.listing(c.text_row('output', i), 8)})."
            )
        else:
            say = (
                f"Outputs of {s.rows_named(rows)}: each row of weights mixes the rows of V "
                "into one row of Z."
            )
        if f in rows:
            say += f" The first entry for {s.named(f)} worked out: {c.output_cell(f, 0)}."
        marks = {"weights": {"rows": rows}, "v": {"rows": every_key}, "output": {"rows": rows}}
        s.add(5, say, marks, {"output": (last + 1) * c.d_v})


def _rest(s: Steps) -> None:
    c, f = s.c, s.c.focus
    d_in = c.stages.x.shape[1] if c.stages.x is not None else c.d_k
    say = (
        f"Done: X ({c.l_q} × {d_in}) has become Z ({c.l_q} × {c.d_v}), one output row per "
        f"token. The focus token {s.named(f)} came out as {fmt.vec('z', f + 1)} = "
        f"({fmt.listing(c.text_row('output', f), 8)})."
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
    caption = (
        f"The whole computation for {c.focus_token} (row {c.focus + 1})"
        f"{c.head_words}, in "
        f"{len(steps)} frames: inputs, projections, scores, "
        + ("scaling, " if c.stages.scale else "no scaling (divisor 1), ")
        + ("masking, " if c.masked_any else "")
        + "softmax and the weighted sum of values. Play it or step through it; at rest it "
        "shows the whole pipeline."
    )
    # No readout: the answer belongs to its own frame, and the narration line says it then.
    return figure(
        3,
        c.titles[3],
        caption,
        f"Step-by-step walk-through in {len(steps)} frames of the computation for "
        f"{s.named(c.focus)}, from the rows of X to the rows of Z.",
        [],
        {},
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
