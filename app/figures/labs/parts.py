"""Small pieces several labs share: a preset's body, a chart without the
mode bar and a weights/values grid. PURE."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import grid
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


def matrix_grid(
    name: str,
    label: str,
    values: Any,
    rows: Sequence[str],
    cols: Sequence[str],
    theme: str,
    *,
    dp: int = 2,
    blocked: Any = None,
    role: str | None = None,
    row_title: str = "",
    col_title: str = "",
    blocked_text: str = "0",
    hover_name: str = "",
    outline: Json | None = None,
) -> Json:
    """A grid of ``values`` printed to ``dp`` decimals; cells where ``blocked`` is True are
    drawn as gaps (value −∞ on the wire as null) printed ``blocked_text``."""
    m = np.asarray(values, dtype=np.float64)
    shown = m if blocked is None else np.where(blocked, -np.inf, m)
    text = [
        [blocked_text if not np.isfinite(v) else fmt.derived(float(v), dp) for v in row]
        for row in shown
    ]
    what = hover_name or label
    hover = [
        [
            f"{what}[{rows[i]}, {cols[j]}] = "
            + ("blocked" if not np.isfinite(shown[i, j]) else fmt.significant(float(m[i, j]), 10))
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
    )
