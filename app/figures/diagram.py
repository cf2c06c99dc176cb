"""Drawing kit for the diagram figures (5, 10, 11, 13): boxes, arrows and labels as Plotly
shapes and annotations on hidden axes, in a 0 … 100 × 0 … ``h`` coordinate space.

An invisible scatter trace carries one hover point per box so diagrams hover like charts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.figures.style import Json, Theme, arrow, base_layout, hidden_axis


@dataclass
class Canvas:
    """Collects shapes, annotations and hover points, then becomes a figure's data/layout."""

    t: Theme
    height_units: float = 40.0
    shapes: list[Json] = field(default_factory=list)
    annotations: list[Json] = field(default_factory=list)
    points: list[tuple[float, float, str]] = field(default_factory=list)

    def box(
        self,
        x0: float,
        x1: float,
        y0: float,
        y1: float,
        label: str,
        *,
        role: str = "",
        off: bool = False,
        hover: str = "",
        bold: bool = True,
        size: int = 13,
    ) -> tuple[float, float]:
        """A labelled box; ``role`` tints the border; ``off`` draws it dashed and greyed."""
        t = self.t
        color = t.muted if off else (t.roles.get(role, t.fg) if role else t.fg)
        self.shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "y",
                "x0": x0,
                "x1": x1,
                "y0": y0,
                "y1": y1,
                "line": {
                    "color": color,
                    "width": 1.5 if off else 2.5,
                    "dash": "dash" if off else "solid",
                },
                "fillcolor": "rgba(0,0,0,0)" if off else t.box,
                "layer": "below",
            }
        )
        text = f"<b>{label}</b>" if bold and not off else label
        self.label(text, (x0 + x1) / 2, (y0 + y1) / 2, color=t.muted if off else t.fg, size=size)
        if hover:
            self.points.append(((x0 + x1) / 2, (y0 + y1) / 2, hover))
        return (x0 + x1) / 2, (y0 + y1) / 2

    def label(
        self, text: str, x: float, y: float, *, color: str = "", size: int = 12, **extra: Any
    ) -> None:
        ann: Json = {
            "text": text,
            "x": x,
            "y": y,
            "xref": "x",
            "yref": "y",
            "showarrow": False,
            "font": {"size": size, "color": color or self.t.fg},
        }
        ann.update(extra)
        self.annotations.append(ann)

    def arrow(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        text: str = "",
        *,
        dy: float = 2.2,
        color: str = "",
    ) -> None:
        """An arrow from (x0, y0) to (x1, y1) with an optional shape label above its middle."""
        self.annotations.append(arrow((x1, y1), (x0, y0), color or self.t.muted, 1.6))
        if text:
            self.label(text, (x0 + x1) / 2, (y0 + y1) / 2 + dy, color=self.t.muted, size=11)

    def figure_parts(self, height_px: int) -> tuple[list[Json], Json]:
        """(data, layout): the hover trace and a layout with hidden axes."""
        data: list[Json] = []
        if self.points:
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "x": [p[0] for p in self.points],
                    "y": [p[1] for p in self.points],
                    "customdata": [p[2] for p in self.points],
                    "hovertemplate": "%{customdata}<extra></extra>",
                    "marker": {"size": 28, "opacity": 0},
                    "showlegend": False,
                }
            )
        layout = base_layout(
            self.t,
            height_px,
            "",
            shapes=self.shapes,
            annotations=self.annotations,
            xaxis=hidden_axis(0, 100),
            yaxis=hidden_axis(0, self.height_units),
        )
        layout["margin"] = {"l": 10, "r": 10, "t": 10, "b": 10}
        return data, layout


def dims(rows: int, cols: int) -> str:
    return f"{rows} × {cols}"
