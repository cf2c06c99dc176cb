"""API v1 for "attention today" (issue 31 item 5): ``POST /api/v1/kv-cache``,
``GET /api/v1/kv-cache/presets``, ``GET /api/v1/alibi?heads=N`` and ``POST /api/v1/flash``.
Validate, call, serialise.

Each is declared to the one runner (``app.http.runner``): a body of a few numbers read
within ``SMALL_BODY_BYTES`` (or none), planned and priced in ``app.inputs.today``; the
maths is ``app.labs.kv_cache``, ``app.labs.alibi`` and ``app.labs.flash``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.body import body_doc
from app.http.params import whole_query_doc
from app.http.responses import POST_ERRORS, error_doc
from app.http.routing import LeanRoute
from app.http.runner import declare
from app.http.sending import Answer
from app.inputs import today
from app.inputs.plan import Plan
from app.labs import kv_cache
from app.labs.alibi import slopes
from app.wire import encode

router = APIRouter(prefix="/api/v1", tags=["attention today"], route_class=LeanRoute)


def _examples(*names: str) -> dict[str, dict[str, object]]:
    """A preset's sizes as an example body, with its full context as tokens."""
    out: dict[str, dict[str, object]] = {}
    for name in names:
        c = kv_cache.preset(name)
        value: dict[str, object] = {
            "layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads, "d_head": c.d_head,
            "bytes_per_value": c.bytes_per_value, "tokens": c.context,
        }  # fmt: skip
        if c.window is not None:
            value["window"] = c.window
        out[name.lower().replace(" ", "-")] = {"summary": f"{name} at its full context",
                                               "value": value}  # fmt: skip
    return out


KV_EXAMPLES = _examples("OPT-13B", "Llama-2-70B", "Mistral-7B")
FLASH_EXAMPLES = {
    "a100-like": {"summary": "N = 1024, d = 64, 100 KB of float32 on chip",
                  "value": {"n": 1024, "d": 64, "sram": 25_600}},
    "smallest": {"summary": "The least on-chip memory Algorithm 1 admits: M = 4·d",
                 "value": {"n": 8, "d": 2, "sram": 8}},
}  # fmt: skip
GET_ERRORS: dict[int | str, dict[str, Any]] = {
    422: error_doc("A parameter is missing, malformed, out of bounds or unknown; `detail` "
                   "names it."),
}  # fmt: skip


def _kv_cache(_: Request, plan: Plan) -> Answer:
    return Answer(encode(today.cache_to_dict(today.kv_cache_of(plan.args))))


def _presets(_: Request, plan: Plan) -> Answer:
    return Answer(encode(today.presets_to_dict()))


def _alibi(_: Request, plan: Plan) -> Answer:
    return Answer(encode({"slopes": slopes(plan.args)}))


def _flash(_: Request, plan: Plan) -> Answer:
    return Answer(encode(today.flash_to_dict(plan.args)))


@router.post(
    "/kv-cache",
    response_model=today.KVCacheResponse,
    summary="The key/value cache's bytes per token and per request",
    responses=POST_ERRORS,
    openapi_extra=body_doc(today.KVCacheRequest, KV_EXAMPLES),
)
@declare("json", plan=today.plan_kv_cache, work=_kv_cache, body=today.SMALL_BODY_BYTES,
         model=today.KVCacheRequest)  # fmt: skip
async def kv_cache_of(request: Request) -> Response:
    """bytes_per_token = 2 · layers · kv_heads · d_head · bytes_per_value (one key and one
    value row per layer and key/value head), the request's bytes, how many times smaller
    sharing key/value heads makes it, and with a window the span W · layers and the rolling
    buffer's bytes. Exact integers below 2^53."""
    raise NotImplementedError  # run by app.http.runner


@router.get(
    "/kv-cache/presets",
    response_model=today.KVPresets,
    summary="Named model configurations and their caches",
)
@declare("json", plan=today.plan_presets, work=_presets)
async def kv_cache_presets(request: Request) -> Response:
    """OPT-13B, Llama-2-7B, Llama-2-70B, Mistral-7B, SmolLM2-135M and GPT-2 small: their
    sizes, where they are printed, and their cache per token and at their full context."""
    raise NotImplementedError  # run by app.http.runner


@router.get(
    "/alibi",
    response_model=today.AlibiResponse,
    summary="ALiBi's slope of each head",
    responses=GET_ERRORS,
    openapi_extra=whole_query_doc(
        "heads", f"How many heads, 1 … {today.MAX_ALIBI_HEADS} (ASCII digits).", 1,
        today.MAX_ALIBI_HEADS, 8,
    ),
)  # fmt: skip
@declare("json", plan=today.plan_alibi, work=_alibi)
async def alibi_slopes(request: Request) -> Response:
    """The slopes m of Press, Smith and Lewis's "Train Short, Test Long" for any head
    count: a geometric sequence for a power of two (8 heads: 1/2 … 1/256), the paper's
    interleaving rule otherwise."""
    raise NotImplementedError  # run by app.http.runner


@router.post(
    "/flash",
    response_model=today.FlashResponse,
    summary="FlashAttention's tile sizes and memory traffic",
    responses=POST_ERRORS,
    openapi_extra=body_doc(today.FlashRequest, FLASH_EXAMPLES),
)
@declare("json", plan=today.plan_flash, work=_flash, body=today.SMALL_BODY_BYTES,
         model=today.FlashRequest)  # fmt: skip
async def flash_blocks(request: Request) -> Response:
    """Algorithm 1's tiles for N tokens of width d and M numbers on chip: B_c = ⌈M / 4d⌉,
    B_r = min(⌈M / 4d⌉, d), T_r = ⌈N / B_r⌉, T_c = ⌈N / B_c⌉; and Theorem 2's memory
    traffic of the standard and the tiled algorithm, orders of growth, not counts."""
    raise NotImplementedError  # run by app.http.runner
