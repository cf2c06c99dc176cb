"""The one Jinja environment of every page, embed, lab, docs page and error page.

``templates`` renders a template for a request (``templates.TemplateResponse``); its
globals are what every template may use (``asset_url``, ``version``, ``oembed_link``) and
its one number filter, ``num``, writes a number exactly as the page's JavaScript would
(``app.figures.fmt.exact``), so an editor cell reads the same before and after the script
runs. Autoescape is on; templates are read once (no reload on every request).
"""

from __future__ import annotations

from typing import Any

import jinja2
from fastapi.templating import Jinja2Templates

from app import __version__
from app.figures.fmt import exact
from app.paths import templates_dir
from app.web.assets import asset_url
from app.web.oembed import oembed_link

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True, auto_reload=False
)
environment.globals.update(asset_url=asset_url, version=__version__, oembed_link=oembed_link)


def _num(value: Any) -> str:
    return exact(float(value))


environment.filters["num"] = _num
templates = Jinja2Templates(env=environment)
