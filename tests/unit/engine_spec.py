"""Shared helpers for the engine tests: the running example as numpy arrays and a runner.

``data/running-example.json`` is a verbatim copy of ``shared/spec/running-example.json``
(the chapter's numbers), kept in the repository so the tests run on a clean clone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from app.attention import AttentionInput, Stages, run

SPEC: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "running-example.json").read_text(encoding="utf-8")
)


def arr(m: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.asarray(m, dtype=np.float64)


def example_input(**changes: Any) -> AttentionInput:
    """The running example as an engine input, with ``changes`` applied."""
    fields: dict[str, Any] = {
        "x": arr(SPEC["x"]),
        "w_q": arr(SPEC["w_q"]),
        "w_k": arr(SPEC["w_k"]),
        "w_v": arr(SPEC["w_v"]),
        "tokens": tuple(SPEC["tokens"]),
    }
    fields.update(changes)
    return AttentionInput(**fields)


def run_example(**changes: Any) -> Stages:
    return run(example_input(**changes))


def round2(m: Any) -> list[Any]:
    """Round half away from zero to 2 dp, as the chapter prints (0.5 -> 0.5, 0.125 -> 0.13)."""
    a = np.asarray(m, dtype=np.float64)
    return (np.sign(a) * np.floor(np.abs(a) * 100 + 0.5) / 100).tolist()  # type: ignore[no-any-return]
