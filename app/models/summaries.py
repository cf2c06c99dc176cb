"""What each head does, in one word: its pattern, its entropy, and the scores behind them.

A pattern is a set of (query, key) cells: ``previous`` (key i − 1 for query i),
``two_back`` (i − 2), ``next`` (i + 1), ``self`` (i), ``first`` (key 0), ``last`` (key
n − 1), ``special`` (the special tokens, e.g. [CLS] and [SEP]), ``same_word`` (the other
pieces of the query's own word) and ``induction`` (the key just after an earlier
occurrence of the query's own token, the copy step of repeated sequences). A pattern's
score is the weight a head puts on its cells, averaged over the queries that have such
cells (a query with no previous occurrence of its token does not count for ``induction``).
The head is named by its best score when that is at least ``THRESHOLD`` (most of the
weight), else ``broad``; except that a head whose weight a fixed offset explains
(``previous``, ``two_back``: at least ``THRESHOLD``, and within ``OFFSET_MARGIN`` of
``induction``) is named by that offset even where ``induction`` scores as high: on a text
of period 2 or 3 the cells after earlier copies are exactly those offsets, and only the
offset holds on every text (the tiny decoder's layer 1, head 3 looks two letters back on
any text; on "abcabc" it looked like an induction head). Entropy is in nats, averaged over
the queries (0: every query on one key; log n: uniform).

In a causal model the first query sees one key only, its own: all its weight is there
whatever the head does, so it is left out of every score and of the entropy
(``causal=True``); on "I love LLMs" it made every head of SmolLM2 a quarter "self" and
"first" before it looked at anything.

Tokens can be set aside (``of_trace(..., aside=...)``): the page's toggle greys out
[CLS] and [SEP] (or a causal model's first token, its sink), which take most of many
heads' weight; every head is then summarised on the other tokens only, each query's
weight on them rescaled to sum to 1 (its share of what is left), so a head that puts
0.68 of "it"'s weight on "animal" is named for that instead of "special-token head".

Patterns are built once per sentence as masks and applied to every layer and head at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.models.base import ModelSpec, Trace

THRESHOLD = 0.5
# Ties go to the more specific pattern (a one-token sentence is "self", not "first").
PATTERNS = (
    "induction", "previous", "two_back", "next", "same_word", "self", "first", "last", "special",
)  # fmt: skip
# Offsets from the query: what they name holds whatever the text says.
POSITIONAL = ("previous", "two_back")
# How far below ``induction`` an offset may score and still name the head: the weight the
# offset misses is then too little to say the head follows earlier copies instead.
OFFSET_MARGIN = 0.1
BROAD = "broad"
CONTINUATION = "##"  # WordPiece: a piece that continues the word before it
DIGITS = 6


@dataclass(frozen=True)
class Probe:
    """One pattern on one sentence: which keys it takes for each query, and which
    queries it is defined for."""

    keys: np.ndarray  # (n, n) bool
    queries: np.ndarray  # (n,) bool


def word_ids(tokens: Sequence[str], wordpiece: bool) -> list[int]:
    """The word each token belongs to: with WordPiece a "##" piece joins the word before
    it; otherwise every token is a word of its own."""
    ids: list[int] = []
    for i, token in enumerate(tokens):
        joins = wordpiece and i > 0 and token.startswith(CONTINUATION)
        ids.append(ids[-1] if joins else (ids[-1] + 1 if ids else 0))
    return ids


def _diagonal(n: int, offset: int) -> Probe:
    keys = np.eye(n, k=offset, dtype=bool)
    return Probe(keys, np.asarray(keys.any(axis=1)))


def _induction(tokens: Sequence[str]) -> np.ndarray:
    """(n, n) bool: key p + 1 for query i whenever token p equals token i and p + 1 < i."""
    n = len(tokens)
    keys = np.zeros((n, n), dtype=bool)
    seen: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        for p in seen.get(token, []):
            if p + 1 < i:
                keys[i, p + 1] = True
        seen.setdefault(token, []).append(i)
    return keys


def probes(
    tokens: Sequence[str], special: Sequence[bool], words: Sequence[int], causal: bool = False
) -> dict[str, Probe]:
    """Every pattern defined on this sentence (``previous`` and ``next`` only past one
    token, ``special`` only when it has special tokens, ``same_word`` only when a word
    has several pieces, ``induction`` only when a token repeats); ``causal``: without the
    first query, which has no choice (module docstring), unless it is the only one."""
    n = len(tokens)
    every = np.ones(n, dtype=bool)
    column = np.arange(n)[None, :] == np.zeros((n, 1), dtype=int)  # (n, n): key 0
    found = {"self": _diagonal(n, 0), "first": Probe(column, every),
             "last": Probe(column[:, ::-1], every)}  # fmt: skip
    if n > 1:  # a one-token text has no previous or next token
        found |= {"previous": _diagonal(n, -1), "next": _diagonal(n, 1)}
    if n > 2:
        found["two_back"] = _diagonal(n, -2)
    is_special = np.asarray(special, dtype=bool)
    if is_special.any():
        found["special"] = Probe(np.broadcast_to(is_special, (n, n)), every)
    w = np.asarray(words)
    same = (w[:, None] == w[None, :]) & ~np.eye(n, dtype=bool)
    if same.any():
        found["same_word"] = Probe(same, np.asarray(same.any(axis=1)))
    induction = _induction(tokens)
    if induction.any():
        found["induction"] = Probe(induction, np.asarray(induction.any(axis=1)))
    if causal and n > 1:
        chosen = every.copy()
        chosen[0] = False
        found = {name: Probe(p.keys, p.queries & chosen) for name, p in found.items()}
        found = {name: p for name, p in found.items() if p.queries.any()}
    return found


def entropy(attentions: np.ndarray, causal: bool = False) -> np.ndarray:
    """(…, n, n) → (…): each row's entropy in nats (0 · log 0 = 0), averaged over rows
    (``causal``: over the rows after the first, when there are any)."""
    a = attentions
    if causal and a.shape[-2] > 1:
        a = a[..., 1:, :]
    logs = np.log(np.where(a > 0, a, 1))
    out: np.ndarray = -np.einsum("...ij,...ij->...", a, logs, dtype=np.float64) / a.shape[-2]
    return out


def sink(attentions: np.ndarray, causal: bool = False) -> np.ndarray:
    """(…, n, n) → (…): the weight on the first key, averaged over the queries (``causal``:
    after the first, which has no choice): the attention sink of Xiao et al., "Efficient
    Streaming Language Models with Attention Sinks" (ICLR 2024)."""
    column = attentions[..., 1:, 0] if causal and attentions.shape[-2] > 1 else attentions[..., 0]
    out: np.ndarray = column.mean(axis=-1, dtype=np.float64)
    return out


def scores(attentions: np.ndarray, found: dict[str, Probe]) -> dict[str, np.ndarray]:
    """(…, n, n) → each pattern's score (…): the weight on its keys, averaged over its
    queries."""
    a = attentions
    return {  # einsum: no (…, n, n) temporary per pattern
        name: np.einsum("...ij,ij->...i", a, probe.keys.astype(a.dtype), dtype=np.float64)[
            ..., probe.queries
        ].mean(axis=-1)
        for name, probe in found.items()
    }


def label(head_scores: dict[str, float]) -> str:
    """The pattern with the best score (ties: the more specific), or ``broad``; a fixed
    offset that takes most of the weight is preferred to ``induction`` (module docstring)."""
    ranked = [p for p in PATTERNS if p in head_scores]
    best = max(ranked, key=lambda p: head_scores[p], default=None)
    if best is None or head_scores[best] < THRESHOLD:
        return BROAD
    if best == "induction":
        floor = max(THRESHOLD, head_scores[best] - OFFSET_MARGIN)
        offsets = [p for p in POSITIONAL if head_scores.get(p, 0.0) >= floor]
        if offsets:
            return max(offsets, key=lambda p: head_scores[p])
    return best


def summarise(
    attentions: np.ndarray,
    tokens: Sequence[str],
    special: Sequence[bool],
    words: Sequence[int],
    causal: bool = False,
) -> Any:
    """(n, n) → one summary; (layers, heads, n, n) → ``[layer][head]`` summaries. Each
    is ``{"pattern", "entropy", "scores": {pattern: score}}``."""
    found = probes(tokens, special, words, causal)
    all_scores = scores(attentions, found)
    entropies = entropy(attentions, causal)

    def one(index: tuple[int, ...]) -> dict[str, Any]:
        s = {name: round(float(v[index]), DIGITS) for name, v in all_scores.items()}
        return {"pattern": label(s), "entropy": round(float(entropies[index]), DIGITS), "scores": s}

    if attentions.ndim == 2:
        return one(())
    layers, heads = attentions.shape[:2]
    return [[one((layer, head)) for head in range(heads)] for layer in range(layers)]


def set_aside(attentions: np.ndarray, aside: Sequence[bool]) -> np.ndarray:
    """(…, n, n) → (…, m, m): the queries and keys not ``aside``, each row rescaled to
    sum to 1 over the kept keys (a row with no weight left stays 0)."""
    keep = ~np.asarray(aside, dtype=bool)
    kept = np.asarray(attentions, dtype=np.float64)[..., keep, :][..., keep]
    total = kept.sum(axis=-1, keepdims=True)
    out: np.ndarray = np.divide(kept, total, out=np.zeros_like(kept), where=total > 0)
    return out


def of_trace(
    spec: ModelSpec, trace: Trace, aside: Sequence[bool] | None = None
) -> list[list[dict[str, Any]]]:
    """``[layer][head]`` summaries of one sentence through the model ``spec`` describes:
    its special tokens, its WordPiece words, its causal mask; with ``aside`` (one flag a
    token, some set), on the other tokens only (``set_aside``, module docstring)."""
    tokens = list(trace.tokens)
    special = [t in spec.special_tokens for t in tokens]
    words = word_ids(tokens, spec.tokenizer.startswith("WordPiece"))
    attentions = np.asarray(trace.attentions)
    if aside is not None and any(aside) and not all(aside):
        kept = [i for i, out in enumerate(aside) if not out]
        attentions = set_aside(attentions, aside)
        tokens = [tokens[i] for i in kept]
        special = [special[i] for i in kept]
        words = [words[i] for i in kept]
    found: list[list[dict[str, Any]]] = summarise(attentions, tokens, special, words, spec.causal)
    return found
