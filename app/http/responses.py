"""What the API's routes share: how they answer (bytes and chunks already encoded by
``app.wire``), the errors every POST can answer (for OpenAPI) and the app's settings."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.types import Receive, Scope, Send

from app.inputs.errors import ErrorResponse
from app.settings import Settings, get_settings

# The settings as a route parameter (``create_app`` overrides ``get_settings`` with its own).
SettingsDep = Annotated[Settings, Depends(get_settings)]


def settings_of(request: Request) -> Settings:
    """The app's settings (``create_app`` puts them on ``app.state``); no dependency, no hop."""
    settings: Settings = request.app.state.settings
    return settings


def site_base(request: Request) -> str:
    """The site's address without a trailing slash: ``ATTENTION_LAB_PUBLIC_URL`` when set
    (under a sub-path it names it: ``https://uni.example.edu/attention``), else the
    request's scheme and Host (which a client or proxy chooses) followed by the app's
    root path (``app.http.mount``; Starlette's ``base_url`` holds it). Every absolute
    link the app writes (share links, iframe snippets, oEmbed, redirects) starts here."""
    settings = getattr(request.app.state, "settings", None)
    public = getattr(settings, "public_url", None)
    return str(public or request.base_url).rstrip("/")


class JSONBytes(Response):
    media_type = "application/json"


class JSONChunks(Response):
    """A JSON body given as chunks (``stages_to_chunks``), written one after another with
    the total Content-Length, so a 48 MB response is never copied into one buffer."""

    media_type = "application/json"

    def __init__(self, chunks: list[bytes]) -> None:
        super().__init__()
        self.chunks = chunks
        self.headers["content-length"] = str(sum(len(c) for c in chunks))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})  # fmt: skip
        last = len(self.chunks) - 1
        for i, chunk in enumerate(self.chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": i < last})


def error_doc(description: str) -> dict[str, Any]:
    return {"model": ErrorResponse, "description": description}


# What a POST to the API can answer besides 200 (all in the one error shape).
POST_ERRORS: dict[int | str, dict[str, Any]] = {
    400: error_doc("The body cannot be read as JSON numbers (e.g. a 5000-digit integer)."),
    413: error_doc(
        "The body is larger than `max_body_bytes`, or the work it asks for is over the "
        "cost budget (`max_cells`, `max_response_bytes`); refused before any work, "
        "`detail` names what to reduce."
    ),
    415: error_doc("The body is not sent as `Content-Type: application/json`."),
    422: error_doc("An input is malformed or shapes do not chain; `detail` names the field."),
    503: error_doc(
        "Every heavy-work slot of this worker is busy (`max_heavy`); retry after the "
        "seconds in `Retry-After`."
    ),
}
