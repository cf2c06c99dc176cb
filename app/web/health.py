"""``GET /healthz``: liveness and readiness for Docker, Kubernetes and load balancers."""

from fastapi import APIRouter

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Health probe")
async def healthz() -> dict[str, str]:
    """Always `{"status": "ok"}` while the process serves requests (it keeps no state)."""
    # async: answered on the event loop itself, never queued behind a thread
    return {"status": "ok"}
