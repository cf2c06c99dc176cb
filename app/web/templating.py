"""``templates``: the one Jinja environment (``app.templating``) wrapped for responses
(``templates.TemplateResponse(request, name, context)``), with the globals every page may
use: ``asset_url`` (hashed static URLs) and ``oembed_link`` (the page's oEmbed discovery).
"""

from __future__ import annotations

from fastapi.templating import Jinja2Templates

from app.templating import environment
from app.web.assets import asset_url
from app.web.oembed import oembed_link

environment.globals.update(asset_url=asset_url, oembed_link=oembed_link)
templates = Jinja2Templates(env=environment)
