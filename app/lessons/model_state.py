"""A lesson step on one head of a real model: the main page's model link,
``model=…&text=…&layer=…&head=…`` (layer and head counted from 1, as ``app.web.model_link``
reads them; ``head`` is then the model's head, not the view's), kept as the step's query,
so the step reopens that head and every number comes from the model's own weights when
the lesson is planned, never typed or rounded into the lesson.

Two parts, as every state here: ``read_model`` checks the query against the registry and
the model's tokenizer and prices the forward pass (``app.inputs.model_text.head_cost``,
the price of ``POST /api/v1/models/{id}/head``) with nothing run; ``plan_model`` runs it
(``app.models.head_state.head_body``: that layer's input, the head's own W^Q, W^K, W^V
with their biases) and checks the body as any link's state is checked. The figures and
every computed question (which key a row weighs most, …) then read that head's weights.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from app.inputs.errors import FieldError
from app.inputs.limits import BYTES_PER_NUMBER, Cost, check_cost
from app.inputs.link import LinkState, to_query
from app.inputs.model_text import MAX_TEXT_CHARS, head_cost
from app.inputs.resolve import Plan, StateError, check_request, make_plan
from app.inputs.view import ViewState
from app.lessons.format import MODEL_KEYS, LessonError
from app.models import head_state, registry
from app.models.errors import ModelError, ModelInputError
from app.models.text import tokens_of
from app.settings import Settings

_COUNT = re.compile(r"[1-9][0-9]{0,3}")


@dataclass(frozen=True)
class ModelAsk:
    """A model link read and priced (nothing run): layer and head counted from 1."""

    model: str
    text: str
    layer: int
    head: int
    cost: Cost  # the forward pass and the body it makes
    view: dict[str, str]  # the query's other keys: the view
    switches: tuple[tuple[str, bool | str], ...] = ()  # a changed state's scale and mask

    @property
    def query(self) -> str:
        """The page link's own keys, as ``app.web.model_link`` writes them."""
        return urlencode({"model": self.model, "text": self.text, "layer": self.layer,
                          "head": self.head})  # fmt: skip


@dataclass(frozen=True)
class ModelPlan(Plan):
    """A model head's state planned: the plan of its body, and its page link's keys."""

    query: str = ""
    numbers: int = 0  # the body's numbers (a lesson page inlines them)


def is_model(params: Mapping[str, str]) -> bool:
    return "model" in params


def _count(params: Mapping[str, str], key: str, high: int, path: str) -> int:
    raw = params.get(key)
    if raw is None or not _COUNT.fullmatch(raw) or int(raw) > high:
        got = "missing" if raw is None else repr(raw[:20])
        raise LessonError(path, f"{key}: must be a whole number from 1 to {high}, not {got}")
    return int(raw)


# A direction question's changed state may switch the head's scaling or mask (its body's
# ``scale`` and ``mask``), each value spelt one way.
SWITCHES: dict[str, dict[str, bool | str]] = {
    "scale": {"1": True, "0": False},
    "mask": {"none": "none", "causal": "causal"},
}


def _switches(params: Mapping[str, str], path: str) -> tuple[tuple[str, bool | str], ...]:
    out: list[tuple[str, bool | str]] = []
    for key, values in SWITCHES.items():
        if key not in params:
            continue
        if params[key] not in values:
            raise LessonError(path, f"{key}: must be {' or '.join(values)}, not "
                              f"{params[key][:20]!r}")  # fmt: skip
        out.append((key, values[params[key]]))
    return tuple(out)


def read_model(params: Mapping[str, str], path: str) -> ModelAsk:
    """The model link of a step's query checked (the registry, layer, head, text) and
    priced; ``LessonError`` naming ``path`` and the parameter. The model is loaded (its
    tokenizer reads the text) but not run."""
    model_id = params["model"]
    entry = registry.MODELS.get(model_id)
    if entry is None:
        known = ", ".join(registry.MODELS)
        raise LessonError(
            path, f"model: there is no model {model_id[:40]!r}; the models are {known}"
        )
    if not registry.installed(model_id):
        raise LessonError(path, f"model: {entry.spec.name} is not installed here; install it "
                          f"with: {entry.install}")  # fmt: skip
    for key in ("s", "preset"):
        if key in params:
            raise LessonError(path, f"{key}: a model's head is the state; give model or {key}")
    spec = entry.spec
    layer = _count(params, "layer", spec.layers, path)
    head = _count(params, "head", spec.heads, path)
    try:
        tokens = tokens_of(registry.get(model_id), params.get("text", ""), MAX_TEXT_CHARS)
    except ModelError as exc:  # the text, or the model's files
        field = exc.field if isinstance(exc, ModelInputError) else "model"
        raise LessonError(path, f"{field}: {getattr(exc, 'message', str(exc))}") from None
    cost = head_cost(len(tokens), spec.layers, spec.heads, spec.d_model, spec.d_k)
    view = {k: v for k, v in params.items() if k not in (*MODEL_KEYS, "head", *SWITCHES)}
    return ModelAsk(model_id, params["text"], layer, head, cost, view, _switches(params, path))


def plan_model(ask: ModelAsk, path: str, settings: Settings, figures: int) -> ModelPlan:
    """The head's state: the model run (its price checked first), the body checked and
    priced as a link's state with ``figures`` figures."""
    check_cost(ask.cost, settings, "the model step's text", field=path)
    try:
        body = head_state.head_body(ask.model, ask.text, ask.layer - 1, ask.head - 1)
        body.update(ask.switches)  # a changed state's scaling or mask switched
        request, shape, cost = check_request(body, settings, "model", figures)
        view = ViewState.from_query(ask.view)
    except ModelError as exc:
        raise LessonError(path, f"model: {exc}") from None
    except StateError as exc:
        raise LessonError(path, f"{exc.param}: {exc.message}") from None
    except FieldError as exc:
        raise LessonError(path, f"{exc.field}: {exc.message}") from None
    plan = make_plan(LinkState(body=body, view=view), request, shape, cost + ask.cost, "model")
    numbers = (shape.l_q + len(body["w_q"][0]) * 3) * len(body["x"][0])
    return ModelPlan(plan.link, plan.request, plan.shape, plan.cost, plan.param,
                     query=ask.query, numbers=numbers)  # fmt: skip


def page_query(plan: Plan) -> str:
    """The main page's query that opens a planned state: a model head's own link (its
    keys and the view), else the state as ``s=`` or its preset."""
    if isinstance(plan, ModelPlan):
        view = plan.link.view.to_query()
        view.pop("head", None)  # the model's head is the link's head
        return plan.query + ("&" + urlencode(view) if view else "")
    return to_query(plan.link)


def page_bytes(plan: Plan | None) -> int:
    """What a lesson page inlines of a state beyond its query: a model head's body."""
    return plan.numbers * BYTES_PER_NUMBER if isinstance(plan, ModelPlan) else 0
