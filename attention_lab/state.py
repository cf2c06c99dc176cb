"""One figure of one attention state, computed by the project's numpy pipeline.

``figure_description`` validates a state as the API does (``app.inputs.body``), runs the
engine and builds the figure's description (grids with their colours and printed
numbers): the widget sends it to the bundled grid renderer as it is. ``figure_html`` is
the same figure as self-contained HTML (inline SVG from ``app.export.grid_svg``, no
script), the fallback that nbconvert, GitHub and static sites show.
"""

from __future__ import annotations

import html
import json
from typing import Any

from app.attention.pipeline import run
from app.export.grid_svg import figure_svg
from app.figures import build_figures
from app.figures.context import View
from app.figures.registry import BY_NUMBER
from app.inputs.body import AttentionRequest
from app.presets import DEFAULT_PRESET, get_preset
from app.wire import encode

Json = dict[str, Any]
# The figures drawn by the page's grid renderer (panels of grids). The charts (5, 10, 12,
# 13) are Plotly figures on the page: their bundle is not part of the widget.
GRID_FIGURES: tuple[int, ...] = tuple(n for n, f in BY_NUMBER.items() if f.kind == "grid")


def preset_body(preset: str = DEFAULT_PRESET) -> Json:
    """The request body of a named example (``app.presets``); KeyError naming it."""
    found = get_preset(preset)
    if found is None:
        raise KeyError(f"preset: no example named {preset!r}")
    body: Json = found["body"]
    return body


def figure_description(body: Json, number: int, *, focus: int = 0, theme: str = "light") -> Json:
    """Figure ``number`` of the state ``body`` (an ``AttentionRequest`` as JSON), as plain
    JSON data: ValueError naming the field for a bad state or a figure that is not a grid."""
    if number not in GRID_FIGURES:
        raise ValueError(f"number: Figure {number} is not a grid figure; choose {GRID_FIGURES}")
    request = AttentionRequest.model_validate(body)
    stages = run(request.to_input())
    view = View(focus=focus, theme=theme, figures=(number,))  # type: ignore[arg-type]
    built = build_figures(stages, view, plotly=False, defer_tables=False)
    # Through the wire encoder: numpy numbers become JSON ones, a blocked cell null.
    described: Json = json.loads(encode(built["figures"][str(number)]))
    shared: Json = json.loads(encode(built["grids"]))
    described["panels"] = [[_inline(item, shared) for item in row] for row in described["panels"]]
    return described


def _inline(item: Json, shared: Json) -> Json:
    """A panel item with its grid written out: the lean answer sends each stage's grid once
    (``share_grids``) and a panel names it by ``ref``; one figure alone needs no sharing."""
    if "ref" not in item:
        return item
    return {"grid": {**shared[item["ref"]], "outline": item["outline"]}}


def figure_html(spec: Json, theme: str = "light") -> str:
    """The figure as one self-contained HTML fragment: heading, inline SVG, caption."""
    picture = figure_svg(spec, theme, framed=False)
    heading = html.escape(f"Figure {spec.get('number', '')}. {spec.get('title', '')}")
    caption = html.escape(str(spec.get("caption", "")))
    return (
        f'<figure class="attention-lab-figure" data-figure="{spec.get("number", "")}">'
        f"<figcaption><strong>{heading}</strong></figcaption>{picture.svg}"
        f"<p>{caption}</p></figure>"
    )
