"""Small pieces several labs share: a preset's body, a chart without the
mode bar and a weights/values grid. PURE."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import ROLE_OF, grid
from app.presets import get_preset

Json = dict[str, Any]


def preset_body(name: str) -> dict[str, Any]:
    """A copy of a preset's request body (the fixtures of LABS.md are presets)."""
    found = get_preset(name)
    assert found is not None, name
    return dict(found["body"])


def chart(data: list[Json], layout: Json) -> Json:
    """A Plotly chart without the mode bar: the share toolbar already offers PNG and SVG,
    and the bar's buttons inside the panel's role="img" box would be nested controls."""
    return {"data": data, "layout": layout, "config": {"displayModeBar": False}}


def root_text(n: float) -> str:
    """'√4 = 2', '√2 ≈ 1.414': a root is exact only when it is whole."""
    r = math.sqrt(n)
    if r.is_integer():
        return f"√{fmt.value(n)} = {fmt.value(r)}"
    return f"√{fmt.value(n)} ≈ {fmt.derived(r, 3)}"


def cell_text(x: float, role: str, dp: int | None = None) -> str:
    """A grid cell's text by its role (fmt.py): weights 2 decimals, outputs 2 decimals,
    everything else a value; ``dp`` asks for a source's own precision (4 for B1)."""
    if role == "weights":
        return fmt.weight(x, dp or 2)
    if dp is not None:
        return fmt.derived(x, dp)
    if role == "z":
        return fmt.output(x)
    return fmt.value(x)


def matrix_grid(
    name: str,
    label: str,
    values: Any,
    rows: Sequence[str],
    cols: Sequence[str],
    theme: str,
    *,
    dp: int | None = None,
    blocked: Any = None,
    role: str | None = None,
    row_title: str = "",
    col_title: str = "",
    blocked_text: str = "0",
    hover_name: str = "",
    outline: Json | None = None,
    masked: Any = None,
) -> Json:
    """A grid of ``values`` printed by their role (``cell_text``); cells where
    ``blocked`` is True are masked: drawn as hatched gaps (value −∞ on the wire as null),
    printed ``blocked_text`` and flagged ``masked``. A grid named ``weights…`` has the
    weights' role (one hue on the page and in every lab). ``masked`` flags cells a mask
    touches that still carry a number (a −10⁹ mask, the discarded weight of D2)."""
    role = role or ("weights" if name.startswith("weights") else ROLE_OF.get(name, "x"))
    m = np.asarray(values, dtype=np.float64)
    shown = m if blocked is None else np.where(blocked, -np.inf, m)
    text = [
        [blocked_text if not np.isfinite(v) else cell_text(float(v), role, dp) for v in row]
        for row in shown
    ]
    what = hover_name or label
    hover = [
        [
            f"{what}[{rows[i]}, {cols[j]}] = "
            + (
                "masked: weight 0"
                if blocked is not None and blocked[i, j]
                else fmt.significant(float(m[i, j]), 10)
            )
            for j in range(m.shape[1])
        ]
        for i in range(m.shape[0])
    ]
    return grid(
        name,
        label,
        shown,
        rows=list(rows),
        cols=list(cols),
        theme=theme,
        role=role,
        text=text,
        hover=hover,
        row_title=row_title,
        col_title=col_title,
        outline=outline,
        masked=blocked if masked is None else masked,
    )
