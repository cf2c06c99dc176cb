"""I3, shared key/value heads: h query heads read g key/value heads (multi-head g = h,
grouped 1 < g < h, multi-query g = 1), the cache shrinking by h / g; a grouped state made
from a multi-head one by mean-pooling each group's K and V heads, and how the weights
change. PURE: the maths is ``app.labs.grouped`` (and ``kv_cache`` for the presets).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.labs.base import FigureContext, Json, LabFigure, grid_item, lab_figure, table
from app.figures.labs.controls import choice, integer
from app.figures.labs.generation.common import names, stack, widest
from app.figures.labs.parts import matrix_grid
from app.labs import attend, grouped, kv_cache
from app.labs.attend import Matrix

MAX_HEADS = 8
MAX_TOKENS = 6
MAX_D = 4


@dataclass(frozen=True)
class Shared:
    """A multi-head state, its grouped twin (mean-pooled K and V) and both weights."""

    q: Matrix  # (h, n, d)
    k: Matrix
    v: Matrix
    kv_heads: int
    multi: Matrix  # (h, n, n) weights with every head's own K
    pooled_k: Matrix  # (g, n, d)
    grouped: Matrix  # (h, n, n) weights with the group's mean-pooled K

    @property
    def heads(self) -> int:
        return int(self.q.shape[0])

    @property
    def n(self) -> int:
        return int(self.q.shape[1])


def shared_state(v: Mapping[str, Any]) -> Shared:
    heads, kvh = int(v["heads"]), int(v["kv_heads"])
    q, k, val = stack(heads, int(v["tokens"]), int(v["width"]), int(v["seed"]))
    allowed = attend.causal(q.shape[1], q.shape[1])  # decoding: each token reads the past
    multi, _ = grouped.grouped_attention(q, k, val, allowed)
    weights, _ = grouped.grouped_from_multihead(q, k, val, kvh, allowed)
    return Shared(q, k, val, kvh, multi, grouped.mean_pool(k, kvh), weights)


def _change(s: Shared, kv_heads: int) -> float:
    """max |grouped − multi-head| over every head's weights, for ``kv_heads`` groups."""
    allowed = attend.causal(s.n, s.n)
    w, _ = grouped.grouped_from_multihead(s.q, s.k, s.v, kv_heads, allowed)
    return float(np.max(np.abs(w - s.multi)))


def _members(heads: int, kv_heads: int, g: int) -> list[int]:
    return [j for j in range(heads) if grouped.group_of(j, heads, kv_heads) == g]


def _reveal(s: Shared) -> Json:
    """Predict first: how many times smaller the cache is with g key/value heads."""
    h, g = s.heads, s.kv_heads
    right = h // g
    options = sorted({right, g, h, 2 * right, 1} - {0})
    return {
        "question": f"{h} query heads share {g} key/value head{'s' if g > 1 else ''}. How many "
        "times smaller is the KV cache than with a key/value head per query head?",
        "choices": [[str(x), f"{x} times" if x > 1 else "the same size"] for x in options],
        "correct": str(right),
        "correct_label": f"{right} times" if right > 1 else "the same size",
        "why": f"The cache keeps one K and one V row per key/value head: 2·{g} rows a token "
        f"and layer instead of 2·{h}, so heads / kv_heads = {h} / {g} = {right}.",
        "answer": f"{h} / {g} = {right} times smaller",
    }


def build_shared(v: Mapping[str, Any], ctx: FigureContext) -> Json:
    s = shared_state(v)
    theme = ctx.theme.name
    h, g, n, d = s.heads, s.kv_heads, s.n, int(s.q.shape[2])
    warnings = []
    j = int(v["head"])
    if j >= h:
        warnings.append(f"Query head {j + 1} does not exist here (1 … {h}); showing head {h}.")
        j = h - 1
    grp = grouped.group_of(j, h, g)
    members = _members(h, g, grp)
    toks, keys, dims = names("q", n), names("k", n), [str(c + 1) for c in range(d)]
    blocked = ~attend.causal(n, n)
    own = matrix_grid(
        "k",
        f"K of head {j + 1}",
        s.k[j],
        keys,
        dims,
        theme,
        row_title="keys",
        col_title="columns of d_head",
    )
    pooled = matrix_grid(
        "k-pooled",
        "mean of K over heads " + fmt.listing([str(m + 1) for m in members]),
        s.pooled_k[grp],
        keys,
        dims,
        theme,
        dp=2,
        role="k",
        row_title="keys",
        col_title="columns of d_head",
    )
    w_multi = matrix_grid(
        "weights-multi",
        "A, own K and V",
        s.multi[j],
        toks,
        keys,
        theme,
        dp=2,
        blocked=blocked,
        row_title="queries",
        col_title="keys",
    )
    w_grouped = matrix_grid(
        "weights-grouped",
        "A, shared K and V",
        s.grouped[j],
        toks,
        keys,
        theme,
        dp=2,
        blocked=blocked,
        row_title="queries",
        col_title="keys",
    )
    change = s.grouped[j] - s.multi[j]
    delta = matrix_grid(
        "change",
        "grouped − multi-head",
        change,
        toks,
        keys,
        theme,
        dp=2,
        role="scores",
        blocked=blocked,
        blocked_text="·",
        row_title="queries",
        col_title="keys",
    )
    # exactly 2 decimals: a change of 0.005 must not widen its column as a power of ten
    delta["text"] = [
        ["·" if b else fmt.fixed(float(x), 2) for x, b in zip(row, brow, strict=True)]
        for row, brow in zip(change, blocked, strict=True)
    ]
    options = grouped.kv_head_options(h)
    reveal = _reveal(s)
    llama = kv_cache.preset("Llama-2-70B")
    ratio = kv_cache.ratio_to_full_heads(llama.heads, llama.kv_heads)
    mapping = [
        f"K/V head {x + 1}: query heads {fmt.listing([str(m + 1) for m in _members(h, g, x)])}"
        for x in range(g)
    ]
    caption = (
        f"{h} query heads in {g} group{'s' if g > 1 else ''} of {h // g}: the cache keeps "
        f"{2 * g} rows a token and layer instead of {2 * h}, {h // g} times fewer. Made from "
        f"the multi-head state by mean-pooling each group's K and V heads, query head {j + 1} "
        f"now reads K/V head {grp + 1}, the mean of heads "
        f"{fmt.listing([str(m + 1) for m in members])}: its weights change by up to "
        f"{fmt.derived(float(np.max(np.abs(change))), 2)}"
        + (" (nothing to pool: g = h is multi-head)." if g == h else ".")
    )
    return lab_figure(
        SHARED,
        caption=caption,
        alt=f"Query head {j + 1}'s K, its group's mean-pooled K, and its causal weights with "
        "its own and with the shared K and V, and their difference.",
        grids=[
            grid_item(own, f"K of query head {j + 1} (multi-head)"),
            grid_item(pooled, f"K/V head {grp + 1}: the group's mean"),
            grid_item(w_multi, f"Head {j + 1}'s weights, its own K and V"),
            grid_item(w_grouped, f"Head {j + 1}'s weights, the shared K and V"),
            grid_item(delta, "How the weights change"),
        ],
        readout=[
            reveal["answer"],
            "; ".join(mapping),
            f"Llama-2-70B: {llama.heads} query heads, {llama.kv_heads} key/value heads: "
            f"{fmt.significant(ratio, 4)} times smaller (the presets' data)",
        ],
        tables=[
            table(
                f"kv_heads from {h} down to 1 (the divisors of {h})",
                ["kind", "cache rows a token and layer", "times smaller", "max |weight change|"],
                [f"kv_heads = {x}" for x in options],
                [
                    [
                        ("multi-head" if x == h else "multi-query" if x == 1 else "grouped"),
                        str(grouped.cache_rows(x, 1)),
                        fmt.significant(h / x, 4),
                        fmt.derived(_change(s, x), 4),
                    ]
                    for x in options
                ],
            ),
            table(
                f"Every query head's largest weight change, kv_heads = {g}",
                ["K/V head", "max |weight change|"],
                [f"query head {x + 1}" for x in range(h)],
                [
                    [str(grouped.group_of(x, h, g) + 1), widest(s.grouped[x] - s.multi[x])]
                    for x in range(h)
                ],
            ),
        ],
        warnings=warnings,
        reveal=reveal,
        choice_labels={"head": [f"query head {x + 1}" for x in range(h)]},
    )


def settle_shared(v: dict[str, Any]) -> dict[str, Any]:
    """kv_heads must divide heads: the largest divisor of heads not above it."""
    heads = int(v["heads"])
    kvh = next(g for g in grouped.kv_head_options(heads) if g <= int(v["kv_heads"]))
    return {**v, "kv_heads": kvh}


SHARED = LabFigure(
    name="shared",
    numpy="generation-shared",
    asks=True,  # its reveal: a stop-and-try question a lesson step can ask
    entry="I3",
    title="Shared key/value heads",
    intro="Multi-query attention (Shazeer, “Fast Transformer Decoding: One Write-Head is All "
    "You Need”, 2019) gives all query heads one key and value head; grouped-query attention "
    "(Ainslie et al., “GQA”, 2023) gives each group of heads / kv_heads query heads one. "
    "GQA makes a grouped model from a multi-head one by mean-pooling each group's K and V "
    "heads. Our example: whole numbers from the seed, causal. Lower kv_heads and watch the "
    "cache shrink and the weights change.",
    teaching="Sharing K and V divides the cache by heads / kv_heads; the price is that the "
    "heads of a group now read the same, averaged keys, so their weights move (GQA then "
    "trains the pooled model a little longer to win the quality back).",
    build=build_shared,
    badges=("our example",),
    settle=settle_shared,
    controls=(
        integer("heads", "Query heads h", 4, 1, MAX_HEADS),
        integer(
            "kv_heads",
            "Key/value heads g",
            2,
            1,
            MAX_HEADS,
            hint="A divisor of h (lowered to one otherwise).",
        ),
        integer("tokens", "Tokens", 4, 2, MAX_TOKENS),
        integer("width", "d_head", 2, 1, MAX_D),
        integer("seed", "Seed of Q, K, V", 0, 0, 9999),
        choice(
            "head", "Query head shown", 0, [(x, f"query head {x + 1}") for x in range(MAX_HEADS)]
        ),
    ),
)
