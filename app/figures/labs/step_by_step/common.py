"""What B1 and B2 share: the two-token preset, the steps, and the course module's
precision (4 significant digits, 3 decimals below 1; grids 4 decimals). PURE.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import grid
from app.figures.labs.base import Json
from app.figures.labs.parts import preset_body

TWO = preset_body("two-tokens")


STEPS = ((1, "1 scores"), (2, "2 scale"), (3, "3 mask"), (4, "4 softmax"), (5, "5 weighted sum"))


def n(x: float) -> str:
    """The module's precision: whole numbers bare, 3 decimals below 1, else 4 significant
    digits (a value, a derived number or a power of ten: one minus sign, from fmt)."""
    if math.isinf(x) or float(x).is_integer():
        return fmt.value(x)
    return fmt.derived(x, 3) if abs(x) < 1 else fmt.significant(x, 4)


def d4(x: float) -> str:
    return fmt.NEG_INF if math.isinf(x) else fmt.derived(x, 4)


def vec(xs: Any) -> str:
    return "[" + ", ".join(n(float(x)) for x in xs) + "]"


def grid4(
    name: str, label: str, m: Any, rows: list[str], cols: list[str], t: Any, **kw: Any
) -> Json:
    """A grid by role: weights (``weights``, ``ghost``) and outputs to 4 decimals, as the
    course module prints them (0 and 1 bare; a weight the decimals would print as 0 or 1
    when it is not: a power of ten, '>0.9999'), every input and score as a value ('3', '−12.73',
    '−∞')."""
    arr = np.asarray(m, dtype=np.float64)
    text = [[_cell(name, float(x)) for x in r] for r in arr.tolist()]
    return grid(name, label, arr, rows=rows, cols=cols, theme=t.name, text=text, **kw)


def _cell(name: str, x: float) -> str:
    if name in ("weights", "ghost"):
        return fmt.small_weight(x, 4)  # the ghost's 0.000003 is not 0
    return d4(x) if name == "output" else fmt.value(x)
