"""The JSON surface under ``/api/v1``: one ``router`` that ``app.main`` includes.

Route modules (``attention``, ``figures``, ``export``, ``experiments``, ``labs``) only
validate, call the pure packages and encode; what they share lives in ``admission``
(heavy work off the event loop), ``body`` (reading and costing a body before parsing it),
``params`` (a link's query parameters) and ``models`` (response models). No route module
imports another.
"""

from fastapi import APIRouter

from app.api import attention, experiments, export, figures, labs

router = APIRouter()
for _module in (attention, labs, experiments, figures, export):
    router.include_router(_module.router)
