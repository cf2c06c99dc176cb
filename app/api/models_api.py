"""Real models under ``/api/v1/models``: the list, a text's attention in every head, and
one head as a body for ``POST /api/v1/attention``.

The computing routes are declared to the one runner (``app.http.runner``): refuse an
unknown or missing model (404; a missing one names the command that installs it) before
the body is read, read it within ``MODEL_BODY_BYTES``, plan and price it from the token
bound, layers and heads (``app.inputs.model_text``), then load the model (once per
worker), run it and encode the answer in a worker thread under a heavy slot held until
the answer is sent; an identical request shares the answer (``app.http.memo``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.api.models import (
    ModelAttentionResponse,
    ModelGenerateResponse,
    ModelHeadResponse,
    ModelList,
    ModelNotFound,
)
from app.http.body import body_doc
from app.http.responses import POST_ERRORS
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs.errors import FieldError, error_detail
from app.inputs.model_text import (
    MODEL_BODY_BYTES,
    ModelGenerate,
    ModelHead,
    ModelShape,
    ModelText,
    plan_attention,
    plan_generate,
    plan_head,
)
from app.inputs.plan import Ask, Plan
from app.models import generation, head_state, registry, summaries
from app.models.base import ModelSpec
from app.models.errors import ModelInputError, NotInstalledError, UnknownModelError
from app.models.smollm import SmolLM2
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
                            for head, pattern in enumerate(row)],
            "kv_heads": s.key_value_heads, "rope_base": s.rope_base,
            "head_groups": s.head_groups(), "generates": entry.generates}  # fmt: skip


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
    return encode({
        "tokens": list(trace.tokens),
        # Rounded in float64, sent as float32: orjson writes the shortest float32 form,
        # "0.123457", a quarter faster than float64's.
        "attentions": _rounded(trace.attentions),
        "summaries": summaries.of_trace(spec, trace),
        "special": special,
        "causal": spec.causal,
        # [layer][kv_head][token][d_k], float32 as the forward holds them (k after RoPE).
        "k": _contiguous(trace.keys),
        "v": _contiguous(trace.values),
    })  # fmt: skip


def _contiguous(array: np.ndarray | None) -> np.ndarray | None:
    """``array`` in C order (what orjson writes), or None for a model that keeps none."""
    return None if array is None else np.ascontiguousarray(array)


def sends_kv(spec: ModelSpec) -> int:
    """Key/value heads whose k and v the attention answer holds: those of a model with
    grouped key/value heads (its trace keeps q, k, v), else none."""
    return spec.key_value_heads if spec.kv_heads is not None else 0


def head_answer(model_id: str, text: str, layer: int, head: int) -> bytes:
    """The JSON of POST /models/{id}/head (in the worker thread)."""
    spec = registry.entry(model_id).spec
    return encode({"body": head_state.head_body(model_id, text, layer, head),
                   "note": head_state.note(spec)})  # fmt: skip


def shape_of(model_id: str) -> ModelShape:
    """What pricing needs of an installed model (``check`` ran: it exists)."""
    s: ModelSpec = registry.entry(model_id).spec
    return ModelShape(
        s.layers, s.heads, s.d_model, s.d_k, len(s.special_tokens), s.max_tokens, sends_kv(s),
        s.key_value_heads,
    )  # fmt: skip


def _missing(request: Request) -> Response | None:
    return missing(request.path_params["model_id"])


def _plan_attention(ask: Ask) -> Plan:
    return plan_attention(ask.data, shape_of(ask.path["model_id"]))


def _plan_head(ask: Ask) -> Plan:
    model_id, body = ask.path["model_id"], ask.data
    _run(head_state.check_head, registry.entry(model_id).spec, body.layer, body.head)
    return plan_head(body, shape_of(model_id))


def _plan_generate(ask: Ask) -> Plan:
    model_id, body = ask.path["model_id"], ask.data
    entry = registry.entry(model_id)
    if not entry.generates:
        able = ", ".join(m for m, e in registry.MODELS.items() if e.generates)
        raise FieldError(
            "model_id",
            f"{entry.spec.name} ({model_id}) does not generate text; models that do: {able}",
            ["path", "model_id"],
        )
    _run(generation.check_step_count, body.steps)
    return plan_generate(body, shape_of(model_id))


def generate_answer(model_id: str, body: ModelGenerate) -> bytes:
    """The JSON of POST /models/{id}/generate (in the worker thread)."""
    model = registry.get(model_id)
    assert isinstance(model, SmolLM2)  # the registry's generating model
    prompt = model.ids(body.text)
    steps = generation.generate(model, body.text, body.steps, body.seed)
    per_token = generation.bytes_per_token()
    return encode({
        "tokens": model.bpe.token_texts(prompt),
        "text": model.bpe.decode([s.token for s in steps]),
        "greedy": body.seed is None,
        "seed": body.seed,
        "bytes_per_token": per_token,
        "prompt_cache_bytes": per_token * len(prompt),
        "steps": [{"id": s.token, "token": s.text, "position": s.position,
                   "weights": _rounded(s.weights), "cache_bytes": s.cache_bytes}
                  for s in steps],
    })  # fmt: skip


def _rounded(weights: np.ndarray) -> np.ndarray:
    """Weights rounded to ``WEIGHT_DECIMALS`` in float64, sent as float32 (as the attention
    answer's)."""
    return np.round(weights.astype(np.float64), WEIGHT_DECIMALS).astype(np.float32)


def _generate_work(request: Request, plan: Plan) -> Answer:
    return Answer(_run(generate_answer, request.path_params["model_id"], plan.args))


def _attention_work(request: Request, plan: Plan) -> Answer:
    return Answer(_run(attention_answer, request.path_params["model_id"], plan.args))


def _head_work(request: Request, plan: Plan) -> Answer:
    body = plan.args
    model_id = request.path_params["model_id"]
    return Answer(_run(head_answer, model_id, body.text, body.layer, body.head))


@router.post(
    "/models/{model_id}/attention",
    response_model=ModelAttentionResponse,
    summary="A text's attention in every layer and head of a real model",
    responses=MODEL_ERRORS,
    openapi_extra=body_doc(ModelText),
)
@declare("json", plan=_plan_attention, work=_attention_work, body=MODEL_BODY_BYTES,
         model=ModelText, check=_missing)  # fmt: skip
async def model_attention(request: Request, model_id: str) -> Response:
    """The tokens as the model splits the text, every head's weights `[layer][head]
    [query][key]`, a summary per head (its pattern and entropy), which tokens are
    special, and for a model with grouped key/value heads (SmolLM2) each key/value head's
    k (after RoPE) and v `[layer][kv_head][token][d_k]`."""
    raise NotImplementedError  # run by app.http.runner


@router.post(
    "/models/{model_id}/head",
    response_model=ModelHeadResponse,
    summary="One head of a real model as a body for POST /api/v1/attention",
    responses=MODEL_ERRORS,
    openapi_extra=body_doc(ModelHead),
)
@declare("json", plan=_plan_head, work=_head_work, body=MODEL_BODY_BYTES, model=ModelHead,
         check=_missing)  # fmt: skip
async def model_head(request: Request, model_id: str) -> Response:
    """X (the layer's input, with a column of ones for the biases), that head's W^Q,
    W^K, W^V (each with its bias as a last row), scaling on and the causal mask for a
    causal model: POSTed to /api/v1/attention, its weights are the head's attention."""
    raise NotImplementedError  # run by app.http.runner


@router.post(
    "/models/{model_id}/generate",
    response_model=ModelGenerateResponse,
    summary="A real model adding tokens one at a time, with each new query's attention",
    responses=MODEL_ERRORS,
    openapi_extra=body_doc(ModelGenerate),
)
@declare("json", plan=_plan_generate, work=_generate_work, body=MODEL_BODY_BYTES,
         model=ModelGenerate, check=_missing)  # fmt: skip
async def model_generate(request: Request, model_id: str) -> Response:
    """The prompt runs once, then each step adds one token (greedy, or drawn with `seed`)
    by a forward of that token alone against the key/value cache: per step the token,
    its query's weights `[layer][head][key]` over every token so far, and the cache's
    bytes after it. A model that does not generate (`generates` false in the listing) is
    a 422 naming `model_id`."""
    raise NotImplementedError  # run by app.http.runner
