"""The tiny causal decoder trained here: its spec, its letter tokenizer, its numpy forward.

Trained by training/train_decoder.py (recipe and losses in training/README.md and in
data/tiny-decoder.json) on "[BOS] then a random run of letters, repeated", so that its heads
learn jobs a learner can name: KNOWN_HEADS says which head does what on a repeated
sequence, and tests/unit/test_decoder_heads.py measures it.

The forward pass, float32 throughout, each step as written in the training script:

    x_0 = E[token] + P[position]
    layer l:  h = LN_l(x)   (the rows its Q/K/V projections read: Trace.layer_inputs[l])
              x = x + concat_heads(softmax(mask(q·kᵀ/√d_k))·v)·W_o + b_o
    logits = LN_f(x)·U + c

Attention-only (no MLP); the mask is causal: row i sees keys 0..i, and a blocked weight is
exactly 0 (exp(−inf)).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.models.base import HeadWeights, ModelSpec, Trace
from app.models.errors import ModelInputError
from app.models.weights import load_tensors

# The model's folder, shipped inside the package (the registry pins both files' sha256).
DATA = Path(__file__).resolve().parent / "data"
WEIGHTS = "tiny-decoder.safetensors"
CONFIG = "tiny-decoder.json"

_config: dict[str, Any] = json.loads((DATA / CONFIG).read_text(encoding="utf-8"))
ALPHABET: str = _config["alphabet"]
BOS: str = _config["bos"]
_LETTERS = frozenset(ALPHABET)

SPEC = ModelSpec(
    id="tiny-decoder",
    name="Tiny induction decoder",
    causal=True,
    layers=_config["layers"],
    heads=_config["heads"],
    d_model=_config["d_model"],
    d_k=_config["d_k"],
    licence="MIT",
    source="trained here by training/train_decoder.py",
    tokenizer=f"letters {ALPHABET[0]}–{ALPHABET[-1]}, one token each",
    max_tokens=_config["max_tokens"],
    special_tokens=(BOS,),
)

# What each head does on a repeated sequence ([BOS] + s + s), [layer][head], 0-based; the
# names are app.models.summaries' patterns, and the head test checks every one of them.
# Layer 1: heads 1 and 4 look at the previous letter, head 3 two letters back (on any
# text, tests/unit/test_decoder_heads.py), head 2 spreads over the row. Layer 2: every
# head is an induction head (the letter after the previous occurrence of its own).
KNOWN_HEADS: tuple[tuple[str, ...], ...] = (
    ("previous", "broad", "two_back", "previous"),
    ("induction", "induction", "induction", "induction"),
)


def tokenize(text: str) -> list[str]:
    """[BOS] then one token per letter; spaces are skipped, capitals read as small letters."""
    tokens = [BOS]
    for character in text:
        if character.isspace():
            continue
        letter = character.lower()
        if letter not in _LETTERS:
            raise ModelInputError(
                "text",
                f"{character!r} is not a letter the tiny decoder knows; it reads only "
                f"{ALPHABET[0]}–{ALPHABET[-1]} ({ALPHABET}), and skips spaces",
            )
        tokens.append(letter)
    if len(tokens) > SPEC.max_tokens:
        raise ModelInputError(
            "text",
            f"{len(tokens) - 1} letters is too long: the tiny decoder reads at most "
            f"{SPEC.max_tokens - 1} (its context is {SPEC.max_tokens} tokens with {BOS})",
        )
    return tokens


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """Each row scaled to mean 0 and variance 1 (biased), then weight·row + bias."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + np.float32(eps)) * weight + bias
    return out


def causal_mask(n: int) -> np.ndarray:
    """(n, n) bool, True = blocked: row i may look at keys 0..i only."""
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def masked_softmax(scores: np.ndarray, blocked: np.ndarray) -> np.ndarray:
    """Row softmax of (..., n, n) scores with blocked entries exactly 0."""
    s = np.where(blocked, np.float32(-np.inf), scores)
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # exp(−inf) = 0: blocked stays 0
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


@dataclass(frozen=True)
class Forward:
    """Everything one pass computes: logits for the next letter and what the page shows."""

    logits: np.ndarray  # (n, vocab)
    layer_inputs: tuple[np.ndarray, ...]  # [layer] (n, d_model), after that layer's LN
    attentions: np.ndarray  # (layers, heads, n, n)


class TinyDecoder:
    """The loaded model (``Model`` protocol of app.models.base)."""

    spec = SPEC

    def __init__(self, tensors: dict[str, np.ndarray], config: dict[str, Any]) -> None:
        for array in tensors.values():
            array.setflags(write=False)  # shared by every request of the worker
        self.t = tensors
        self.eps = float(config["ln_eps"])
        self.ids = {token: i for i, token in enumerate(config["vocab"])}

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)

    def forward(self, tokens: list[str]) -> Forward:
        """The whole pass over ``tokens`` (from ``tokenize``)."""
        t, n = self.t, len(tokens)
        H, d_k = SPEC.heads, SPEC.d_k
        x = t["tok_embed"][[self.ids[token] for token in tokens]] + t["pos_embed"][:n]
        blocked = causal_mask(n)
        inputs, attentions = [], []
        for i in range(SPEC.layers):
            w = {
                name: t[f"layers.{i}.{name}"]
                for name in ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")
            }
            h = layer_norm(x, t[f"layers.{i}.ln.weight"], t[f"layers.{i}.ln.bias"], self.eps)
            # (n, d_model) -> (H, n, d_k): head j owns columns j·d_k … (j+1)·d_k − 1
            q, k, v = (
                (h @ w[f"W_{c}"] + w[f"b_{c}"]).reshape(n, H, d_k).transpose(1, 0, 2) for c in "qkv"
            )
            a = masked_softmax(q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(d_k)), blocked)
            z = (a @ v).transpose(1, 0, 2).reshape(n, H * d_k)
            x = x + z @ w["W_o"] + w["b_o"]
            inputs.append(h)
            attentions.append(a)
        logits = (
            layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], self.eps) @ t["unembed.W"]
            + t["unembed.b"]
        )
        return Forward(logits, tuple(inputs), np.stack(attentions))

    def trace(self, text: str) -> Trace:
        tokens = tokenize(text)
        f = self.forward(tokens)
        return Trace(tuple(tokens), f.layer_inputs, f.attentions, causal_mask(len(tokens)))

    def head(self, layer: int, head: int) -> HeadWeights:
        """Head ``head`` of layer ``layer`` (0-based; app.models.head_state checks them)."""
        cols = slice(head * SPEC.d_k, (head + 1) * SPEC.d_k)
        t = {
            name: self.t[f"layers.{layer}.{name}"]
            for name in ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v")
        }
        return HeadWeights(
            W_q=t["W_q"][:, cols], b_q=t["b_q"][cols],
            W_k=t["W_k"][:, cols], b_k=t["b_k"][cols],
            W_v=t["W_v"][:, cols], b_v=t["b_v"][cols],
        )  # fmt: skip


def load(folder: Path) -> TinyDecoder:
    """The model from its folder (the registry has verified both files' sha256)."""
    config = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
    return TinyDecoder(load_tensors(folder / WEIGHTS), config)
