"""The main page opened on one head of a real model: ``/?model=minilm&text=…&layer=1&head=3``.

The link carries the model, the sentence, and the layer and head counted from 1 (as a
person reads them), not the numbers, so it stays short and reproducible. The state is
``app.models.head_state.head_body``: that layer's input hidden states as X with a final
column of ones (the biases folded in), the head's slices of W^Q, W^K, W^V with their
biases as a last row, scaled by √d_k, and the causal mask for a causal model. Building it
runs the model, so it is priced like ``POST /api/v1/models/{id}/head`` (``model_views.link_cost``)
and computed off the event loop under a slot; the body is then checked as any link's
state (limits, figure limits, the cost of every figure). Every failure is a
``StateError`` naming the URL parameter (``model``, ``text``, ``layer``, ``head``).

After the learner edits a number the page's script writes an ordinary ``s=`` state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request

from app.http.pipeline import compute, price
from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.inputs.link import LinkState
from app.inputs.resolve import Plan, StateError, check_request, make_plan
from app.inputs.view import ViewState
from app.models.errors import ModelError, ModelInputError
from app.settings import Settings
from app.web import model_views

KEYS = ("model", "text", "layer", "head")
_COUNT = re.compile(r"[1-9][0-9]{0,3}")


@dataclass(frozen=True)
class ModelHead:
    """What the page's banner says about the state: which model, head and sentence."""

    model: str  # id
    name: str
    text: str
    layer: int  # counted from 1
    head: int  # counted from 1
    d_model: int
    d_k: int
    causal: bool
    query: str  # the link's own query (model, text, layer, head)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def requested(params: Mapping[str, str]) -> bool:
    """Whether the page's query asks for a model's head."""
    return "model" in params


def _count(params: Mapping[str, str], key: str, high: int) -> int:
    raw = params.get(key)
    if raw is None:
        raise StateError(key, f"give the {key} to open, a whole number from 1 to {high}")
    if not _COUNT.fullmatch(raw) or int(raw) > high:
        raise StateError(key, f"{key} must be a whole number from 1 to {high}, not {raw!r}")
    return int(raw)


def parse(params: Mapping[str, str]) -> ModelHead:
    """The model, sentence, layer and head of the query, checked against the registry
    (nothing runs)."""
    model_id = params.get("model", "")
    found = model_views.find(model_id)
    if found is None:
        raise StateError("model", f"there is no model {model_id!r}")
    spec = found.spec
    if not found.installed:
        raise StateError("model", found.missing)
    layer = _count(params, "layer", spec.layers)
    head = _count(params, "head", spec.heads)
    text = params.get("text", "")
    try:
        model_views.check_text(model_views.load(model_id), text)
    except FieldError as exc:
        raise StateError("text", exc.message) from None
    query = urlencode({"model": model_id, "text": text, "layer": layer, "head": head})
    return ModelHead(model_id, spec.name, text, layer, head, spec.d_model, spec.d_k,
                     spec.causal, query)  # fmt: skip


def _body(head: ModelHead) -> dict[str, Any]:
    try:
        return model_views.head_body(head.model, head.text, head.layer - 1, head.head - 1)
    except ModelInputError as exc:
        raise StateError(exc.field, exc.message) from None
    except ModelError as exc:
        raise StateError("model", str(exc)) from None


def planned(head: ModelHead, params: Mapping[str, str], settings: Settings, figures: int) -> Plan:
    """The head's state run (the work: off the loop), checked as a link's state would be
    (limits, figure limits, the cost of ``figures`` figures) with the view of the query's
    other parameters: a ``Plan`` that ``resolve_plan`` runs like any link's."""
    body = _body(head)
    request, shape, cost = check_request(body, settings, "model", figures)
    rest = {k: v for k, v in params.items() if k not in KEYS}
    try:
        view = ViewState.from_query(rest).for_tokens(len(body["tokens"]))
    except FieldError as exc:
        raise StateError(exc.field, exc.message) from None
    return make_plan(LinkState(body=body, view=view), request, shape, cost, "model")


def token_count(head: ModelHead) -> int:
    """How many tokens the head's sentence makes (tokenizing: cheap, but work)."""
    return len(model_views.load(head.model).tokenize(head.text))


def cost_of(head: ModelHead) -> Cost:
    """The price of running the model for the head's state (``model_views.link_cost``)."""
    return model_views.link_cost(model_views.load(head.model).spec, token_count(head))


async def open_head(
    request: Request, params: Mapping[str, str], settings: Settings, figures: int
) -> tuple[LinkState, ModelHead]:
    """The page state of the query's head (priced, computed off the loop, then checked as
    a link's state would be), and what the banner says about it."""
    head = parse(params)
    cost = price(request, cost_of(head), "text")
    plan = await compute(request, cost, planned, head, params, settings, figures)
    return plan.link, head
