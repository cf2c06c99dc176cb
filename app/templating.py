"""The one Jinja environment: every page, embed, lab, error page and exported HTML file is
rendered from ``templates/`` by ``environment``.

Its one number filter, ``num``, writes a number exactly as the page's JavaScript would
(``app.figures.fmt.exact``), so an editor cell reads the same before and after the script
runs. Autoescape is on; templates are read once (no reload on every request). It lives at
the top of ``app`` because two surfaces render with it: the web pages (``app.web``, which
adds its globals ``asset_url`` and ``oembed_link``) and the standalone HTML export
(``app.export.html``), which must work without a server.
"""

from __future__ import annotations

from typing import Any

import jinja2

from app import __version__
from app.figures.fmt import exact
from app.paths import templates_dir

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True, auto_reload=False
)
environment.globals["version"] = __version__


def _num(value: Any) -> str:
    return exact(float(value))


environment.filters["num"] = _num
