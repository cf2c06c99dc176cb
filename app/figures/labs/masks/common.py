"""What the three figures of the masks lab share: D1's length L and scores S (D2 and D3
read them), and the masks D1's controls switch on. PURE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from app.figures.labs.base import FigureContext
from app.figures.labs.words import vec
from app.labs import masks

# The default S (our reconstruction): row q_1 reproduces the chapter's 0.4551; the rest are
# our example.
S_DEFAULT = (
    (1.0, 0.5, -0.5, 0.0),
    (0.5, 1.5, 0.0, -1.0),
    (0.0, 1.0, 2.0, 0.5),
    (-0.5, 0.5, 1.0, 1.5),
)


L_MIN, L_MAX = 2, 8


D1 = "mask-kinds"  # the figure holding the shared L and S, and the masks D2 and D3 may use


def queries(n: int) -> tuple[str, ...]:
    """The rows of S: queries q_1 … q_n (the product counts what a person reads from 1;
    URL controls such as ``pad`` keep counting from 0)."""
    return tuple(vec("q", i) for i in range(n))


def keys(n: int) -> tuple[str, ...]:
    return tuple(vec("k", j) for j in range(n))


def resized(s: Any, n: int) -> tuple[tuple[float, ...], ...]:
    """S as n × n: kept cells stay, new cells are 0 (LABS.md §6)."""
    return tuple(
        tuple(float(s[i][j]) if i < len(s) and j < len(s) else 0.0 for j in range(n))
        for i in range(n)
    )


def settle_d1(v: dict[str, Any]) -> dict[str, Any]:
    """S follows L; padded keys past L are dropped; a window wider than L becomes L."""
    n = int(v["L"])
    out = dict(v, S=resized(v["S"], n), pad=tuple(j for j in v["pad"] if j < n))
    if out["window"] != "off" and int(out["window"]) > n:
        out["window"] = str(n)
    return out


def shared(ctx: FigureContext, v: Mapping[str, Any]) -> Mapping[str, Any]:
    """D1's values (L, S and its masks): D1's own, or those of the figure read."""
    return v if "L" in v else ctx.others[D1]


def scores_of(d1: Mapping[str, Any]) -> Any:
    return np.asarray(d1["S"], dtype=np.float64)


def active_masks(v: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(name, allowed) of each active mask of D1's controls."""
    n = int(v["L"])
    active: list[tuple[str, Any]] = []
    if v["causal"]:
        active.append(("causal", masks.causal(n, n)))
    if v["pad"]:
        padded = [j in v["pad"] for j in range(n)]
        names = ", ".join(vec("k", j) for j in v["pad"])
        active.append((f"padding ({names})", masks.padding(n, padded)))
    if v["window"] != "off":
        w = int(v["window"])
        active.append(
            (
                f"window w = {w}" + (" (causal)" if v["causal"] else ""),
                masks.window(n, n, w, causal_too=bool(v["causal"])),
            )
        )
    return active


def d1_allowed(v: Mapping[str, Any]) -> Any:
    """The AND of D1's active masks (every cell allowed when none is on)."""
    n = int(v["L"])
    return masks.combine([m for _, m in active_masks(v)], (n, n))
