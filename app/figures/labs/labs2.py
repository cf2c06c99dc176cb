"""The Labs II entries of the registry (LABS.md §6–§9): masks, order, heads and cost, in
index order. ``app.figures.labs.LABS`` splices them in after the Labs I pages. PURE."""

from __future__ import annotations

from app.figures.labs import cost, heads, masks, order
from app.figures.labs.base import Lab

MASKS = Lab(
    id="masks",
    title="Masks",
    summary="Combine causal, padding and window masks; mask before or after softmax; empty a row.",
    entries="D1–D3",
    status="ready",
    figures=masks.FIGURES,
    intro="Masks decide which keys each query may read: a blocked score becomes −∞ and its "
    "weight exactly 0. Combine them, move them after the softmax, and empty a row.",
)
ORDER = Lab(
    id="order",
    title="Order and position",
    summary="Shuffle tokens, add sinusoidal positions, reverse a sentence.",
    entries="E1–E3",
    status="ready",
    figures=order.FIGURES,
    intro="Self-attention compares every token with every other, but nothing in Q Kᵀ says "
    "where a token sits. Shuffle the tokens, then add positions and shuffle again.",
)
HEADS = Lab(
    id="heads",
    title="Many heads",
    summary="Read four hand-set heads, split and recombine with W^O, change h.",
    entries="F1–F3",
    status="ready",
    figures=heads.FIGURES,
    intro="Multi-head attention runs h small attentions side by side on slices of Q, K and "
    "V, then mixes their outputs with W^O.",
)
COST = Lab(
    id="cost",
    title="Cost",
    summary="Size FLOPs, parameters and the score table against N, d_model and h.",
    entries="G1–G3",
    status="ready",
    figures=cost.FIGURES,
    intro="What one attention layer costs in multiply-adds, parameters and memory, as the "
    "sequence grows. Every count is an exact integer.",
)

LABS_II: tuple[Lab, ...] = (MASKS, ORDER, HEADS, COST)
