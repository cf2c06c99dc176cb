"""The one error handler: JSON for the API, oEmbed and health, an HTML page for a browser.

Every error shape comes from ``app.inputs.errors``; this module decides how it is sent.
A request whose path is not under the API and that accepts ``text/html`` (a browser
opening ``/nope``) gets ``templates/error.html``: the status, what was wrong and a way
back. Anything else (scripts, ``fetch`` from the page, the API) gets JSON.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.routing import Match

from app.attention import InputError
from app.http.admission import BusyError
from app.http.mount import path_in_app
from app.http.sending import Answer
from app.inputs.errors import FieldError, error_detail, validation_detail
from app.inputs.limits import CostError
from app.web.templating import templates

# What a framework-raised HTTP error under /api/ is about, for the `field` of the detail.
_HTTP_FIELDS = {404: "path", 405: "method"}


def api_http_error(exc: HTTPException) -> JSONResponse:
    """FastAPI's own errors (400 "There was an error parsing the body", 404, 405) in the
    API's error shape. A 400 comes from a body json.loads cannot take, e.g. an integer
    literal of more than 4300 digits."""
    field = _HTTP_FIELDS.get(exc.status_code, "body")
    msg = str(exc.detail)
    if exc.status_code == 400:
        msg += ": send one JSON object whose numbers are plain decimals within ±1e6"
    body = error_detail(field, msg, "http_error")
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed_methods(request: Request) -> str:
    """Every method some route takes at this path (asked of the router, method by method,
    so GET and POST in separate routes both count). HEAD goes wherever GET does
    (``app.web.middleware.HeadAsGet``)."""
    allowed: list[str] = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(r.matches(scope)[0] == Match.FULL for r in request.app.router.routes):
            allowed.append(method)
    if "GET" in allowed and "HEAD" not in allowed:
        allowed.insert(allowed.index("GET") + 1, "HEAD")
    return ", ".join(allowed)


async def drain(request: Request) -> None:
    """Read and drop an unread request body, so a refused client gets its answer instead
    of a reset connection (uvicorn closes a connection whose body was left unread)."""
    try:
        async for _ in request.stream():
            pass
    except RuntimeError:  # already read
        pass


def wants_json(request: Request) -> bool:
    """The API, oEmbed and health answer JSON; so does anything that does not ask for HTML
    (the page's own ``fetch`` calls, scripts). A browser opening a page gets a page."""
    if path_in_app(request.scope).startswith(("/api/", "/oembed", "/healthz")):
        return True
    return "text/html" not in request.headers.get("accept", "")


_TITLES = {404: "Not found", 405: "Method not allowed", 413: "Too large", 422: "Cannot show this",
           503: "Busy", 500: "Internal error"}  # fmt: skip


def html_error(
    request: Request,
    status: int,
    field: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """``templates/error.html`` for a browser: what was wrong and a way back."""
    context = {"status": status, "title": _TITLES.get(status, "Error"), "field": field,
               "message": message}  # fmt: skip
    page: HTMLResponse = templates.TemplateResponse(
        request, "error.html", context, status_code=status, headers=headers
    )
    return page


def error_response(
    request: Request,
    status: int,
    field: str,
    message: str,
    kind: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """One error, as the API's JSON shape or as a small HTML page naming ``field``."""
    if wants_json(request):
        return JSONResponse(error_detail(field, message, kind), status_code=status, headers=headers)
    return html_error(request, status, field, message, headers)


def embed_error_page(
    request: Request, status: int, param: str, message: str, *, thing: str = "figure"
) -> HTMLResponse:
    """The error page of an embed: small, for an iframe, naming the parameter so an
    instructor can fix the snippet (``templates/embed_error.html``); ``thing`` is what the
    embed shows (a figure, a lesson)."""
    context = {"status": status, "param": param, "message": message, "thing": thing}
    page: HTMLResponse = templates.TemplateResponse(
        request, "embed_error.html", context, status_code=status
    )
    return page


def _page_message(exc: HTTPException) -> str:
    if exc.status_code == 404:
        return "there is no page at this address"
    if isinstance(exc.detail, str):
        return exc.detail
    first = exc.detail[0] if isinstance(exc.detail, list) and exc.detail else {}
    return (
        str(first.get("msg", "the request cannot be answered"))
        if isinstance(first, dict)
        else str(exc.detail)
    )


def page_error(request: Request, exc: FieldError) -> Response:
    """A page's answer to a refused input (the runner's ``errors`` for pages): 400 for a
    bad link or mode, 404 for what does not exist, else 422, naming the field."""
    status = getattr(exc, "status", None) or (400 if exc.field in ("l", "mode") else 422)
    return html_error(request, status, exc.field, exc.message)


def html_answer(page: Response) -> Answer:
    """A rendered page (``TemplateResponse``) as the runner's ``Answer``."""
    return Answer(bytes(page.body), "text/html; charset=utf-8", status=page.status_code)


def install_error_handlers(app: FastAPI) -> None:
    async def on_http(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 405:
            exc.headers = {**(exc.headers or {}), "Allow": _allowed_methods(request)}
        if path_in_app(request.scope).startswith("/api/") and isinstance(exc.detail, str):
            return api_http_error(exc)
        if not wants_json(request):
            field = _HTTP_FIELDS.get(exc.status_code, "path")
            return html_error(request, exc.status_code, field, _page_message(exc), exc.headers)
        return await http_exception_handler(request, exc)

    async def on_validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content=validation_detail(list(exc.errors())))

    async def on_input(_: Request, exc: InputError | FieldError) -> JSONResponse:
        loc = getattr(exc, "loc", None) or ["body", *exc.field.split(".")]
        body = error_detail(exc.field, exc.message, "shape_error", loc)
        return JSONResponse(body, status_code=422)

    async def on_cost(request: Request, exc: CostError) -> Response:
        return error_response(request, exc.status, exc.field, exc.message, "too_costly")

    async def on_busy(request: Request, exc: BusyError) -> Response:
        await drain(request)
        headers = {"Retry-After": str(exc.retry_after)}
        return error_response(request, 503, "server", exc.message, "busy", headers)

    app.add_exception_handler(CostError, on_cost)  # type: ignore[arg-type]
    app.add_exception_handler(BusyError, on_busy)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, on_http)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, on_validation)  # type: ignore[arg-type]
    app.add_exception_handler(InputError, on_input)  # type: ignore[arg-type]
    app.add_exception_handler(FieldError, on_input)  # type: ignore[arg-type]
