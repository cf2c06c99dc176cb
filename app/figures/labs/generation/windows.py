"""I4, sliding windows and sinks: the band mask of width W and how far it reaches after L
layers, the rolling buffer's slot i mod W; StreamingLLM's first k tokens kept beside the
window, and what evicting the first token does to the last query's weights. PURE: the
maths is ``app.labs.windows``, ``app.labs.sinks`` and ``app.labs.attend``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import integer, number
from app.figures.labs.generation.common import D, inputs, names, widest
from app.figures.labs.parts import matrix_grid
from app.labs import attend, kv_cache, sinks, windows
from app.labs.attend import BoolMatrix, Matrix

MAX_TOKENS = 16
MAX_LAYERS = 6
MAX_SINKS = 4


@dataclass(frozen=True)
class Windowed:
    """The example's last query against the cache under four rules, and the band's reach."""

    n: int
    window: int
    layers: int
    sinks: int
    rules: tuple[tuple[str, BoolMatrix], ...]  # (name, allowed (n, n))
    weights: tuple[Matrix, ...]  # (n, n) per rule
    outputs: tuple[Matrix, ...]  # (n, d) per rule
    needed: Matrix  # (n, n) the fewest layers for i to reach j (0: not within L)


def sink_bias(scores: Matrix, allowed: BoolMatrix, boost: float) -> Matrix:
    """Our example's sink: the bias that puts each query's score on token 1 ``boost``
    above its largest score on any other key it may read (b for the first query, which
    reads only token 1), as trained models' first tokens draw a large share of the weight
    (Xiao et al.) whatever the query."""
    others = np.where(allowed[:, 1:], scores[:, 1:], -np.inf).max(axis=1, initial=-np.inf)
    top = np.where(np.isfinite(others), others, 0.0)
    bias: Matrix = np.zeros_like(scores)
    bias[:, 0] = top + boost - scores[:, 0]
    return bias


def windowed(v: Mapping[str, Any]) -> Windowed:
    n, w, layers, k = int(v["tokens"]), int(v["window"]), int(v["layers"]), int(v["sinks"])
    q, key, val = inputs(n, D, int(v["seed"]))
    full = attend.causal(n, n)
    bias = sink_bias(attend.scaled_scores(q, key), full, float(v["boost"]))
    first_gone = full & (np.arange(n)[None, :] >= 1)
    rules = (
        ("every cached token", full),
        ("token 1 evicted", first_gone),
        (f"window of {w}", windows.band(n, w)),
        (f"{k} sink{'s' if k != 1 else ''} + window of {w}", sinks.allowed(n, k, w)),
    )
    runs = [attend.attention(q, key, val, allowed, bias) for _, allowed in rules]
    band = windows.band(n, w)
    needed = np.zeros((n, n))
    for depth in range(layers, 0, -1):  # the smallest depth wins: fill deepest first
        needed = np.where(windows.reach(band, depth), depth, needed)
    return Windowed(
        n, w, layers, k, rules, tuple(r[0] for r in runs), tuple(r[1] for r in runs), needed
    )


def _reveal(s: Windowed) -> Json:
    """Predict first: what evicting token 1 does to the last query's other weights."""
    full, cut = s.weights[0][-1], s.weights[1][-1]
    w1 = float(full[0])
    grow = 1.0 / (1.0 - w1)
    choices = [
        ["grow", "each is divided by 1 − (token 1's weight): they all grow"],
        ["same", "they stay as they were; the row now sums to less than 1"],
        ["nearest", "token 1's weight moves to token 2"],
        ["shrink", "they all shrink"],
    ]
    j = int(np.argmax(full[1:])) + 1
    return {
        "question": f"The last query (token {s.n}) puts {fmt.weight(w1, 4)} of its weight on "
        "token 1. Evict token 1 from the cache and run the softmax again: what happens to "
        "the other weights?",
        "choices": choices,
        "correct": "grow",
        "correct_label": choices[0][1],
        "why": f"The softmax over the rest is e^(s_j) / Σ_rest e^(s) = w_j / (1 − w_1): every "
        f"kept weight × 1 / (1 − {fmt.weight(w1, 4)}) = {fmt.significant(grow, 4)}; token "
        f"{j + 1}'s goes from {fmt.weight(float(full[j]), 4)} to {fmt.weight(float(cut[j]), 4)}."
        " The weight token 1 held is spread over the rest, so the output moves.",
        "answer": f"token 1 held {fmt.weight(w1, 4)}: the rest × {fmt.significant(grow, 4)}",
    }


def build_windows(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    s = windowed(v)
    theme = ctx.theme.name
    n, w, layers, k = s.n, s.window, s.layers, s.sinks
    toks, keys = names("q", n), names("k", n)
    reach = matrix_grid(
        "reach",
        f"layers to reach (within {layers})",
        s.needed,
        toks,
        keys,
        theme,
        role="x",
        row_title="positions",
        col_title="inputs it depends on",
    )
    # not a mask: an input out of reach is printed "·", its 0 drawn in the scale's middle
    reach["text"] = [["·" if x == 0 else str(int(x)) for x in row] for row in s.needed]
    last = np.stack([wt[-1] for wt in s.weights])
    kept = np.stack([allowed[-1] for _, allowed in s.rules])
    rule_names = [name for name, _ in s.rules]
    short = ["all", "no token 1", f"window {w}", f"{k} + window"]  # a phone's row headers
    rows = matrix_grid(
        "weights-last",
        f"token {n}'s weights",
        last,
        short,
        keys,
        theme,
        dp=2,
        blocked=~kept,
        row_title="cache",
        col_title="keys",
    )
    stream = matrix_grid(
        "weights-sinks",
        "A, sinks + window",
        s.weights[3],
        toks,
        keys,
        theme,
        dp=2,
        blocked=~s.rules[3][1],
        row_title="queries",
        col_title="keys",
    )
    held = windows.buffer_contents(n, w)
    renorm, mass = sinks.renormalised(s.weights[0][-1:], np.arange(n)[None, :] == 0)
    reveal = _reveal(s)
    mistral = kv_cache.preset("Mistral-7B")
    assert mistral.window is not None
    moved = [widest(s.outputs[i][-1] - s.outputs[0][-1]) for i in range(4)]
    w1 = float(mass[0])
    caption = (
        f"A band of W = {w} keys (the token and the {w - 1} before it): after {layers} "
        f"layer{'s' if layers > 1 else ''} token {n} depends on inputs up to "
        f"{windows.reach_back(w, layers)} positions back, L·(W − 1) "
        f"(Mistral 7B's W × L = {windows.span(w, layers)} counts a window as W back). The "
        f"rolling buffer puts token i in slot i mod W: token {n} in slot "
        f"{windows.buffer_slot(n - 1, w) + 1}. Token 1 holds {fmt.weight(w1, 4)} of token {n}'s "
        f"weight: evicted, the rest grow by 1 / (1 − {fmt.weight(w1, 4)}) = "
        f"{fmt.significant(1 / (1 - w1), 4)} and the output moves by up to {moved[1]}; keeping "
        f"{k} sink"
        f"{'s' if k != 1 else ''} beside the window, by {moved[3]}."
    )
    return lab_figure(
        WINDOWS,
        caption=caption,
        alt=f"The reach of a band of {w} keys over {layers} layers; token {n}'s weights with "
        "every token, without token 1, with a window only and with sinks plus a window; the "
        "weights of the sinks-plus-window mask.",
        grids=[
            grid_item(rows, f"Token {n}'s weights under four caches"),
            grid_item(reach, f"Band of {w}: how many layers until a position reaches an input"),
            grid_item(stream, f"{k} sink{'s' if k != 1 else ''} + a window of {w}, every query"),
        ],
        readout=[
            reveal["answer"],
            f"token 1 evicted = the rest / (1 − w_1): max |difference| "
            f"{widest(renorm[0] - s.weights[1][-1])}",
            f"Mistral 7B (the presets' data): W = {fmt.count(mistral.window)}, {mistral.layers} "
            f"layers: span {fmt.count(windows.span(mistral.window, mistral.layers))} tokens; at "
            f"{fmt.count(8 * mistral.window)} tokens the buffer is "
            f"{fmt.significant(windows.buffer_saving(8 * mistral.window, mistral.window), 4)} "
            "times smaller",
        ],
        tables=[
            table(
                f"The rolling buffer of {w} slots after {n} tokens (token i in slot i mod W)",
                ["holds"],
                [f"slot {x + 1}" for x in range(w)],
                [["empty" if p < 0 else f"token {p + 1}"] for p in held],
            ),
            table(
                f"Token {n}'s output under each cache",
                ["kept keys", "max |output change|"],
                rule_names,
                [[str(int(kept[i].sum())), moved[i]] for i in range(4)],
            ),
        ],
        reveal=reveal,
    )


def settle_windows(v: dict[str, Any]) -> dict[str, Any]:
    """At most n − 1 sinks: the last token is always the window's."""
    return {**v, "sinks": min(int(v["sinks"]), int(v["tokens"]) - 1)}


WINDOWS = LabFigure(
    name="windows",
    numpy="generation-windows",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="I4",
    title="Sliding windows and attention sinks",
    intro="A sliding window lets each token read only the last W (Beltagy et al., "
    "“Longformer”, 2020; Jiang et al., “Mistral 7B”, 2023): stacked layers reach further "
    "back, and the cache becomes a rolling buffer of W slots. Evicting the first tokens "
    "breaks a model, because they draw a large share of the weight; StreamingLLM keeps the "
    "first k beside the window (Xiao et al., “Efficient Streaming Language Models with "
    "Attention Sinks”, 2024). Our example: rows from the seed, and token 1 made a sink: "
    "each query scores it b above its best other key.",
    teaching="Evicting a key spreads its weight over the rest (each divided by 1 − its "
    "weight); keeping the few sink tokens keeps the softmax close to the full cache's.",
    build=build_windows,
    badges=("our example",),
    settle=settle_windows,
    controls=(
        integer("tokens", "Tokens n", 12, 4, MAX_TOKENS),
        integer("window", "Window W", 4, 1, MAX_TOKENS),
        integer("layers", "Layers L", 2, 1, MAX_LAYERS),
        integer("sinks", "Sink tokens k", 1, 0, MAX_SINKS),
        number("boost", "Token 1 scores b above the best other key", 2.0, -4.0, 8.0, 0.5),
        integer("seed", "Seed of Q, K, V", 0, 0, 9999),
    ),
)
