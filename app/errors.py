"""One error shape for the API: ``{"detail": [{"field", "msg", "loc", "type"}]}``.

Every bad request names the field (as the API spells it, e.g. ``x[1][2]``) and what was
expected. Inputs are never echoed back: a NaN in the input would otherwise make the
error itself unencodable.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.routing import Match

from app.admission import BusyError
from app.attention import InputError
from app.inputs.limits import CostError


def field_name(loc: Sequence[int | str]) -> str:
    """('body', 'x', 1, 2) -> 'x[1][2]'; ('body', 'source', 'x') -> 'source.x'."""
    parts = [p for p in loc if p != "body"]
    # pydantic adds the union member's type to the location; it names no field
    parts = [
        p for p in parts if not (isinstance(p, str) and ("[" in p or p.startswith("function")))
    ]
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "body"


def _message(err: dict[str, Any]) -> str:
    msg = str(err.get("msg", "invalid value"))
    if err.get("type") == "json_invalid":
        ctx = err.get("ctx", {}).get("error", "")
        return f"the body is not valid JSON ({ctx}) at character {err['loc'][-1]}"
    if err.get("type") == "extra_forbidden":
        return "unknown field; see /api/v1/docs for the fields this endpoint accepts"
    return msg.removeprefix("Value error, ")


def error_body(errors: Sequence[dict[str, Any]]) -> dict[str, Any]:
    detail = [
        {
            "field": "body" if e.get("type") == "json_invalid" else field_name(e.get("loc", ())),
            "msg": _message(e),
            "type": e.get("type", "value_error"),
            "loc": [str(p) if not isinstance(p, int) else p for p in e.get("loc", ())],
        }
        for e in errors
    ]
    return {"detail": detail}


def input_error_response(exc: InputError) -> JSONResponse:
    return JSONResponse(
        status_code=422,
        content={"detail": [{"field": exc.field, "msg": exc.message, "type": "shape_error",
                             "loc": ["body", *exc.field.split(".")]}]},
    )  # fmt: skip


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
    detail = [{"field": field, "msg": msg, "type": "http_error", "loc": [field]}]
    return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed_methods(request: Request) -> str:
    """Every method some route takes at this path (asked of the router, method by method,
    so GET and POST in separate routes both count). HEAD goes wherever GET does
    (``app.middleware.HeadAsGet``)."""
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


def wants_json(path: str) -> bool:
    """The API and oEmbed answer JSON errors; pages and embeds answer HTML."""
    return path.startswith(("/api/", "/oembed", "/healthz"))


def error_response(
    request: Request,
    status: int,
    field: str,
    message: str,
    kind: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """One error, as the API's JSON shape or as a small HTML page naming ``field``."""
    if wants_json(request.url.path):
        detail = [{"field": field, "msg": message, "type": kind, "loc": [field]}]
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)
    text = html.escape(f"{field}: {message}")
    page = (
        '<!doctype html><html lang="en"><meta charset="utf-8">'
        f"<title>Attention Lab: error {status}</title>"
        f'<h1>Error {status}</h1><p role="alert">{text}</p>'
        '<p><a href="/">Open the running example</a></p></html>'
    )
    return HTMLResponse(page, status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    async def on_http(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 405:
            exc.headers = {**(exc.headers or {}), "Allow": _allowed_methods(request)}
        if request.url.path.startswith("/api/") and isinstance(exc.detail, str):
            return api_http_error(exc)
        return await http_exception_handler(request, exc)

    async def on_validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content=error_body(list(exc.errors())))

    async def on_input(_: Request, exc: InputError) -> JSONResponse:
        return input_error_response(exc)

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
