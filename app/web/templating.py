"""``templates``: the one Jinja environment (``app.templating``) wrapped for responses
(``templates.TemplateResponse(request, name, context)``), with the globals every page may
use: ``asset_url`` (hashed static URLs), ``site_url`` (a path under the root path),
``oembed_link`` (the page's oEmbed discovery) and
``view_fields`` (the one declaration of the view, by name: the controls' bounds, stops,
choices and labels, ``app.figures.view_fields``).
"""

from __future__ import annotations

from fastapi.templating import Jinja2Templates

from app.figures.view_fields import BY_NAME
from app.templating import environment
from app.web.assets import asset_url, site_url
from app.web.oembed import oembed_link

environment.globals.update(
    asset_url=asset_url, site_url=site_url, oembed_link=oembed_link, view_fields=BY_NAME
)
templates = Jinja2Templates(env=environment)
