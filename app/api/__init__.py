"""The JSON surface under ``/api/v1``: ``ROUTERS``, which ``app.main`` includes in order.

Route modules (``attention``, ``figures``, ``export``, ``experiments``, ``labs``,
``lab_figures``, ``models_api`` (the real models), ``lessons``, ``today`` (the KV cache,
ALiBi's slopes and FlashAttention's tiles), ``short_links`` (store a state or a lesson)) only
validate, call the pure packages and encode; what they share lives in ``admission``
(heavy work off the event loop), ``body`` (reading and costing a body before parsing it),
``params`` (a link's query parameters) and ``models`` (response models). No route module
imports another.
"""

from app.api import (
    attention,
    experiments,
    export,
    figures,
    lab_figures,
    labs,
    lesson_export,
    lessons,
    models_api,
    short_links,
    today,
)

# Included one by one, not through a parent router: FastAPI keeps an included router as a
# nested matcher, and every level costs each request a pass over its routes (about 25 µs
# a level for POST /api/v1/attention, measured in process).
ROUTERS = tuple(
    m.router
    for m in (
        attention,
        labs,
        lab_figures,
        experiments,
        figures,
        export,
        models_api,
        lessons,
        lesson_export,
        short_links,
        today,
    )
)
