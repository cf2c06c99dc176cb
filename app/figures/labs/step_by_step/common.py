"""What B1 and B2 share: the two-token preset, the steps, and the course module's
precision (4 significant digits, 3 decimals below 1; grids 4 decimals). PURE.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.figures.grid import grid
from app.figures.labs.base import Json
from app.figures.labs.parts import preset_body

TWO = preset_body("two-tokens")


STEPS = ((1, "1 scores"), (2, "2 scale"), (3, "3 mask"), (4, "4 softmax"), (5, "5 weighted sum"))


MINUS = "−"


def n(x: float) -> str:
    """The module's precision: whole numbers bare, 4 significant digits, 3 decimals below 1."""
    if math.isinf(x):
        return MINUS + "∞" if x < 0 else "∞"
    if float(x).is_integer():
        return str(int(x)).replace("-", MINUS)
    text = f"{x:.3f}" if abs(x) < 1 else f"{x:.4g}"
    return text.replace("-", MINUS)


def d4(x: float) -> str:
    if math.isinf(x):
        return MINUS + "∞"
    return f"{x:.4f}".replace("-", MINUS)


def vec(xs: Any) -> str:
    return "[" + ", ".join(n(float(x)) for x in xs) + "]"


def grid4(
    name: str, label: str, m: Any, rows: list[str], cols: list[str], t: Any, **kw: Any
) -> Json:
    arr = np.asarray(m, dtype=np.float64)
    text = [[d4(float(x)) for x in r] for r in arr.tolist()]
    return grid(name, label, arr, rows=rows, cols=cols, theme=t.name, text=text, **kw)
