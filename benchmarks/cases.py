"""Request bodies the API benchmark uses: the running example and random L × 64 cases."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.attention import run
from app.inputs.body import AttentionRequest
from app.presets import RUNNING_EXAMPLE
from app.wire import stages_to_chunks


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


def response_bytes(body: dict[str, Any]) -> bytes:
    """The real endpoint's response body for ``body``."""
    stages = run(AttentionRequest.model_validate(body).to_input())
    return b"".join(stages_to_chunks(stages))
