"""I1, decoding step by step: at step t the new token's key and value are appended to the
cache and its query row reads every cached key; the step's output is row t of full causal
attention. One frame per step, played by the lab player (B1's). PURE: the maths is
``app.labs.decoding``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import integer
from app.figures.labs.generation.common import inputs, names, widest
from app.figures.labs.parts import matrix_grid
from app.labs import attend, decoding
from app.labs.attend import Matrix

MAX_TOKENS = 8
MAX_D = 4


@dataclass(frozen=True)
class Decoded:
    """A state decoded both ways: step by step against the cache, and in one pass."""

    q: Matrix
    k: Matrix
    v: Matrix
    steps: tuple[decoding.Step, ...]
    weights: Matrix  # (L, L) full causal weights
    output: Matrix  # (L, d) full causal output
    incremental: Matrix  # (L, d) the steps' outputs stacked

    @property
    def n(self) -> int:
        return int(self.q.shape[0])

    @property
    def diff(self) -> Matrix:
        d: Matrix = self.incremental - self.output
        return d


def decoded(v: Mapping[str, Any]) -> Decoded:
    """The state the controls name (tokens, width, seed), decoded both ways."""
    q, k, val = inputs(int(v["tokens"]), int(v["width"]), int(v["seed"]))
    steps = decoding.incremental(q, k, val)
    weights, output = decoding.full_causal(q, k, val)
    return Decoded(q, k, val, steps, weights, output, decoding.incremental_output(steps))


def _rows(n: int) -> str:
    return "1 row" if n == 1 else f"{n} rows"


def _grids(s: Decoded, step: decoding.Step, theme: str) -> list[Json]:
    t, n, d = step.t, s.n, s.q.shape[1]
    cached, dims = names("k", t + 1), [str(c + 1) for c in range(d)]
    new = {"rows": [t]}
    k = matrix_grid(
        "k",
        "K cache",
        step.k_cache,
        cached,
        dims,
        theme,
        row_title="cached keys",
        col_title="columns of d",
        outline=new,
    )
    v = matrix_grid(
        "v",
        "V cache",
        step.v_cache,
        names("v", t + 1),
        dims,
        theme,
        row_title="cached values",
        col_title="columns of d",
        outline=new,
    )
    w = matrix_grid(
        "weights-step",
        f"q_{t + 1}'s weights",
        np.stack([step.weights, s.weights[t, : t + 1]]),
        ["cache", "one pass"],
        cached,
        theme,
        dp=4,
        row_title="computed",
        col_title="cached keys",
    )
    items = [
        grid_item(k, f"K cache: {_rows(t + 1)}, row {t + 1} new at this step"),
        grid_item(v, f"V cache: {_rows(t + 1)}"),
        grid_item(w, f"q_{t + 1} against the cache, and row {t + 1} of one-pass attention"),
    ]
    both = np.stack([step.output, s.output[t]])
    out = matrix_grid(
        "output",
        "z",
        both,
        ["cache", "one pass"],
        dims,
        theme,
        dp=4,
        role="z",
        row_title="computed",
        col_title="columns of d",
    )
    items.append(grid_item(out, f"Output of step {t + 1} and row {t + 1} of one-pass attention"))
    if t < n - 1:
        return items
    full = matrix_grid(
        "weights-full",
        "A (causal, one pass)",
        s.weights,
        names("q", n),
        names("k", n),
        theme,
        dp=4,
        blocked=~attend.causal(n, n),
        row_title="queries",
        col_title="keys",
        outline=new,
    )
    return [
        *items,
        grid_item(full, "Full causal attention in one pass: every row, each a step of the cache"),
    ]


def _frame(s: Decoded, step: decoding.Step, theme: str) -> Json:
    t = step.t
    gap = widest(step.output - s.output[t])
    caption = (
        f"Step {t + 1} of {s.n}: token {t + 1}'s key and value join the cache, which now "
        f"holds {_rows(t + 1)}; only this one row of K and V is computed. Its query q_{t + 1} "
        f"reads {'its own key' if t == 0 else f'all {t + 1} cached keys'}: weights "
        f"{fmt.listing([fmt.weight(float(w), 4) for w in step.weights], 8)}. The output "
        f"equals row {t + 1} of full causal attention: max |difference| = {gap}."
    )
    if t == s.n - 1:
        caption += f" Over all {s.n} steps: max |cached − one pass| = {widest(s.diff)} (float64)."
    return {
        "step": t + 1,
        "caption": caption,
        "alt": caption,
        "grids": _grids(s, step, theme),
        "narration": [caption],
        "tables": [
            table(
                f"Step {t + 1}: q_{t + 1}'s weights on the cached keys",
                ["cache (this step)", "row of A (one pass)"],
                names("k", t + 1),
                [
                    [fmt.weight(float(a), 4), fmt.weight(float(b), 4)]
                    for a, b in zip(step.weights, s.weights[t, : t + 1], strict=True)
                ],
            )
        ],
        "grid_hint": f"Outlined: row {t + 1}, the key and value this step adds to the cache.",
    }


def _reveal(s: Decoded) -> Json:
    """Predict first: at the last step, how many keys the query reads and how many rows of
    K and V the step computes."""
    n = s.n
    last = s.steps[-1]
    read, new = int(last.k_cache.shape[0]), 1
    options = {
        f"{read}-{new}": f"it reads {read} keys and computes {new} new row of K and V",
        f"{read}-{read}": f"it reads {read} keys and computes all {read} rows again",
        f"{new}-{new}": f"it reads only its own key, {new} row",
        f"{n - 1}-{new}": f"it reads the {n - 1} earlier keys, not its own",
    }
    right = f"{read}-{new}"
    return {
        "question": f"Decoding token {n} of {n} with a KV cache: how many keys does its query "
        "read, and how many rows of K and V does that step compute?",
        "choices": [[k, label] for k, label in options.items()],
        "correct": right,
        "correct_label": options[right],
        "why": f"The cache already holds the keys and values of tokens 1 … {n - 1}; step {n} "
        f"computes token {n}'s own row, appends it, and q_{n} reads all {read}: row {n} of "
        "causal attention reads exactly those keys.",
        "answer": f"step {n}: {read} keys read, {new} row of K and V computed",
    }


def build_decode(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    s = decoded(v)
    frames = [_frame(s, step, ctx.theme.name) for step in s.steps]
    here = frames[-1]
    n = s.n
    reveal = _reveal(s)
    total = widest(s.diff)
    return lab_figure(
        DECODE,
        caption=here["caption"],
        alt=here["alt"],
        grids=here["grids"],
        readout=[
            f"max |cached − one pass| over all {n} × {s.q.shape[1]} outputs = {total} (float64)",
            f"rows of K and V computed: {n} with the cache, 1 + 2 + … + {n} = "
            f"{fmt.count(n * (n + 1) // 2)} without it",
            reveal["answer"],
        ],
        tables=[
            *here["tables"],
            table(
                "Every step: the cache's rows and the largest difference from one pass",
                ["cached rows", "rows computed", "max |difference|"],
                [f"step {st.t + 1}" for st in s.steps],
                [[str(st.t + 1), "1", widest(st.output - s.output[st.t])] for st in s.steps],
            ),
        ],
        narration=here["narration"],
        grid_hint=here["grid_hint"],
        step=len(frames),
        steps=len(frames),
        frames=frames,
        reveal=reveal,
    )


DECODE = LabFigure(
    name="decode",
    numpy="generation-decode",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="I1",
    title="Decoding with a KV cache, step by step",
    intro="A language model writes one token at a time. At each step only the new token's "
    "key and value are computed and appended to the cache; its query reads every cached "
    "key (Kwon et al., “Efficient Memory Management for Large Language Model Serving with "
    "PagedAttention”, 2023, §2.2). Q, K and V are our example: whole numbers drawn from the "
    "seed. Step with ◀ ▶ and compare each step with the same row of full causal attention.",
    teaching="Causal attention's row t reads only keys 1 … t, so decoding against a cache "
    "gives exactly the one-pass output while computing one new row of K and V per step.",
    build=build_decode,
    badges=("our example",),
    controls=(
        integer("tokens", "Tokens L", 5, 2, MAX_TOKENS),
        integer("width", "Width d", 2, 1, MAX_D),
        integer("seed", "Seed of Q, K, V", 0, 0, 9999),
    ),
)
