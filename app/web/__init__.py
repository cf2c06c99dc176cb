"""The HTML surface: pages, labs, embeds and oEmbed, offline API docs and health, with
the one Jinja environment (``templating``), hashed assets, security headers, middleware
and the error handler that answers JSON to the API and an HTML page to a browser.
``router`` is what ``app.main`` includes.
"""

from fastapi import APIRouter

from app.web import docs, embed, health, labs, pages

router = APIRouter()
for _module in (health, docs, pages, labs, embed):
    router.include_router(_module.router)
router.include_router(embed.oembed_router)
