"""JSON request bodies read under admission control, parsed off the event loop when large.

FastAPI would read and validate a body on the event loop before the route runs; a 40 MB
body then stalls every other request for a second, and twelve of them are read into
memory at once. ``read_body`` instead takes an admission slot (``app.http.admission``) for a
large body *before reading it*, refuses it by its number count (commas, counted in C)
when the cost model says it cannot fit, and parses and validates it with pydantic in a
worker thread. Small bodies are parsed inline. Errors have the API's one shape.

Because the routes read the body themselves, ``body_doc`` documents it in OpenAPI and
``add_body_schemas`` adds the models to the document's components.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema

from app.http.admission import admitted, gate_of, offload
from app.inputs.errors import problem
from app.inputs.limits import INLINE_BODY_BYTES, Cost, body_cost, check_cost

M = TypeVar("M", bound=BaseModel)

# Every model a route reads with read_body; add_body_schemas documents them.
BODY_MODELS: list[type[BaseModel]] = []


def parse(model: type[M], raw: bytes) -> M:
    """``raw`` parsed strictly as ``model``: the API's 400/422 shapes otherwise."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        errors: list[dict[str, Any]] = [
            dict(e) for e in exc.errors(include_url=False, include_input=False)
        ]
        invalid = [e for e in errors if e["type"] == "json_invalid"]
        if invalid:
            ctx: dict[str, Any] = invalid[0].get("ctx") or {}
            reason = str(ctx.get("error", "malformed"))
            if "out of range" in reason:  # e.g. a 5000-digit integer
                raise HTTPException(400, "There was an error parsing the body") from None
            msg = f"the body is not valid JSON ({reason})"
            raise HTTPException(422, [problem("body", msg, "json_invalid")]) from None
        for e in errors:
            e["loc"] = ("body", *e["loc"])
        raise RequestValidationError(errors) from None


def number_bound(raw: bytes) -> int:
    """At most how many numbers a JSON body holds: one more than its commas."""
    return raw.count(b",") + 1


async def read_body(
    request: Request,
    model: type[M],
    settings: Any,
    budget: Callable[[int], Cost] | None = None,
    reduce: str = "the body",
    limit: int | None = None,
) -> M:
    """``model`` from the request's JSON body (see the module docstring).

    ``budget(numbers)`` is the cost of a body of that many numbers, checked before
    parsing a large body; call inside ``admitted(body_cost(...))`` so the slot is held.
    """
    raw = await read_limited(request, settings.max_body_bytes if limit is None else limit)
    if len(raw) <= INLINE_BODY_BYTES:
        return parse(model, raw)
    numbers = number_bound(raw)
    if budget is not None:
        check_cost(budget(numbers), settings, reduce)
    return await offload(gate_of(request), Cost(numbers, 0), parse, model, raw)


def json_body(raw: bytes) -> Any:
    """``raw`` as any JSON value; 422 ``json_invalid`` naming ``body`` otherwise."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        msg = f"the body is not valid JSON ({str(exc).split(':')[0][:80]})"
        raise HTTPException(422, [problem("body", msg, "json_invalid", ["body"])]) from None


async def parse_body(request: Request, model: type[M], raw: bytes) -> M:
    """``raw`` (already read within the route's limit) parsed strictly as ``model``: inline
    when small, else off the event loop under a slot."""
    if len(raw) <= INLINE_BODY_BYTES:
        return parse(model, raw)
    return await offload(gate_of(request), Cost(number_bound(raw), 0), parse, model, raw)


async def read_body_admitted(
    request: Request,
    model: type[M],
    settings: Any,
    budget: Callable[[int], Cost] | None = None,
) -> M:
    """``read_body`` holding a heavy slot while a large body is read and parsed; the slot
    is let go with the model in hand (the route prices its own work next)."""
    async with admitted(gate_of(request), body_cost(content_length(request))):
        return await read_body(request, model, settings, budget)


def declared_length(request: Request) -> int | None:
    """The body size the client declared in Content-Length (None when absent, -1 when it
    is not a number)."""
    # The raw headers, not ``request.headers``: building that mapping costs more than
    # this whole lookup, and nothing else in a small request needs it.
    for name, raw in request.scope["headers"]:
        if name == b"content-length":
            value = raw.decode("latin-1")
            return int(value) if value.isascii() and value.isdigit() and len(value) < 12 else -1
    return None


def content_length(request: Request) -> int:
    """The size a body is priced at before it is read: its Content-Length, or for a
    chunked body (no Content-Length) the largest one the app accepts, so a chunked body
    takes its slot before it is read as a declared one does (0 for no body)."""
    declared = declared_length(request)
    if declared is not None:
        return max(declared, 0)
    if any(name == b"transfer-encoding" for name, _ in request.scope["headers"]):
        limit: int = request.app.state.settings.max_body_bytes
        return limit
    return 0


def too_large(limit: int, got: str) -> HTTPException:
    msg = f"the body is larger than this route's limit of {limit:,} bytes ({got})"
    return HTTPException(413, [problem("body", msg, "too_large", ["body"])])


async def read_limited(request: Request, limit: int) -> bytes:
    """The whole body, refused with 413 as soon as it is longer than ``limit``: a
    Content-Length over it before a byte is read, a chunked body once its count passes it
    (what was read is dropped), so no route keeps more than its own limit."""
    declared = declared_length(request)
    if declared is not None and declared > limit:
        raise too_large(limit, f"Content-Length {declared:,}")
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            chunks.clear()
            raise too_large(limit, f"more than {limit:,} bytes sent")
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def body_doc(model: type[BaseModel], examples: dict[str, Any] | None = None) -> dict[str, Any]:
    """``openapi_extra`` for a route that reads ``model`` with ``read_body``."""
    if model not in BODY_MODELS:
        BODY_MODELS.append(model)
    media: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
    if examples:
        media["examples"] = examples
    return {"requestBody": {"required": True, "content": {"application/json": media}}}


def add_body_schemas(schema: dict[str, Any]) -> dict[str, Any]:
    """Add every ``BODY_MODELS`` schema (and the models they use) to the components."""
    if not BODY_MODELS:
        return schema
    _, defs = models_json_schema(
        [(m, "validation") for m in BODY_MODELS], ref_template="#/components/schemas/{model}"
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for name, definition in defs.get("$defs", {}).items():
        components.setdefault(name, definition)
    return schema
