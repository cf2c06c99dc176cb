"""API v1 under ``/api/v1``: attention, softmax and presets.

The two computing routes are declared to the one runner (``app.http.runner``): the body
read within the app's limit (a large one under its slot, priced by its number count
before parsing), planned and priced from the shapes alone (``app.inputs.attention_plan``),
then computed and encoded by ``app.wire`` (orjson: fast, and −inf becomes null), off the
event loop when heavy; the response models only document the shape in OpenAPI.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from app import presets
from app.api.models import (
    AttentionResponse,
    PresetDetail,
    PresetSummary,
    SoftmaxResponse,
)
from app.attention import run, softmax_stage
from app.attention.softmax import mask_allowed
from app.http.body import body_doc
from app.http.caching import cacheable
from app.http.responses import POST_ERRORS, error_doc
from app.http.routing import LeanRoute
from app.http.runner import APP_BODY_LIMIT, declare
from app.http.sending import Answer
from app.inputs.attention_plan import plan_attention, plan_softmax, softmax_budget
from app.inputs.body import AttentionOptionsRequest
from app.inputs.errors import problem
from app.inputs.limits import input_cost
from app.inputs.plan import Plan
from app.inputs.softmax import SoftmaxRequest
from app.wire import encode, softmax_to_dict, stages_to_chunks

router = APIRouter(prefix="/api/v1", tags=["attention"], route_class=LeanRoute)


def _preset_examples() -> dict[str, dict[str, Any]]:
    """Every preset as a named request example, the running example first (the default
    body in the interactive docs)."""
    out: dict[str, dict[str, Any]] = {}
    for summary in presets.preset_summaries():
        preset = presets.get_preset(summary["id"]) or {"body": {}}
        out[summary["id"]] = {"summary": summary["title"], "description": summary["description"],
                              "value": preset["body"]}  # fmt: skip
    return out


SOFTMAX_EXAMPLES = {
    "textbook": {"summary": "[1, 2, 3]", "value": {"scores": [1, 2, 3]}},
    "stretched": {"summary": "[1, 2, 3] × 8", "value": {"scores": [1, 2, 3], "stretch": 8}},
    "matrix": {"summary": "Scaled scores of the running example",
               "value": {"scores": [[2, 1, 1], [1, 2.5, 1.5], [1.5, 1, 2.5]]}},
    "values": {"summary": "Three scores become weights and an output (lab A1)",
               "value": {"scores": [2, 1, 0], "values": [1, 2, 3]}},
    "mask-after": {"summary": "Causal mask after the softmax: rows sum to less than 1",
                   "value": {"scores": [[1, 0.5, -0.5], [0.5, 1.5, 0], [0, 1, 2]],
                             "mask": "causal", "mask_order": "after"}},
    "empty-row": {"summary": "A row with no allowed key: zeros and a warning",
                  "value": {"scores": [[1, 2], [3, 4]], "values": [[0, -1], [1, 2]],
                            "allowed": [[False, False], [True, True]]}},
}  # fmt: skip


def _stages(_: Request, plan: Plan) -> Answer:
    """Every stage as JSON: one chunk for a small answer, else chunks written in turn (a
    48 MB answer is never copied into one buffer)."""
    body: AttentionOptionsRequest = plan.args
    chunks = stages_to_chunks(run(body.to_input()))
    return Answer(chunks[0]) if len(chunks) == 1 else Answer(b"", chunks=tuple(chunks))


def _softmax(_: Request, plan: Plan) -> Answer:
    body: SoftmaxRequest = plan.args
    masked = body.mask != "none" or body.allowed is not None
    allowed = mask_allowed(body.shape(), body.mask, body.allowed_array()) if masked else None
    scores, values = body.scores_array(), body.values_array()
    stage = softmax_stage(scores, body.stretch, allowed=allowed,
                          mask_order=body.mask_order, values=values)  # fmt: skip
    vector_values = values is not None and values.ndim == 1
    return Answer(encode(softmax_to_dict(stage, scores.ndim == 1, vector_values)))


@router.post(
    "/attention",
    response_model=AttentionResponse,
    summary="Every stage of scaled dot-product attention",
    responses=POST_ERRORS,
    openapi_extra=body_doc(AttentionOptionsRequest, _preset_examples()),
)
# cache=False: a usual answer takes ~0.1 ms and its canonical key ~10 µs more
# (issue 27's hot path); a heavy one is still shared with its identical requests.
@declare("json", plan=plan_attention, work=_stages, body=APP_BODY_LIMIT,
         model=AttentionOptionsRequest, budget=input_cost, cache=False)  # fmt: skip
async def attention(request: Request) -> Response:
    """softmax(Q Kᵀ / √d_k) V for the given inputs, with Q, K, V, the raw, scaled and
    masked scores, the weights, the output and per-row statistics. Blocked cells of
    `masked` are null."""
    raise NotImplementedError  # run by app.http.runner


@router.post(
    "/softmax",
    response_model=SoftmaxResponse,
    summary="Softmax of a score vector or matrix",
    responses=POST_ERRORS,
    openapi_extra=body_doc(SoftmaxRequest, SOFTMAX_EXAMPLES),
)
@declare("json", plan=plan_softmax, work=_softmax, body=APP_BODY_LIMIT, model=SoftmaxRequest,
         budget=softmax_budget, budget_reduce="scores")  # fmt: skip
async def softmax(request: Request) -> Response:
    """Weights, exponentials, their sum, entropy, and p(1 − p) for the largest weight p,
    after multiplying the scores by `stretch` (Figure 12); with `values`, the output
    Σ weight·value per row. `mask` and `allowed` block keys, before the softmax (blocked
    scores become −∞) or after it (`mask_order`: the unmasked weights with blocked cells
    set to 0, so rows may sum to less than 1). A row with no allowed key is all zeros,
    with a warning naming the row (0-based)."""
    raise NotImplementedError  # run by app.http.runner


@router.get("/presets", response_model=list[PresetSummary], summary="Named examples")
def list_presets(response: Response) -> list[dict[str, str]]:
    """Every preset's id, title and description; the running example comes first."""
    cacheable(response)
    return presets.preset_summaries()


@router.get(
    "/presets/{preset_id}",
    response_model=PresetDetail,
    summary="One named example as a request body",
    responses={404: error_doc("No preset has this id.")},
)
def get_preset(preset_id: str, response: Response) -> dict[str, Any]:
    """The preset's request body, ready to POST to /api/v1/attention."""
    found = presets.get_preset(preset_id)
    if found is None:
        known = ", ".join(presets.preset_ids())
        msg = f"no preset {preset_id!r}; known: {known}"
        raise HTTPException(404, [problem("preset_id", msg, "not_found", ["path", "preset_id"])])
    cacheable(response)
    return found
