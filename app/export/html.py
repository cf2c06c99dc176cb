"""One figure as a self-contained HTML file: plotly.js inlined, caption and table included,
read-only, works offline (``attention-lab export --format html``).

Rendering needs only jinja2 and the vendored plotly.js (read from ``app.paths.static_dir``),
no server. Script text is escaped so neither plotly.js nor the figure's JSON can end the
``<script>`` element early.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from markupsafe import Markup

from app import __version__
from app.figures.palette import PAGE
from app.inputs.fields import printable, printable_data
from app.paths import static_dir
from app.templating import environment
from app.wire import json_block

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


def figure_html(spec: dict[str, Any], *, theme: str, title: str, query: str) -> str:
    """The HTML document for one figure dict (as ``build_figures`` makes it). Its strings
    carry token labels into the title, headings, attributes and tables: every one goes
    through ``printable`` first (the labels were checked on the way in; this is defence
    in depth for a file that leaves the app)."""
    template = environment.get_template("export/figure.html")
    spec, title = printable_data(spec), printable(title)
    return template.render(
        number=spec["number"],
        spec=spec,
        title=title,
        query=query,
        version=__version__,
        colors=COLORS[theme],
        plotly=Markup(script_text(plotly_source())),
        figure_json=Markup(json_block(spec)),
    )
