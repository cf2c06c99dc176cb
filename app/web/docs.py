"""``GET /api/v1/docs``: the interactive API docs (Swagger UI), served with no internet.

Swagger UI is vendored under ``static/vendor/swagger-ui-<version>/`` (Apache-2.0, licence
beside it); the page is ``templates/swagger.html`` and starts it from the external
``static/js/swagger-init.js``, because the site's CSP forbids inline script code.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.http.mount import root_path
from app.web.templating import templates

SWAGGER_UI_VERSION = "5.35.0"
OPENAPI_URL = "/api/v1/openapi.json"

router = APIRouter(include_in_schema=False)


@router.get("/api/v1/docs", response_class=HTMLResponse)
def docs(request: Request) -> HTMLResponse:
    """The Swagger UI page for API v1; every asset it loads comes from this server."""
    root = root_path(request.scope)
    vendor = f"{root}/static/vendor/swagger-ui-{SWAGGER_UI_VERSION}"
    return templates.TemplateResponse(
        request,
        "swagger.html",
        {
            "title": request.app.title,
            "openapi_url": root + OPENAPI_URL,
            "swagger_css": f"{vendor}/swagger-ui.css",
            "swagger_js": f"{vendor}/swagger-ui-bundle.js",
            "swagger_favicon": f"{vendor}/favicon-32x32.png",
            "init_js": f"{root}/static/js/swagger-init.js",
            "config": {"url": root + OPENAPI_URL},
        },
    )
