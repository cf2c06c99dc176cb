"""The URL form of a page state, the server's twin of ``static/js/state.js``.

A state is a request body (``POST /api/v1/attention``) plus a view (``app.inputs.view``:
focus, head, stretch, row, theme). In a URL: ``preset=<id>`` or ``s=<base64url of compact
JSON>``, and the view keys as plain parameters when they differ from the defaults. Embeds, oEmbed
and ``attention-lab export`` decode links with ``parse_query``; snippets are built with
``to_query`` so the page and the server always agree.

A link to one figure names it in the query too (``fig=7``, read by ``page_figure``), not
only in the fragment (``#fig-7``, kept for scrolling): browsers never send the fragment,
so only the query tells the server (the page's oEmbed discovery link) which figure it is.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import orjson

from app.inputs.errors import FieldError
from app.inputs.query import path_int, shown
from app.inputs.view import ViewState
from app.presets import DEFAULT_PRESET, get_preset

MAX_LINK_CHARS = 1_000_000
MAX_LINK_DEPTH = 8
FIGURE_KEY = "fig"  # the page's figure in a link's query: /?preset=causal&fig=7#fig-7


@dataclass(frozen=True)
class LinkState:
    """A decoded link: the request body, the view, and the preset it came from (if any)."""

    body: dict[str, Any]
    view: ViewState = field(default_factory=ViewState)
    preset_id: str | None = None


def encode_body(body: Mapping[str, Any]) -> str:
    raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _depth(value: Any, limit: int) -> bool:
    """True when ``value`` nests no deeper than ``limit`` lists or objects."""
    if limit < 0:
        return False
    if isinstance(value, dict):
        return all(_depth(v, limit - 1) for v in value.values())
    if isinstance(value, list):
        return all(_depth(v, limit - 1) for v in value)
    return True


def decode_body(text: str) -> dict[str, Any]:
    """Inverse of ``encode_body``; raises FieldError naming ``s`` when malformed.

    Bounded: at most ``MAX_LINK_CHARS`` characters, and nested at most ``MAX_LINK_DEPTH``
    deep (a body needs 4: ``{"source": {"x": [[…]]}}``), checked by orjson (which stops
    at 1024 levels instead of recursing until Python's stack runs out) and then here.
    """
    if len(text) > MAX_LINK_CHARS:
        raise FieldError("s", f"the link's state is longer than {MAX_LINK_CHARS} characters")
    try:
        raw = base64.urlsafe_b64decode(text.encode("ascii") + b"=" * (-len(text) % 4))
        body = orjson.loads(raw)
    except (binascii.Error, UnicodeError, ValueError) as exc:
        reason = str(exc).split(":")[0][:80]
        raise FieldError("s", f"the link's state is not valid base64url JSON ({reason})") from None
    if not isinstance(body, dict):
        raise FieldError("s", "the link's state must be a JSON object")
    if not _depth(body, MAX_LINK_DEPTH):
        raise FieldError("s", f"the link's state is nested deeper than {MAX_LINK_DEPTH} levels")
    return body


def parse_query(params: Mapping[str, str]) -> LinkState:
    """Decode ``s`` or ``preset`` (default: the running example) and the view parameters."""
    view = ViewState.from_query(params)
    if params.get("s"):
        return LinkState(body=decode_body(params["s"]), view=view)
    preset_id = params.get("preset") or DEFAULT_PRESET
    preset = get_preset(preset_id)
    if preset is None:
        raise FieldError("preset", f"no preset {preset_id!r}")
    return LinkState(body=preset["body"], view=view, preset_id=preset_id)


def to_query(state: LinkState) -> str:
    """The query string for ``state``: the preset id when it has one, else the body."""
    params: dict[str, Any] = (
        {"preset": state.preset_id} if state.preset_id else {"s": encode_body(state.body)}
    )
    params.update(state.view.to_query())
    return urlencode(params)


def page_figure(params: Mapping[str, str], figures: tuple[int, ...]) -> int | None:
    """The figure the query's ``fig`` names, None when it names none; FieldError naming
    ``fig`` when it is not one of ``figures`` (the page's, or the embeddable ones)."""
    text = params.get(FIGURE_KEY)
    if not text:
        return None
    number = path_int(text)
    if number not in figures:
        choices = f"{figures[0]} … {figures[-1]}"
        raise FieldError(FIGURE_KEY, f"there is no Figure {shown(text)!r} (Figures {choices})")
    return number
