"""Request bodies the API benchmark uses: the running example and random L × 64 cases,
and for each many variants that differ in X (``varied``), so that no cache can answer."""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np

from app.attention import run
from app.inputs.body import AttentionRequest
from app.presets import RUNNING_EXAMPLE
from app.wire import stages_to_chunks

VARIANTS = 256  # bodies per case, each with its own X (a cycle longer than any cache hit)


def random_body(length: int, d: int = 64, seed: int = 0) -> dict[str, Any]:
    """Projection mode, L tokens of width d, weights scaled so the scores stay moderate."""
    rng = np.random.default_rng(seed)
    body: dict[str, Any] = {"x": rng.normal(size=(length, d)).round(4).tolist()}
    for name in ("w_q", "w_k", "w_v"):
        body[name] = (rng.normal(size=(d, d)) / np.sqrt(d)).round(4).tolist()
    return body


CASES: dict[str, dict[str, Any]] = {
    "running-example": RUNNING_EXAMPLE,
    "L256-d64": random_body(256),
}


def varied(name: str, count: int = VARIANTS, seed: int = 1) -> list[dict[str, Any]]:
    """``count`` bodies of case ``name`` with pairwise different random X of its shape
    (small integers when the case's X is integers, as the running example's is, else
    normals to 4 digits), the rest of the body unchanged. Deterministic in ``seed``."""
    body = CASES[name]
    x = np.asarray(body["x"], dtype=float)
    integers = bool(np.all(x == np.round(x)))
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    seen: set[bytes] = set()
    while len(out) < count:
        new = rng.integers(-2, 3, size=x.shape) if integers else rng.normal(size=x.shape)
        new = new.round(4)
        if new.tobytes() in seen:  # a repeat would let a cache answer it
            continue
        seen.add(new.tobytes())
        out.append({**body, "x": new.tolist()})
    return out


def response_bytes(body: dict[str, Any]) -> bytes:
    """The real endpoint's response body for ``body``."""
    stages = run(AttentionRequest.model_validate(body).to_input())
    return b"".join(stages_to_chunks(stages))


def response_size(name: str) -> int:
    """The median size of the real responses to the case's first 16 variants."""
    return int(statistics.median(len(response_bytes(b)) for b in varied(name, 16)))
