"""What the cost lab's figures share: the base configuration, the axes' values, the
FLOP terms and how a byte count or a large number is printed. PURE.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.figures import fmt
from app.labs import cost

BASE = cost.Config()


POWERS = tuple(2**k for k in range(17))  # 1 … 65,536


HEADS = (1, 2, 4, 8, 16, 32, 64)  # powers of two: each divides every d_model offered


TERMS = (
    ("projections", "projections 3·N·d_model²"),
    ("scores", "scores N²·d_model"),
    ("weighted_sum", "weighted sum N²·d_model"),
    ("output_projection", "output projection N·d_model²"),
)


def byte_text(n: int) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{fmt.derived(n / size, 1)} {unit} ({fmt.count(n)} bytes)"
    return f"{fmt.count(n)} bytes"


def short_number(n: float) -> str:
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{fmt.significant(n / size, 3)} {unit}"
    return fmt.significant(n)


def config_of(**sizes: Any) -> dict[str, Any]:
    """The base model's sizes with ``sizes`` changed, as the keyword arguments of the
    script's ``cost`` (the body of POST /api/v1/cost)."""
    return {**dataclasses.asdict(BASE), **sizes}
