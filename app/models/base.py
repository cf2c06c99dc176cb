"""The types every model shares: its spec, one head's weights, a traced forward pass.

A model is data plus two functions: ``tokenize`` (how it splits a text, special tokens
included) and ``trace`` (the attention of every layer and head, and the rows each layer's
Q/K/V projections read). ``head`` gives one head's slices of W^Q, W^K, W^V and their
biases, so that a head can be opened in the figures as an ordinary state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class ModelSpec:
    """What a model is, without its weights (the registry's entry, the API's listing)."""

    id: str  # "minilm", "tiny-decoder"
    name: str  # "all-MiniLM-L6-v2", …
    causal: bool
    layers: int
    heads: int
    d_model: int
    d_k: int
    licence: str  # e.g. "Apache-2.0"
    source: str  # a URL, or "trained here by training/…"
    tokenizer: str  # "WordPiece (uncased)", "characters", …
    max_tokens: int  # longest input accepted (special tokens included)
    special_tokens: tuple[str, ...]  # e.g. ("[CLS]", "[SEP]"); () for none
    # Grouped-query attention: query heads share kv_heads key/value heads (query head h
    # reads key/value head h // (heads // kv_heads)); None = one each (multi-head).
    kv_heads: int | None = None
    rope_base: float | None = None  # RoPE's base θ when q and k are rotated, else None
    # How the weights are stored, when not as the float32 the forward computes in (the
    # model page says it: "4-bit weights, dequantized"); None for plain float32.
    weights: str | None = None

    @property
    def key_value_heads(self) -> int:
        """How many key/value heads there are (``heads`` for multi-head attention)."""
        return self.kv_heads or self.heads

    def kv_head(self, head: int) -> int:
        """The key/value head query head ``head`` reads: consecutive query heads share
        one, ``head // (heads // kv_heads)`` (as ``app.models.llama.grouped_attention``
        lays a group's queries side by side)."""
        return head // (self.heads // self.key_value_heads)

    def head_groups(self) -> list[list[int]]:
        """[kv_head] the query heads that read it, e.g. 9 and 3: [[0, 1, 2], [3, 4, 5],
        [6, 7, 8]]; one query head each without grouping."""
        groups: list[list[int]] = [[] for _ in range(self.key_value_heads)]
        for head in range(self.heads):
            groups[self.kv_head(head)].append(head)
        return groups


@dataclass(frozen=True)
class HeadWeights:
    """One head's slices, float32 as stored: x·W_q + b_q is that head's query."""

    W_q: np.ndarray  # (d_model, d_k)
    b_q: np.ndarray  # (d_k,)
    W_k: np.ndarray  # (d_model, d_k)
    b_k: np.ndarray  # (d_k,)
    W_v: np.ndarray  # (d_model, d_v)
    b_v: np.ndarray  # (d_v,)


@dataclass(frozen=True)
class Trace:
    """One forward pass, kept for display: tokens, each layer's input, every head's weights."""

    tokens: tuple[str, ...]
    # [layer] (n, d_model): exactly the rows each layer's Q/K/V projections read
    # (pre-LN models: after the LN).
    layer_inputs: tuple[np.ndarray, ...]
    attentions: np.ndarray  # (layers, heads, n, n) float32, rows sum to 1
    mask: np.ndarray | None  # (n, n) bool, True = blocked (causal models), else None
    # What each head's weights were computed from, for models that keep them (None
    # otherwise): q after RoPE (layers, heads, n, d_k); k after RoPE and v per key/value
    # head (layers, kv_heads, n, d_k).
    queries: np.ndarray | None = None
    keys: np.ndarray | None = None
    values: np.ndarray | None = None


class Model(Protocol):
    """A loaded model: its spec, its tokenizer, its traced forward pass, its heads."""

    spec: ModelSpec

    def tokenize(self, text: str) -> list[str]:
        """The tokens as the model splits ``text``, special tokens included."""
        ...

    def trace(self, text: str) -> Trace:
        """The forward pass of ``text`` with every layer's input and attention."""
        ...

    def head(self, layer: int, head: int) -> HeadWeights:
        """Head ``head`` of layer ``layer`` (both 0-based)."""
        ...
