"""The fixtures of the masks, order, heads and cost labs (LABS.md §6-§9), copied into
``data/lab-fixtures.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

FIXTURES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "lab-fixtures.json").read_text(encoding="utf-8")
)


def four_head_patterns() -> list[np.ndarray[Any, np.dtype[np.float64]]]:
    """The four 10 × 10 weight patterns of F1, built from the fixture's table."""
    spec = FIXTURES["four_heads"]["patterns"]
    out = []
    for name in ("previous word", "coreference", "verb -> subject"):
        m = np.zeros((10, 10))
        m[np.arange(10), spec[name]] = 1.0
        out.append(m)
    last = np.zeros((10, 10))
    for key, weight in spec["start and because"].items():
        last[:, int(key)] = weight
    out.append(last)
    return out
