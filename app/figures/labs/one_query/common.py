"""Number formats the one-query figures share (3 and 4 decimals, a true minus sign)
and the names of A1's items. PURE.
"""

from __future__ import annotations

ITEMS = ("item 0", "item 1", "item 2")


def f3(x: float) -> str:
    return f"{x:.3f}".replace("-0.000", "0.000")


def f4(x: float) -> str:
    return f"{x:.4f}".replace("-0.0000", "0.0000")


def signed(x: float, dp: int = 3) -> str:
    return f"{x:.{dp}f}".replace("-", "−")
