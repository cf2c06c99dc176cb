"""The cost of one multi-head attention layer and the parameter count of a transformer
(LABS.md §2 ``/cost``, G1–G3, F3). Pure Python integers: exact at any size, no overflow.

FLOPs are multiply-adds (softmax, scaling and masking are not counted). With N tokens
and d = d_model, one layer's attention costs

    projections        3·N·d²   Q, K and V from X
    scores             N²·d     Q Kᵀ over h heads of width d_k (h·d_k = d)
    weighted_sum       N²·d     A V over h heads of width d_v (h·d_v = d)
    output_projection  N·d²     concat · W^O

so linear = 4·N·d² and quadratic = 2·N²·d; the quadratic part wins when N > 2·d.
``heads`` enters no count, because h·d_k = d_model: it only sets the divisor √d_k.

The arithmetic is exact at any size; what a JSON reader can hold is not. A JavaScript
number (or any float64) holds integers exactly only below 2^53, so ``largest_count``
and ``largest_exact_n`` say how far an answer may go before it stops being exact there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

FLOAT32_BYTES = 4
# Integers below this are exact in a float64, so in every JSON reader (JavaScript's included).
EXACT_BELOW = 2**53


@dataclass(frozen=True)
class Config:
    """One transformer's sizes (the textbook chapter's base model by default)."""

    n: int = 512
    d_model: int = 512
    heads: int = 8
    d_ff: int = 2048
    vocab: int = 50000
    layers: int = 6
    biases: bool = False


@dataclass(frozen=True)
class Flops:
    projections: int
    scores: int
    weighted_sum: int
    output_projection: int
    linear: int
    quadratic: int
    total: int


@dataclass(frozen=True)
class Params:
    attention: int
    ffn: int
    layer_norm: int
    embedding: int
    per_layer: int
    total: int


@dataclass(frozen=True)
class Heads:
    """F3: what splitting d_model into h heads changes (the divisor) and what it does not."""

    d_k: int  # = d_v = d_model / h
    one_head_qkv: int  # d_model·(2·d_k + d_v): one head's three maps
    all_heads_qkv: int  # h·d_model·(2·d_k + d_v)
    full_width_qkv: int  # 3·d_model²: one head of width d_model
    score_flops: int  # h·N²·d_k = N²·d_model


@dataclass(frozen=True)
class Memory:
    """G3: one float32 score table (N² cells of 4 bytes), and all of them in the model."""

    score_table_bytes: int  # 4·N², one head in one layer
    all_tables_bytes: int  # 4·N²·h·layers


@dataclass(frozen=True)
class Cost:
    config: Config
    flops: Flops
    crossover_n: int
    score_cells: int
    params: Params
    heads: Heads
    memory: Memory


def check(c: Config) -> None:
    """Raise ValueError naming the field when a size is not a positive integer or the
    heads do not divide d_model."""
    for name in ("n", "d_model", "heads", "d_ff", "vocab", "layers"):
        value = getattr(c, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}: must be a positive integer")
    if c.d_model % c.heads:
        raise ValueError(f"heads: {c.heads} heads do not divide d_model = {c.d_model}")


def flops(n: int, d_model: int) -> Flops:
    """Multiply-adds of one multi-head attention layer over n tokens."""
    projections = 3 * n * d_model**2
    scores = n**2 * d_model
    weighted_sum = n**2 * d_model
    output_projection = n * d_model**2
    linear = projections + output_projection  # 4·N·d²
    quadratic = scores + weighted_sum  # 2·N²·d
    return Flops(projections, scores, weighted_sum, output_projection, linear, quadratic,
                 linear + quadratic)  # fmt: skip


def params(c: Config) -> Params:
    """Parameters per layer and in the whole model. Biases and the two LayerNorms (a scale
    and a shift each) count only with ``biases``; the embedding counts once (tied)."""
    d, b = c.d_model, int(c.biases)
    attention = 4 * d * d + b * 4 * d
    ffn = 2 * d * c.d_ff + b * (c.d_ff + d)
    layer_norm = b * 2 * 2 * d
    embedding = c.vocab * d
    per_layer = attention + ffn + layer_norm
    return Params(attention, ffn, layer_norm, embedding, per_layer,
                  embedding + c.layers * per_layer)  # fmt: skip


def heads(c: Config) -> Heads:
    d_k = c.d_model // c.heads
    one = c.d_model * (2 * d_k + d_k)
    return Heads(d_k, one, c.heads * one, 3 * c.d_model**2, c.heads * c.n**2 * d_k)


def cost(c: Config) -> Cost:
    """Everything ``POST /api/v1/cost`` answers for ``c``."""
    check(c)
    cells = c.n**2
    return Cost(
        config=c,
        flops=flops(c.n, c.d_model),
        crossover_n=2 * c.d_model,
        score_cells=cells,
        params=params(c),
        heads=heads(c),
        memory=Memory(FLOAT32_BYTES * cells, FLOAT32_BYTES * cells * c.heads * c.layers),
    )


def counts(c: Cost) -> dict[str, int]:
    """Every integer of the answer, by its dotted name (``flops.total``, …)."""
    out = {"crossover_n": c.crossover_n, "score_cells": c.score_cells}
    for group in ("flops", "params", "heads", "memory"):
        out.update((f"{group}.{k}", v) for k, v in vars(getattr(c, group)).items())
    return out


def largest_count(c: Cost) -> tuple[str, int]:
    """The answer's largest integer and its name: with N, d_model, h and layers it is
    flops.total = 4·N·d² + 2·N²·d or memory.all_tables_bytes = 4·N²·h·layers."""
    name, value = max(counts(c).items(), key=lambda kv: kv[1])
    return name, value


def largest_exact_n(c: Config) -> int:
    """The largest N for which every count of ``c``'s answer stays below ``EXACT_BELOW``
    (0 when even N = 1 does not). Every count grows with N, so bisect on it."""
    lo, hi = 0, 1
    while largest_count(cost(replace(c, n=hi)))[1] < EXACT_BELOW:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # invariant: lo fits (or is 0), hi does not
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if largest_count(cost(replace(c, n=mid)))[1] < EXACT_BELOW else (lo, mid)
    return lo
