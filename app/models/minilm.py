"""all-MiniLM-L6-v2 in numpy: a 6-layer BERT encoder (12 heads, d_model 384, d_k 32).

The forward pass, float32 as the weights are stored, step by step as BERT defines it:
embeddings (word + position + token type 0) then LayerNorm; in each layer, multi-head
self-attention softmax(Q Kᵀ / √32) V with every key visible (no padding: one sentence),
its output projection, a residual and LayerNorm (post-LN), then the feed-forward
GELU(x W_1 + b_1) W_2 + b_2 (exact-erf GELU), a residual and LayerNorm. ``trace`` keeps
what the product shows: the tokens, each layer's input (the rows its Q/K/V read) and
every head's attention weights. Weights are torch ``Linear`` layouts (out × in), used
through transposed views, never copied.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from app.models.base import HeadWeights, ModelSpec, Trace
from app.models.erf import gelu
from app.models.errors import ModelInputError
from app.models.weights import load_tensors
from app.models.wordpiece import CLS, SEP, WordPiece

SPEC = ModelSpec(
    id="minilm",
    name="all-MiniLM-L6-v2",
    causal=False,
    layers=6,
    heads=12,
    d_model=384,
    d_k=32,
    licence="Apache-2.0",
    source="https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
    tokenizer="WordPiece (uncased)",
    # 128 tokens: the length the model was fine-tuned at, and 72 heads of 128 × 128
    # weights (1.2 million numbers) is what a page can draw within a second.
    max_tokens=128,
    special_tokens=(CLS, SEP),
)
WEIGHTS = "model.safetensors"
VOCABULARY = "vocab.txt"
LAYER_NORM_EPS = 1e-12  # config.json's layer_norm_eps


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(n, d) → (n, d): each row to mean 0 and variance 1, then scaled and shifted."""
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    out: np.ndarray = centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS)) * weight + bias
    return out


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """(…, n) → (…, n): the softmax of every row (shifted by its maximum: no overflow)."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


class MiniLM:
    """The loaded model: its tokenizer and weights (float32), and the forward pass."""

    spec = SPEC

    def __init__(self, tensors: dict[str, np.ndarray], vocabulary: list[str]) -> None:
        # Only what the forward pass reads (not the pooler, not position_ids).
        self.w = {k: v for k, v in tensors.items() if k.startswith(("embeddings.", "encoder."))}
        self.w.pop("embeddings.position_ids", None)
        self.wordpiece = WordPiece(vocabulary)

    def tokenize(self, text: str) -> list[str]:
        return self.wordpiece.tokenize(text)

    def _p(self, layer: int, name: str) -> np.ndarray:
        return self.w[f"encoder.layer.{layer}.{name}"]

    def _linear(self, x: np.ndarray, layer: int, name: str) -> np.ndarray:
        """x Wᵀ + b for the torch Linear ``name`` of ``layer``: (n, in) → (n, out)."""
        out: np.ndarray = x @ self._p(layer, f"{name}.weight").T + self._p(layer, f"{name}.bias")
        return out

    def _norm(self, x: np.ndarray, layer: int, name: str) -> np.ndarray:
        return layer_norm(
            x, self._p(layer, f"{name}.LayerNorm.weight"), self._p(layer, f"{name}.LayerNorm.bias")
        )

    def embed(self, tokens: list[str]) -> np.ndarray:
        """(n, d_model): word + position + token-type-0 embeddings, then LayerNorm."""
        ids = self.wordpiece.ids(tokens)
        e = self.w["embeddings.word_embeddings.weight"][ids]
        e = e + self.w["embeddings.position_embeddings.weight"][: len(ids)]
        e = e + self.w["embeddings.token_type_embeddings.weight"][0]
        return layer_norm(
            e, self.w["embeddings.LayerNorm.weight"], self.w["embeddings.LayerNorm.bias"]
        )

    def attention(self, x: np.ndarray, layer: int) -> tuple[np.ndarray, np.ndarray]:
        """(n, d_model) → (the heads' weights (heads, n, n), their concatenated outputs
        (n, d_model))."""
        n, h, d_k = len(x), SPEC.heads, SPEC.d_k

        def split(name: str) -> np.ndarray:  # (n, d_model) → (heads, n, d_k)
            return (
                self._linear(x, layer, f"attention.self.{name}")
                .reshape(n, h, d_k)
                .transpose(1, 0, 2)
            )

        q, k, v = split("query"), split("key"), split("value")
        weights = softmax_rows(q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(d_k)))
        return weights, (weights @ v).transpose(1, 0, 2).reshape(n, h * d_k)

    def layer(self, x: np.ndarray, layer: int) -> tuple[np.ndarray, np.ndarray]:
        """One encoder layer: (its input (n, d_model)) → (its weights, its output)."""
        weights, z = self.attention(x, layer)
        x = self._norm(
            x + self._linear(z, layer, "attention.output.dense"), layer, "attention.output"
        )
        hidden = gelu(self._linear(x, layer, "intermediate.dense"))
        x = self._norm(x + self._linear(hidden, layer, "output.dense"), layer, "output")
        return weights, x

    def trace(self, text: str) -> Trace:
        tokens = self.tokenize(text)
        if len(tokens) > SPEC.max_tokens:
            raise ModelInputError(
                "text",
                f"this text is {len(tokens)} tokens ({CLS} and {SEP} included); "
                f"{SPEC.name} takes at most {SPEC.max_tokens} here: shorten the text",
            )
        x = self.embed(tokens)
        inputs, attentions = [], []
        for layer in range(SPEC.layers):
            inputs.append(x)
            weights, x = self.layer(x, layer)
            attentions.append(weights)
        return Trace(tuple(tokens), tuple(inputs), np.stack(attentions), None)

    def head(self, layer: int, head: int) -> HeadWeights:
        cols = slice(head * SPEC.d_k, (head + 1) * SPEC.d_k)

        def part(name: str) -> tuple[np.ndarray, np.ndarray]:
            w, b = (
                self._p(layer, f"attention.self.{name}.weight"),
                self._p(layer, f"attention.self.{name}.bias"),
            )
            return w[cols].T, b[cols]

        (w_q, b_q), (w_k, b_k), (w_v, b_v) = part("query"), part("key"), part("value")
        return HeadWeights(W_q=w_q, b_q=b_q, W_k=w_k, b_k=b_k, W_v=w_v, b_v=b_v)


def load(folder: Path) -> MiniLM:
    """The model from its folder (files verified by the registry first)."""
    vocabulary = (folder / VOCABULARY).read_text(encoding="utf-8").splitlines()
    return MiniLM(load_tensors(folder / WEIGHTS), vocabulary)
