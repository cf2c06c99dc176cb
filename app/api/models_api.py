"""Real models under ``/api/v1/models``: the list, a text's attention in every head, and
one head as a body for ``POST /api/v1/attention``.

The computing routes go through the one pipeline: parse the body (``app.inputs.
model_text``), refuse an unknown or missing model (404; a missing one names the command
that installs it), price from the token bound, layers and heads, then load the model
(once per worker), run it and encode the answer in a worker thread under a heavy slot.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.api.models import ModelAttentionResponse, ModelHeadResponse, ModelList, ModelNotFound
from app.http.admission import until_sent
from app.http.body import body_doc, read_body
from app.http.pipeline import compute, computes, price
from app.http.responses import POST_ERRORS, JSONBytes, settings_of
from app.http.routing import LeanRoute
from app.inputs.errors import FieldError, error_detail
from app.inputs.model_text import ModelHead, ModelText, attention_cost, head_cost, token_bound
from app.models import head_state, registry, summaries
from app.models.base import ModelSpec
from app.models.errors import ModelInputError, NotInstalledError, UnknownModelError
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["models"], route_class=LeanRoute)

WEIGHT_DECIMALS = 6
MODEL_ERRORS = {
    **POST_ERRORS,
    404: {
        "model": ModelNotFound,
        "description": "No model has this id, or it is not installed on this server: then "
        "`install` is the command that installs it.",
    },
}


def describe(model_id: str) -> dict[str, Any]:
    """A model's listing: its spec, whether it is installed, how to install it."""
    entry = registry.entry(model_id)
    s = entry.spec
    return {"id": s.id, "name": s.name, "causal": s.causal, "layers": s.layers,
            "heads": s.heads, "d_model": s.d_model, "d_k": s.d_k,
            "installed": registry.installed(model_id), "licence": s.licence,
            "source": s.source, "tokenizer": s.tokenizer, "max_tokens": s.max_tokens,
            "install": entry.install,
            "known_heads": [{"layer": layer, "head": head, "pattern": pattern}
                            for layer, row in enumerate(entry.known_heads)
                            for head, pattern in enumerate(row)]}  # fmt: skip


@router.get("/models", response_model=ModelList, summary="The real models")
def list_models() -> dict[str, Any]:
    """Every model: its sizes, licence and source, and whether it is installed here (if
    not, `install` is the command that installs it)."""
    return {"models": [describe(model_id) for model_id in registry.MODELS]}


def missing(model_id: str) -> JSONResponse | None:
    """The 404 for an unknown or uninstalled model, or None when it can run."""
    loc = ["path", "model_id"]
    try:
        if registry.installed(model_id):
            return None
        entry = registry.entry(model_id)
        error = NotInstalledError(entry.spec.name, model_id, entry.install)
        body = error_detail("model_id", str(error), "not_installed", loc)
        return JSONResponse({**body, "install": entry.install}, status_code=404)
    except UnknownModelError as exc:
        return JSONResponse(error_detail("model_id", str(exc), "not_found", loc), 404)


def _run(fn: Any, *args: Any) -> Any:
    """``fn(*args)``, a model's refusal of the input as the API's 422 naming the field."""
    try:
        return fn(*args)
    except ModelInputError as exc:
        raise FieldError(exc.field, exc.message) from None


def attention_answer(model_id: str, text: str) -> bytes:
    """The JSON of POST /models/{id}/attention (in the worker thread)."""
    trace = registry.trace(model_id, text)
    spec: ModelSpec = registry.entry(model_id).spec
    special = [t in spec.special_tokens for t in trace.tokens]
    words = summaries.word_ids(trace.tokens, spec.tokenizer.startswith("WordPiece"))
    return encode({
        "tokens": list(trace.tokens),
        # Rounded in float64, sent as float32: orjson writes the shortest float32 form,
        # "0.123457", a quarter faster than float64's.
        "attentions": np.round(trace.attentions.astype(np.float64), WEIGHT_DECIMALS).astype(
            np.float32
        ),
        "summaries": summaries.summarise(trace.attentions, trace.tokens, special, words),
        "special": special,
        "causal": spec.causal,
    })  # fmt: skip


def head_answer(model_id: str, text: str, layer: int, head: int) -> bytes:
    """The JSON of POST /models/{id}/head (in the worker thread)."""
    return encode({"body": head_state.head_body(model_id, text, layer, head),
                   "note": head_state.NOTE})  # fmt: skip


def _bound(spec: ModelSpec, text: str) -> int:
    return token_bound(text, len(spec.special_tokens), spec.max_tokens)


@router.post(
    "/models/{model_id}/attention",
    response_model=ModelAttentionResponse,
    summary="A text's attention in every layer and head of a real model",
    responses=MODEL_ERRORS,
    openapi_extra=body_doc(ModelText),
)
@computes
async def model_attention(request: Request, model_id: str) -> Response:
    """The tokens as the model splits the text, every head's weights `[layer][head]
    [query][key]`, a summary per head (its pattern and entropy) and which tokens are
    special."""
    if (refusal := missing(model_id)) is not None:  # the path first: the model is missing
        return refusal
    body = await read_body(request, ModelText, settings_of(request))
    s = registry.entry(model_id).spec
    cost = attention_cost(_bound(s, body.text), s.layers, s.heads, s.d_model)
    cost = price(request, cost, "text", field="text")
    payload = await compute(request, cost, _run, attention_answer, model_id, body.text)
    return until_sent(JSONBytes(payload))


@router.post(
    "/models/{model_id}/head",
    response_model=ModelHeadResponse,
    summary="One head of a real model as a body for POST /api/v1/attention",
    responses=MODEL_ERRORS,
    openapi_extra=body_doc(ModelHead),
)
@computes
async def model_head(request: Request, model_id: str) -> Response:
    """X (the layer's input, with a column of ones for the biases), that head's W^Q,
    W^K, W^V (each with its bias as a last row), scaling on and the causal mask for a
    causal model: POSTed to /api/v1/attention, its weights are the head's attention."""
    if (refusal := missing(model_id)) is not None:  # the path first: the model is missing
        return refusal
    body = await read_body(request, ModelHead, settings_of(request))
    s = registry.entry(model_id).spec
    _run(head_state.check_head, s, body.layer, body.head)
    cost = head_cost(_bound(s, body.text), s.layers, s.heads, s.d_model, s.d_k)
    cost = price(request, cost, "text", field="text")
    payload = await compute(
        request, cost, _run, head_answer, model_id, body.text, body.layer, body.head
    )
    return until_sent(JSONBytes(payload))
