"""The HTML surface: pages, labs, embeds and oEmbed, offline API docs and health, with
the one Jinja environment (``templating``), hashed assets, security headers, middleware
and the error handler that answers JSON to the API and an HTML page to a browser.
``ROUTERS`` is what ``app.main`` includes, in order (flat, as ``app.api.ROUTERS``).
"""

from app.web import (
    docs,
    embed,
    health,
    lab_embed,
    labs,
    lesson_embed,
    lessons,
    models_pages,
    pages,
    reference,
    short_links,
)

ROUTERS = (
    # lesson_embed before embed: /embed/lesson is not the figure embed /embed/{figure}.
    *(
        m.router
        for m in (
            health,
            docs,
            pages,
            labs,
            lessons,
            models_pages,
            lab_embed,
            lesson_embed,
            embed,
            reference,
            short_links,
        )
    ),
    embed.oembed_router,
)
