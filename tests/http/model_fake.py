"""A small model with random weights for the model pages' HTTP tests: the ``Model``
protocol of ``app.models.base`` (a WordPiece-like encoder with [CLS]/[SEP], or a causal
character model), patched into ``app.web.model_views`` so the pages are tested whether or
not the real encoder is installed. Its attention is computed from its own head slices,
the way ``head_body`` describes a head, so the main page's Figure 6 can be checked."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from app.models.base import HeadWeights, ModelSpec, Trace
from app.models.errors import ModelInputError
from app.web import model_views

ENCODER = ModelSpec("fake-encoder", "Fake encoder", False, 2, 3, 8, 4, "MIT", "https://example.org/fake",
                    "WordPiece (uncased)", 12, ("[CLS]", "[SEP]"))  # fmt: skip
DECODER = ModelSpec("fake-decoder", "Fake decoder", True, 1, 2, 6, 3, "MIT",
                    "trained here by tests", "characters", 10, ())  # fmt: skip
MISSING = ModelSpec("fake-missing", "Fake missing", False, 1, 1, 4, 4, "MIT", "https://example.org/m",
                    "WordPiece (uncased)", 8, ("[CLS]", "[SEP]"))  # fmt: skip


class FakeModel:
    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        rng = np.random.default_rng(1)
        shape = (spec.layers, spec.heads, 3, spec.d_model + 1, spec.d_k)
        self.w = rng.normal(0, 0.7, shape).astype(np.float32)

    def tokenize(self, text: str) -> list[str]:
        if self.spec.causal:
            if any(c.isdigit() for c in text):
                raise ModelInputError("text", "the fake decoder reads no digits")
            return list(text)
        pieces = []
        for word in re.findall(r"\w+|[^\w\s]", text.lower()):
            pieces += [word[:3]] + ([f"##{word[3:]}"] if len(word) > 3 else [])
        return ["[CLS]", *pieces, "[SEP]"]

    def x(self, n: int, layer: int) -> np.ndarray[Any, Any]:
        rng = np.random.default_rng(10 * n + layer)
        return rng.normal(0, 1, (n, self.spec.d_model)).astype(np.float32)

    def trace(self, text: str) -> Trace:
        tokens = self.tokenize(text)
        n, s = len(tokens), self.spec
        mask = np.triu(np.ones((n, n), dtype=bool), 1) if s.causal else None
        inputs = tuple(self.x(n, layer) for layer in range(s.layers))
        attentions = np.zeros((s.layers, s.heads, n, n), dtype=np.float32)
        for layer in range(s.layers):
            x1 = np.hstack([inputs[layer], np.ones((n, 1), np.float32)]).astype(np.float64)
            for h in range(s.heads):
                w = self.w[layer, h].astype(np.float64)
                scores = (x1 @ w[0]) @ (x1 @ w[1]).T / np.sqrt(s.d_k)
                if mask is not None:
                    scores = np.where(mask, -np.inf, scores)
                e = np.exp(scores - scores.max(axis=1, keepdims=True))
                attentions[layer, h] = e / e.sum(axis=1, keepdims=True)
        return Trace(tuple(tokens), inputs, attentions, mask)

    def head(self, layer: int, head: int) -> HeadWeights:
        w = self.w[layer, head]
        return HeadWeights(w[0, :-1], w[0, -1], w[1, :-1], w[1, -1], w[2, :-1], w[2, -1])


def head_body(model: FakeModel, text: str, layer: int, head: int) -> dict[str, Any]:
    """The contract's body: X with a column of ones, each W with its bias as a last row."""
    trace = model.trace(text)
    n = len(trace.tokens)
    x = np.hstack([trace.layer_inputs[layer], np.ones((n, 1), np.float32)])
    w = model.head(layer, head)

    def fold(m: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> Any:
        return np.vstack([m, b[None, :]]).astype(np.float64).tolist()

    body = {"tokens": list(trace.tokens), "x": x.astype(np.float64).tolist(),
            "w_q": fold(w.W_q, w.b_q), "w_k": fold(w.W_k, w.b_k), "w_v": fold(w.W_v, w.b_v),
            "scale": True, "mask": "causal" if model.spec.causal else "none"}  # fmt: skip
    return body


def summarise(trace: Trace) -> list[list[dict[str, Any]]]:
    a = trace.attentions.astype(np.float64)
    entropy = -(a * np.log(np.where(a > 0, a, 1.0))).sum(axis=-1).mean(axis=-1)
    names = ("previous", "self", "broad", "first", "induction", "next")
    return [[{"pattern": names[(i + j) % len(names)], "entropy": float(entropy[i, j]), "scores": {}}
             for j in range(a.shape[1])] for i in range(a.shape[0])]  # fmt: skip


MODELS = {spec.id: FakeModel(spec) for spec in (ENCODER, DECODER, MISSING)}


def install(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakeModel]:
    """Patch the fakes into the pages: two installed, ``fake-missing`` not."""
    ready = {ENCODER.id, DECODER.id}
    listed = [model_views.Listed(m.spec, i in ready, None if i in ready else
              f"attention-lab models install {i}") for i, m in MODELS.items()]  # fmt: skip
    monkeypatch.setattr(model_views, "listed", lambda: listed)
    monkeypatch.setattr(model_views, "load", MODELS.__getitem__)
    monkeypatch.setattr(model_views, "summarise", lambda model, trace, aside=None: summarise(trace))
    monkeypatch.setattr(
        model_views, "head_body", lambda i, t, layer, h: head_body(MODELS[i], t, layer, h)
    )
    return MODELS
