"""What ``POST /api/v1/short-links`` is asked to store, checked before anything is stored.

The body names exactly one of ``state`` (the query string the main page's Link button
writes: ``preset=causal&fig=7``, ``s=…&focus=2``, a real model's ``model=…&text=…``) or
``lesson`` (the lesson JSON a lesson link carries, checked by the caller: lessons are
``app.lessons``'s). A state is held to the grammar of a URL query (RFC 3986's query
characters, ``name=value`` pairs, percent escapes that decode to printable UTF-8) and,
unless it names a real model (run only when opened), to what the page itself accepts: its
``s=`` or ``preset=`` decoded and its shapes checked against the limits, as a link's are
(``app.inputs.resolve.plan_link``, no work). Errors name ``state`` and what is wrong in it.
Size is the caller's ``Settings.short_link_max_bytes``: 413 naming the field.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from app.inputs.errors import FieldError
from app.inputs.fields import printable
from app.inputs.limits import CostError
from app.inputs.resolve import StateError, plan_link
from app.settings import Settings

# What a route accepts before the content's own limit is checked: the largest admissible
# content (Settings.short_link_max_bytes, at most 1 MB) and its JSON quoting.
BODY_BYTES = 2_100_000
_QUERY = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*")
_PAIR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
MAX_PAIRS = 64


class ShortLinkRequest(BaseModel):
    """Exactly one of ``state`` or ``lesson``."""

    model_config = ConfigDict(extra="forbid")

    state: StrictStr | None = Field(
        None,
        description="A main-page state: the query string of its link, without the '?' "
        "(e.g. preset=causal&fig=7).",
        examples=["preset=causal&fig=7"],
    )
    lesson: dict[str, Any] | None = Field(
        None,
        description="A lesson's JSON (version 1), as /api/v1/lessons/schema.json describes.",
        examples=[{"version": 1, "title": "One step", "steps": [
            {"title": "Weights", "state": {"page": "main", "query": "", "figures": [6]}}]}],
    )  # fmt: skip


class ShortLinkResponse(BaseModel):
    """The short link of a stored content."""

    id: str = Field(description="16 base64url characters: the content's hash, cut.")
    kind: str = Field(description="state or lesson")
    path: str = Field(description="The short link's path, e.g. /s/AbC… or /l/AbC…")
    url: str = Field(description="The short link, absolute.")
    bytes: int = Field(description="Size of the stored content in bytes.")


def check_size(field: str, content: str, settings: Settings) -> None:
    """413 (``CostError``) naming ``field`` when ``content`` is over the setting."""
    size = len(content.encode())
    if size > settings.short_link_max_bytes:
        raise CostError(
            field,
            f"is {size:,} bytes; a short link holds at most "
            f"{settings.short_link_max_bytes:,} (ATTENTION_LAB_SHORT_LINK_MAX_BYTES)",
            413,
        )


def state_pairs(state: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of a query, or ``FieldError`` naming ``state``."""
    if not state:
        raise FieldError("state", "must not be empty: give the page link's query string")
    if not _QUERY.fullmatch(state):
        raise FieldError(
            "state",
            "must be a URL query string (letters, digits and -._~!$&'()*+,;=:@/?%; no "
            "spaces, '#' or other characters unescaped)",
        )
    if _ESCAPE.search(state):
        raise FieldError("state", "has a '%' that is not a two-digit percent escape")
    pieces = [p for p in state.split("&") if p]
    if len(pieces) > MAX_PAIRS:
        raise FieldError("state", f"has more than {MAX_PAIRS} parameters")
    for piece in pieces:
        name = piece.split("=", 1)[0]
        if not _PAIR_NAME.fullmatch(name):
            raise FieldError("state", f"has a parameter name that no page reads: {name[:40]!r}")
        try:
            text = unquote_to_bytes(piece.replace("+", " ")).decode("utf-8")
        except UnicodeDecodeError:
            raise FieldError("state", f"parameter {name}: its escapes are not UTF-8") from None
        if printable(text) != text:
            raise FieldError("state", f"parameter {name}: has control characters")
    return parse_qsl(state, keep_blank_values=True)


def check_state(state: str, settings: Settings) -> str:
    """The state to store (a leading '?' dropped), checked as the module docstring says."""
    state = state.removeprefix("?")
    check_size("state", state, settings)
    params = dict(state_pairs(state))
    if "model" not in params:
        try:
            plan_link(params, settings)
        except StateError as exc:
            raise FieldError("state", f"{exc.param}: {exc.message}") from None
        except CostError as exc:
            raise FieldError("state", f"{exc.field}: {exc.message}") from None
    return state
