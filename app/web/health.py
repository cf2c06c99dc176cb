"""``GET /healthz``: liveness and readiness for Docker, Kubernetes and load balancers;
``GET /metrics``: Prometheus metrics (``app.http.metrics``) unless
``ATTENTION_LAB_METRICS=false``, or ``ATTENTION_LAB_METRICS_PORT`` serves them on a port of
their own (``app.http.scrape``), which a proxy of the app's port cannot expose."""

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from app.http import metrics
from app.http.responses import settings_of

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Health probe")
async def healthz() -> dict[str, str]:
    """Always `{"status": "ok"}` while the process serves requests (it keeps no state)."""
    # async: answered on the event loop itself, never queued behind a thread
    return {"status": "ok"}


@router.get("/metrics", summary="Prometheus metrics", include_in_schema=False)
async def metrics_text(request: Request) -> Response:
    """Request counts and latency by route and status, admission rejections and heavy
    work in flight, in Prometheus' text format. A few kilobytes, built in well under a
    millisecond: answered on the event loop, like the health probe."""
    settings = settings_of(request)
    if not settings.metrics:
        raise HTTPException(404, "metrics are switched off (ATTENTION_LAB_METRICS=false)")
    if settings.metrics_port is not None:
        raise HTTPException(404, "metrics have a port of their own (ATTENTION_LAB_METRICS_PORT)")
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)
