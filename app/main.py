"""``create_app(settings) -> FastAPI``: assembles routers, static files, middleware and
error handlers. No route bodies live here. ``app`` is the ASGI application uvicorn serves.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI

from app import __version__, api, web
from app.http import admission
from app.http.body import add_body_schemas
from app.http.caching import ETags
from app.http.mount import MountedAt
from app.paths import static_dir
from app.settings import Settings, get_settings
from app.web.assets import HashedStaticFiles
from app.web.errors import install_error_handlers
from app.web.middleware import (
    HeadAsGet,
    RequestGuard,
    SelectiveGZip,
    SlashRedirect,
    UnbufferedStreams,
)
from app.web.security import SecurityHeaders
from app.web.telemetry import Telemetry

DESCRIPTION = """Every stage of scaled dot-product attention, softmax(Q Kᵀ / √d_k) V,
computed exactly (float64) for any input. The running example "I love LLMs" is the
example body of every request."""


OPENAPI_URL = "/api/v1/openapi.json"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    app = FastAPI(
        title="Attention Lab",
        version=__version__,
        description=DESCRIPTION,
        openapi_url=OPENAPI_URL,
        docs_url=None,  # served offline by app.web.docs
        redoc_url=None,
        # Our telemetry is app.web.telemetry (Prometheus, access log). FastAPI's own
        # OpenTelemetry bridge has no SDK to report to here, yet asked OpenTelemetry for
        # its providers on every request (8 µs, about 2 % of a small API request).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    app.dependency_overrides[get_settings] = lambda: settings
    app.state.settings = settings
    app.state.gate = admission.new_gate(settings.max_heavy)
    install_error_handlers(app)
    for router in (*api.ROUTERS, *web.ROUTERS):
        app.include_router(router)
    app.mount("/static", HashedStaticFiles(directory=static_dir()), name="static")
    SlashRedirect.install(app.router)  # its Location from the public URL, not the Host
    # Pages, assets and figure JSON compress 3-8× at about a millisecond's cost; the raw
    # numeric API is left alone: gzip would cost more than it saves on 50 MB of floats.
    # Experiments stream progress lines (NDJSON) that gzip would hold back.
    app.add_middleware(
        SelectiveGZip,
        skip_prefixes=("/api/v1/attention", "/api/v1/softmax", "/api/v1/experiments"),
    )
    # Outside gzip, so each representation (gzip or not) gets its own strong ETag.
    app.add_middleware(ETags, mark=(OPENAPI_URL,))
    app.add_middleware(RequestGuard, max_body_bytes=settings.max_body_bytes, router=app.router)
    app.add_middleware(HeadAsGet)
    app.add_middleware(UnbufferedStreams)  # proxy buffering stays on for the rest
    # Outside the guard so its 413/415 answers carry the headers too.
    app.add_middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)
    # Outermost: counts and logs every answer, the middleware's own 413/415 included.
    app.add_middleware(Telemetry)
    if settings.root_path:  # before everything else sees the path (app.http.mount)
        app.add_middleware(MountedAt, root=settings.root_path)
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document plus the bodies that routes read themselves (app.http.body)."""
    if app.openapi_schema is None:
        app.openapi_schema = add_body_schemas(FastAPI.openapi(app))
    return app.openapi_schema


app = create_app()
