"""What a request asks (``Ask``) and its plan (``Plan``): the two values every declared
route's plan function maps between, with no web framework.

A plan function (``app.inputs.model_text.plan_attention``, ``app.lessons.plans`` …) takes
an ``Ask``, the request's path parameters, query, body bytes and the settings, parses it
strictly (raising ``FieldError`` and friends, answered 4xx naming the field) and prices
it: the ``Plan`` carries the ``Cost`` the runner (``app.http.runner``) checks against the
budget before any work, what to say to reduce it, and the parsed arguments the route's
work function takes. Pure: the same ``Ask`` always gives the same ``Plan``.

``digest`` is what the answer cache keys a plan by: the parsed, normalised inputs as one
canonical JSON document (a model's fields in their declared order with defaults filled
in and numbers as their type makes them, so ``1`` and ``1.0`` in a float field agree;
mapping keys sorted; whitespace gone), hashed. Two requests that mean the same thing
share one key, whatever their key order, spacing or omitted defaults.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel

from app.inputs.limits import Cost
from app.settings import Settings


@dataclass(frozen=True)
class Ask:
    """A request as data: path parameters, query (last value of each name), body bytes and,
    when the route declares a body model, the body parsed strictly (``data``), settings,
    and whether the client takes gzip."""

    path: Mapping[str, str]
    query: Mapping[str, str]
    body: bytes
    settings: Settings
    gzip: bool = False
    data: Any = None


@dataclass(frozen=True)
class Plan:
    """A priced request: its ``cost``, what to ``reduce`` (and the ``field`` an over-budget
    answer names, with its ``status``), and ``args`` for the route's work."""

    cost: Cost
    reduce: str
    args: Any = None
    field: str | None = None
    status: int = 422


def _canonical(value: Any) -> Any:
    """What orjson cannot write itself, canonically (``digest``)."""
    if isinstance(value, BaseModel):
        return orjson.Fragment(value.model_dump_json())
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"no canonical form for {type(value).__name__}")


DIGEST_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def digest(value: Any) -> bytes:
    """A stable 16-byte digest of ``value``'s canonical JSON (see the module docstring);
    TypeError for a value with no canonical form (never a guess that could collide)."""
    canonical = orjson.dumps(value, default=_canonical, option=DIGEST_OPTIONS)
    return hashlib.blake2b(canonical, digest_size=16).digest()
