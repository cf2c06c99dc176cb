"""What a request asks (``Ask``) and its plan (``Plan``): the two values every declared
route's plan function maps between, with no web framework.

A plan function (``app.inputs.model_text.plan_attention``, ``app.lessons.plans`` …) takes
an ``Ask``, the request's path parameters, query, body bytes and the settings, parses it
strictly (raising ``FieldError`` and friends, answered 4xx naming the field) and prices
it: the ``Plan`` carries the ``Cost`` the runner (``app.http.runner``) checks against the
budget before any work, what to say to reduce it, and the parsed arguments the route's
work function takes. Pure: the same ``Ask`` always gives the same ``Plan``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
