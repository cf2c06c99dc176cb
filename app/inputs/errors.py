"""The one error shape of every JSON answer: ``{"detail": [{"field", "msg", "type", "loc"}]}``.

Every bad request names the field (as the API spells it, e.g. ``x[1][2]``) and what was
expected. Inputs are never echoed back: a NaN in the input would otherwise make the error
itself unencodable. Everything that answers an error builds it here: the API's handlers,
the middleware's 413/415/500, a link's ``StateError``, the cost model's ``CostError``, lab
controls and oEmbed. Framework-free, so ``app.inputs`` can use it too; ``ErrorResponse``
documents the shape in OpenAPI.

``FieldError`` is the error of ``app.inputs``: a request, link, limit or view problem
that is not the engine's (the engine raises ``app.attention.InputError`` for shapes that
do not chain). ``app.web.errors`` answers both with the same 422 shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field


class FieldError(ValueError):
    """An input the app refuses before or around the engine (a URL parameter, a size
    limit, a view outside the data); ``field`` names it as the API or the URL spells it."""

    def __init__(self, field: str, message: str, loc: list[str] | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.loc = loc  # where the field is, when not in the body (e.g. ["path", "model_id"])


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


def problem(
    field: str, msg: str, kind: str, loc: Sequence[int | str] | None = None
) -> dict[str, Any]:
    """One item of ``detail``; ``loc`` defaults to ``[field]``."""
    where = [field] if loc is None else [p if isinstance(p, int) else str(p) for p in loc]
    return {"field": field, "msg": msg, "type": kind, "loc": where}


def error_detail(
    field: str, msg: str, kind: str, loc: Sequence[int | str] | None = None
) -> dict[str, Any]:
    """The whole answer for one problem."""
    return {"detail": [problem(field, msg, kind, loc)]}


def _message(err: dict[str, Any]) -> str:
    msg = str(err.get("msg", "invalid value"))
    if err.get("type") == "json_invalid":
        ctx = err.get("ctx", {}).get("error", "")
        return f"the body is not valid JSON ({ctx}) at character {err['loc'][-1]}"
    if err.get("type") == "extra_forbidden":
        return "unknown field; see /api/v1/docs for the fields this endpoint accepts"
    return msg.removeprefix("Value error, ")


def validation_detail(errors: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """pydantic's errors (``ValidationError.errors()``) in the one shape."""
    return {
        "detail": [
            problem(
                "body" if e.get("type") == "json_invalid" else field_name(e.get("loc", ())),
                _message(e),
                e.get("type", "value_error"),
                e.get("loc", ()),
            )
            for e in errors
        ]
    }


class ErrorItem(BaseModel):
    """One problem with a request, naming the field as the API spells it."""

    field: str = Field(description="The field at fault, e.g. `x[1][2]`, `source.x`, `body`.")
    msg: str = Field(description="What was wrong and what was expected.")
    type: str = Field(description="A machine-readable kind, e.g. `finite_number`, `shape_error`.")
    loc: list[str | int] = Field(description="Where the field is: `body`, names and indices.")


class ErrorResponse(BaseModel):
    """Every 4xx answer of the API: a list of problems, never the input echoed back."""

    detail: list[ErrorItem]
