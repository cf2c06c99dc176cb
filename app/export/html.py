"""Figures and lab sections as ONE self-contained HTML file: read-only, works offline.

A document holds one or more sections (``figure_section``: a main-page figure;
``static_section``: Figure 1 or 2, drawn by its template; ``lab_section``: a lab figure).
Number grids are inline SVG drawn on the server (``app.export.grid_svg``); charts
(histograms, bars, curves) are Plotly, and the file then carries plotly.js ONCE however
many charts it has, and not at all when it has none. Caption, readout and the numbers
as tables go with every section.

Rendering needs only jinja2 and the vendored plotly.js (read from ``app.paths.static_dir``),
no server. Script text is escaped so neither plotly.js nor a figure's JSON can end the
``<script>`` element early; every string from a state goes through ``printable``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from markupsafe import Markup

from app import __version__
from app.export.grid_svg import figure_svg, lab_svg
from app.figures.palette import PAGE
from app.figures.style import CONFIG
from app.inputs.fields import printable, printable_data
from app.paths import static_dir
from app.templating import environment
from app.wire import json_block

Json = dict[str, Any]
_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)
PLOTLY_FILE = "vendor/plotly-cartesian-4.1.1.min.js"
# The file's colours are the page's (one palette): an exported figure looks like an embed.
COLORS = {
    name: {"bg": page.surface, "fg": page.text, "muted": page.muted, "line": page.border}
    for name, page in PAGE.items()
}


def script_text(text: str) -> str:
    """Text safe inside ``<script>``: ``</script`` and ``<!--`` cannot appear raw."""
    # Only these two sequences matter to the HTML parser inside <script>; in JS source
    # "<\/" reads as "</" in strings and regular expressions alike.
    return _SCRIPT_END.sub(r"<\\/\1", text).replace("<!--", "<\\!--")


@cache
def plotly_source() -> str:
    return (static_dir() / PLOTLY_FILE).read_text(encoding="utf-8")


def _plot(data: Any, layout: Json, config: Json | None) -> Json:
    """A chart for the file: the figure's own config without any cloud button."""
    return {"data": data, "layout": layout, "config": {**(config or {}), **CONFIG}}


def figure_section(spec: Json, theme: str) -> Json:
    """Figure N (as ``build_figures`` makes it): grids as SVG, a chart as Plotly."""
    spec = printable_data(spec)
    n = spec["number"]
    section: Json = {
        "id": f"fig-{n}",
        "heading": f"Figure {n}. {spec['title']}",
        "caption": spec.get("caption", ""),
        "alt": spec.get("alt", ""),
        "readout": spec.get("readout") or [],
        "tables": spec.get("tables") or [],
        "steps": [s.get("narration", "") for s in spec.get("steps") or []],
    }
    if spec.get("panels"):
        section["svg"] = Markup(figure_svg(spec, theme, framed=False).svg)
    else:
        section["plot"] = _plot(spec["data"], spec["layout"], spec.get("config"))
        if spec.get("narrow"):  # the portrait variant a phone shows (Figures 5 and 10)
            section["plot"]["narrow"] = {k: spec["narrow"][k] for k in ("data", "layout")}
    return section


def static_section(number: int, title: str) -> Json:
    """Figure 1 or 2: the page's own drawing (HTML and CSS, no numbers)."""
    body = environment.get_template(f"figures/static_{number}.html").render()
    return {"id": f"fig-{number}", "heading": f"Figure {number}. {title}", "html": Markup(body)}


def lab_section(fig: Json, theme: str) -> Json:
    """One lab figure (as the lab API describes it): its grids as SVG, its chart as Plotly,
    text, quotations and tables."""
    fig = printable_data(fig)
    section: Json = {
        "id": fig["name"],
        "heading": f"{fig['entry']}. {fig['title']}",
        "badges": fig.get("badges") or [],
        "caption": fig.get("caption", ""),
        "alt": fig.get("alt", ""),
        "readout": fig.get("readout") or [],
        "tables": fig.get("tables") or [],
        "quotes": fig.get("quotes") or [],
        "narration": fig.get("narration") or "",
    }
    if fig.get("grids"):
        section["svg"] = Markup(lab_svg(fig, theme, framed=False).svg)
    if fig.get("plot"):
        plot = fig["plot"]
        section["plot"] = _plot(plot["data"], plot["layout"], plot.get("config"))
    return section


def document_html(sections: list[Json], *, theme: str, title: str, reopen: str) -> str:
    """The HTML file holding ``sections``; ``reopen`` is the path and query that opens
    the same state in Attention Lab (printed, never fetched)."""
    plots = [{"id": s["id"], **s["plot"]} for s in sections if s.get("plot")]
    template = environment.get_template("export/figure.html")
    return template.render(
        sections=sections,
        title=printable(title),
        reopen=printable(reopen),
        version=__version__,
        colors=COLORS[theme],
        plotly=Markup(script_text(plotly_source())) if plots else None,
        plots_json=Markup(json_block(plots)) if plots else None,
    )


def figure_html(spec: Json, *, theme: str, title: str, query: str) -> str:
    """One main-page figure as a file (``document_html`` of one section)."""
    return document_html(
        [figure_section(spec, theme)], theme=theme, title=title, reopen=f"/?{query}"
    )
