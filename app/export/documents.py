"""Which main-page figures an export holds, and the files made of them: the one place the
API's export routes (``app.api.export``) and ``attention-lab export`` share.

``app.inputs.export_plan.page_figures`` reads a choice ("7", "3,7", "all", or nothing:
every figure) and refuses anything else naming the parameter; ``page_document`` is the
offline HTML of those figures for a resolved state (Figures 1 and 2 drawn by their
templates, number grids as SVG, charts with one copy of plotly.js); ``page_picture`` is
the SVG of one grid figure, heading and caption included (the page's SVG and PNG buttons).
"""

from __future__ import annotations

from typing import Any

from app.export.grid_svg import Picture, figure_svg
from app.export.html import document_html, figure_section, static_section
from app.figures import build_figures
from app.figures.registry import BY_NUMBER, FIGURES
from app.inputs.export_plan import NUMBERS
from app.inputs.link import to_query
from app.inputs.resolve import Resolved, StateError, drawable
from app.settings import Settings


def drawn_theme(resolved: Resolved, theme: str | None = None) -> str:
    """The theme a file is drawn in: the one asked for, else the link's, else light."""
    wanted = theme or resolved.link.view.theme
    return "dark" if wanted == "dark" else "light"


def built(resolved: Resolved, numbers: tuple[int, ...], theme: str) -> dict[str, Any]:
    """The descriptions of the live figures among ``numbers`` (tables included)."""
    live = tuple(n for n in numbers if BY_NUMBER[n].builder is not None)
    if not live:
        return {}
    view = resolved.link.view.figure_view("dark" if theme == "dark" else "light", live)
    figures: dict[str, Any] = build_figures(resolved.stages, view, defer_tables=False)["figures"]
    return figures


def page_document(
    resolved: Resolved, numbers: tuple[int, ...], settings: Settings, theme: str | None = None
) -> str:
    """The offline HTML of Figures ``numbers`` in the resolved state."""
    drawable(resolved, settings)
    drawn = drawn_theme(resolved, theme)
    specs = built(resolved, numbers, drawn)
    sections = [
        static_section(n, BY_NUMBER[n].title) if str(n) not in specs
        else figure_section(specs[str(n)], drawn)
        for n in numbers
    ]  # fmt: skip
    fragment = f"#fig-{numbers[0]}" if len(numbers) == 1 else ""
    title = resolved.title if len(numbers) == 1 else f"Figures {_span(numbers)}, {resolved.title}"
    return document_html(sections, theme=drawn, title=title,
                         reopen=f"/?{to_query(resolved.link)}{fragment}")  # fmt: skip


def _span(numbers: tuple[int, ...]) -> str:
    if numbers == NUMBERS:
        return f"{NUMBERS[0]}–{NUMBERS[-1]}"
    return ", ".join(str(n) for n in numbers)


def page_picture(
    resolved: Resolved, number: int, settings: Settings, theme: str | None = None
) -> Picture:
    """Figure ``number`` as an SVG picture (a figure drawn as number grids only)."""
    entry = BY_NUMBER.get(number)
    if entry is None or entry.kind == "static":
        grids = ", ".join(str(f.number) for f in FIGURES if f.kind == "grid")
        raise StateError("figure", f"Figure {number} is not drawn from numbers; choose one "
                         f"drawn as number grids ({grids})")  # fmt: skip
    drawable(resolved, settings)
    drawn = drawn_theme(resolved, theme)
    spec = built(resolved, (number,), drawn)[str(number)]
    if not spec.get("panels"):
        raise StateError("figure", f"Figure {number} is a chart: save it with the page's "
                         "PNG or SVG button, or export it as HTML")  # fmt: skip
    return figure_svg(spec, drawn)
