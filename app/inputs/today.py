"""Request and response models, plans and prices of the "attention today" API (issue 31
item 5): ``POST /api/v1/kv-cache``, ``GET /api/v1/kv-cache/presets``,
``GET /api/v1/alibi?heads=N`` and ``POST /api/v1/flash``. The maths is in
``app.labs.kv_cache``, ``app.labs.alibi`` and ``app.labs.flash``; here are the bounds,
the rules across fields (each a 422 naming the field) and the answers' shapes.

Every count of ``/kv-cache`` is an exact integer below 2^53, as ``/cost``'s: a JSON reader
holding numbers as float64 (JavaScript's) keeps integers exactly only below that. The
per-field bounds keep every count but ``bytes`` there; one rule across fields, said in
``tokens``' description, refuses a ``tokens`` for which ``bytes`` would reach 2^53 (a
422 naming ``tokens`` with the largest that fits). The bodies are a few named numbers,
read within ``SMALL_BODY_BYTES`` (413 above it).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from app.inputs.errors import FieldError
from app.inputs.fields import INTEGRAL
from app.inputs.limits import BYTES_PER_NUMBER, Cost
from app.inputs.plan import Ask, Plan
from app.inputs.position_cost import SMALL_BODY_BYTES
from app.inputs.query import query_int
from app.labs import flash, kv_cache

__all__ = ["SMALL_BODY_BYTES"]

EXACT_BELOW = 2**53  # integers above lose precision in a float64 JSON reader

# ---------------------------------------------------------------- KV cache

MAX_LAYERS = 1024
MAX_HEADS = 1024
MAX_D_HEAD = 2**14
MAX_BYTES_PER_VALUE = 8  # float64; 1 for int8 / fp8, 2 for fp16 / bf16, 4 for float32
MAX_TOKENS = 2**32


# Bounds before INTEGRAL, so the schema says them as JSON Schema keywords (fields.py).
Layers = Annotated[StrictInt, Field(ge=1, le=MAX_LAYERS), INTEGRAL]
Heads = Annotated[StrictInt, Field(ge=1, le=MAX_HEADS), INTEGRAL]
DHead = Annotated[StrictInt, Field(ge=1, le=MAX_D_HEAD), INTEGRAL]
BytesPerValue = Annotated[StrictInt, Field(ge=1, le=MAX_BYTES_PER_VALUE), INTEGRAL]
Tokens = Annotated[StrictInt, Field(ge=0, le=MAX_TOKENS), INTEGRAL]
Window = Annotated[StrictInt, Field(ge=1, le=MAX_TOKENS), INTEGRAL]

_OPT = kv_cache.preset("OPT-13B")
_MISTRAL = kv_cache.preset("Mistral-7B")


class KVCacheRequest(BaseModel):
    """One model's cache-relevant sizes and a request of ``tokens`` tokens (Kwon et al.,
    "Efficient Memory Management for Large Language Model Serving with PagedAttention")."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{
            "layers": _OPT.layers, "heads": _OPT.heads, "kv_heads": _OPT.kv_heads,
            "d_head": _OPT.d_head, "bytes_per_value": _OPT.bytes_per_value,
            "tokens": _OPT.context,
        }]},
    )  # fmt: skip

    layers: Layers = Field(description=f"Layers L, 1 … {MAX_LAYERS}.", examples=[_OPT.layers])
    heads: Heads = Field(description=f"Query heads h, 1 … {MAX_HEADS}.", examples=[_OPT.heads])
    kv_heads: Heads = Field(
        description="Key/value heads g: heads (multi-head), 1 (multi-query) or between "
        "(grouped-query). 1 ≤ kv_heads ≤ heads, and kv_heads must divide heads (else a 422 "
        "naming kv_heads).",
        examples=[_OPT.kv_heads],
    )
    d_head: DHead = Field(
        description=f"Width of one head's key (and value), d_k = d_v, 1 … {MAX_D_HEAD}.",
        examples=[_OPT.d_head],
    )
    bytes_per_value: BytesPerValue = Field(
        description="Bytes of one cached number: 1 (int8, fp8), 2 (fp16, bf16), 4 (float32), "
        f"at most {MAX_BYTES_PER_VALUE}.",
        examples=[_OPT.bytes_per_value],
    )
    tokens: Tokens = Field(
        description=f"Tokens cached for one request (one sequence), 0 … {MAX_TOKENS:,}, and "
        "at most the largest for which bytes = bytes_per_token · tokens < 2^53, exact in any "
        "JSON reader (else a 422 naming tokens gives that number).",
        examples=[_OPT.context],
    )
    window: Window | None = Field(
        None,
        description="Sliding window W (Mistral 7B): the span W · layers a position can reach "
        f"and a rolling buffer of W positions are answered too. 1 … {MAX_TOKENS:,}.",
        examples=[_MISTRAL.window],
    )

    def checked(self) -> KVCacheRequest:
        """Itself, once the rules across fields hold (FieldError naming the field)."""
        if self.kv_heads > self.heads:
            raise FieldError("kv_heads", f"kv_heads = {self.kv_heads} is more than heads = "
                             f"{self.heads}: each key/value head serves at least one query "
                             "head")  # fmt: skip
        if self.heads % self.kv_heads:
            near = divisors_near(self.heads, self.kv_heads)
            raise FieldError("kv_heads", f"kv_heads = {self.kv_heads} must divide heads = "
                             f"{self.heads} (each group of heads / kv_heads query heads "
                             f"shares one key/value head); try {near}")  # fmt: skip
        per_token = kv_cache.bytes_per_token(
            self.layers, self.kv_heads, self.d_head, self.bytes_per_value
        )
        if per_token * self.tokens >= EXACT_BELOW:
            raise FieldError("tokens", f"tokens = {self.tokens:,} makes bytes = "
                             f"{per_token * self.tokens:,}, past 2^53 where JSON readers lose "
                             f"precision; at most tokens = {(EXACT_BELOW - 1) // per_token:,} "
                             "with these sizes")  # fmt: skip
        return self


def divisors_near(heads: int, kv_heads: int) -> str:
    """The divisors of ``heads`` nearest to ``kv_heads``, as text for an error message."""
    divs = [d for d in range(1, heads + 1) if heads % d == 0]
    best = sorted(divs, key=lambda d: (abs(d - kv_heads), d))[:3]
    return " or ".join(str(d) for d in sorted(best))


def _count(description: str, example: int | None) -> Any:
    return Field(description=description, examples=[example])


_C = kv_cache.preset_cache(_OPT)
_W = kv_cache.preset_cache(_MISTRAL)


class KVCacheResponse(BaseModel):
    """What the cache of one request costs. Exact integers, every one below 2^53."""

    bytes_per_token: int = _count(
        "2 · layers · kv_heads · d_head · bytes_per_value: one key and one value row per "
        "layer and key/value head (OPT-13B: 2 × 40 × 40 × 128 × 2 = 819,200, the paper's "
        "800 KB).",
        _C.bytes_per_token,
    )
    bytes: int = _count("bytes_per_token · tokens: the whole request's cache.", _C.bytes)
    full_heads_bytes_per_token: int = _count(
        "The same model with kv_heads = heads (multi-head attention).",
        _C.full_heads_bytes_per_token,
    )
    ratio_to_full_heads: int = _count(
        "heads / kv_heads: how many times smaller the cache is than with one key/value head "
        "per query head (1: multi-head; heads: multi-query). Whole: kv_heads divides heads.",
        int(_C.ratio_to_full_heads),
    )
    span: int | None = _count(
        "With a window: W · layers, the tokens a position can reach after all the layers "
        "(Mistral 7B: 4096 × 32 = 131,072); null without.",
        _W.span,
    )
    buffer_bytes: int | None = _count(
        "With a window: bytes_per_token · min(tokens, W), the rolling buffer of W "
        "positions (position i in slot i mod W); null without.",
        _W.buffer_bytes,
    )


def cache_to_dict(c: kv_cache.KVCache) -> dict[str, Any]:
    """The ``/kv-cache`` answer: Python ints throughout (the ratio is whole)."""
    out = asdict(c)
    out["ratio_to_full_heads"] = c.full_heads_bytes_per_token // c.bytes_per_token
    return out


def plan_kv_cache(ask: Ask) -> Plan:
    """POST /api/v1/kv-cache: a few multiplications whatever the sizes, nothing to price
    (``args``: the checked body)."""
    body: KVCacheRequest = ask.data
    return Plan(Cost(0, 0), "tokens", args=body.checked())


def kv_cache_of(body: KVCacheRequest) -> kv_cache.KVCache:
    return kv_cache.cache(body.layers, body.heads, body.kv_heads, body.d_head,
                          body.bytes_per_value, body.tokens, body.window)  # fmt: skip


class KVPreset(KVCacheResponse):
    """A named configuration, its source, and its cache at its full context."""

    name: str = Field(description="The model's name.", examples=[_OPT.name])
    source: str = Field(description="Where its sizes are printed, by title.")
    layers: int = _count("Layers L.", _OPT.layers)
    heads: int = _count("Query heads h.", _OPT.heads)
    kv_heads: int = _count("Key/value heads g.", _OPT.kv_heads)
    d_head: int = _count("One head's width d_k = d_v.", _OPT.d_head)
    bytes_per_value: int = _count("Bytes of one cached number.", _OPT.bytes_per_value)
    context: int = _count("Its longest request in tokens: bytes is for this many.",
                          _OPT.context)  # fmt: skip
    window: int | None = _count("Its sliding window W, or null.", _MISTRAL.window)


class KVPresets(BaseModel):
    presets: list[KVPreset] = Field(
        description="OPT-13B, Llama-2-7B, Llama-2-70B, Mistral-7B, SmolLM2-135M and GPT-2 "
        "small; each answers as POST /api/v1/kv-cache does for its sizes with tokens = context."
    )


def presets_to_dict() -> dict[str, Any]:
    """Every preset: its config (``context`` as is) and its cache at its full context."""
    return {"presets": [{**asdict(c), **cache_to_dict(kv_cache.preset_cache(c))}
                        for c in kv_cache.PRESETS]}  # fmt: skip


def plan_presets(_: Ask) -> Plan:
    """GET /api/v1/kv-cache/presets: data and a few multiplications."""
    return Plan(Cost(0, 0), "presets")


# ---------------------------------------------------------------- ALiBi

MAX_ALIBI_HEADS = 1024
ALIBI_PARAMS = ("heads",)


def plan_alibi(ask: Ask) -> Plan:
    """GET /api/v1/alibi?heads=N: N read strictly (ASCII digits, 1 … MAX_ALIBI_HEADS);
    an unknown parameter is refused like a body's unknown field (``args``: N)."""
    unknown = sorted(set(ask.query) - set(ALIBI_PARAMS))
    if unknown:
        raise FieldError(unknown[0], f"unknown parameter; this endpoint takes only "
                         f"{', '.join(ALIBI_PARAMS)}")  # fmt: skip
    if "heads" not in ask.query:
        raise FieldError("heads", f"heads is required: the number of heads, 1 … "
                         f"{MAX_ALIBI_HEADS}")  # fmt: skip
    heads = query_int(ask.query["heads"], "heads")
    if not 1 <= heads <= MAX_ALIBI_HEADS:
        raise FieldError("heads", f"heads must be 1 … {MAX_ALIBI_HEADS}, got {heads}")
    return Plan(Cost(heads, heads * BYTES_PER_NUMBER + 16), "heads", args=heads)


class AlibiResponse(BaseModel):
    slopes: list[float] = Field(
        description='The slope m of each head, steepest first (Press et al., "Train Short, '
        'Test Long"): 2^(−8h/n) for h = 1 … n when n is a power of two; otherwise the n₀ '
        "slopes of n₀ = 2^⌊log₂ n⌋ heads, then the first n − n₀ of every other slope of "
        "2·n₀ heads. Head h adds −m·(i − j) to query i's score for key j.",
        examples=[[0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]],
    )


# ---------------------------------------------------------------- FlashAttention

MAX_N = 2**20
MAX_D = 2**14
MAX_SRAM = 2**30
N = Annotated[StrictInt, Field(ge=1, le=MAX_N), INTEGRAL]
D = Annotated[StrictInt, Field(ge=1, le=MAX_D), INTEGRAL]
Sram = Annotated[StrictInt, Field(ge=1, le=MAX_SRAM), INTEGRAL]
_FLASH_EXAMPLE: dict[str, Any] = {"n": 1024, "d": 64, "sram": 25_600}  # 100 KB of float32 on chip


class FlashRequest(BaseModel):
    """Algorithm 1 of Dao et al., "FlashAttention" (NeurIPS 2022): N tokens of width d and
    an on-chip memory of M numbers."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_FLASH_EXAMPLE]})

    n: N = Field(description=f"Sequence length N, 1 … {MAX_N:,}.",
                 examples=[_FLASH_EXAMPLE["n"]])  # fmt: skip
    d: D = Field(description=f"Head width d, 1 … {MAX_D:,}.", examples=[_FLASH_EXAMPLE["d"]])
    sram: Sram = Field(
        description=f"On-chip memory M in numbers (not bytes), at most {MAX_SRAM:,}, and at "
        "least 4·d: one row each of Q, K, V and O must fit (else a 422 naming sram).",
        examples=[_FLASH_EXAMPLE["sram"]],
    )

    def checked(self) -> FlashRequest:
        if self.sram < 4 * self.d:
            raise FieldError("sram", f"sram = {self.sram:,} numbers cannot hold one row each "
                             f"of Q, K, V and O (4·d = {4 * self.d:,}): at least "
                             f"{4 * self.d:,} with d = {self.d}")  # fmt: skip
        return self


_B = flash.blocks(**_FLASH_EXAMPLE)
_T = flash.traffic(**_FLASH_EXAMPLE)


class TrafficOut(BaseModel):
    """Theorem 2's high-bandwidth memory accesses: orders of growth, constants left out."""

    standard: float = Field(description="N·d + N²: standard attention's Θ(Nd + N²).",
                            examples=[_T.standard])  # fmt: skip
    tiled: float = Field(description="N²·d² / M: FlashAttention's Θ(N²d²M⁻¹).",
                         examples=[_T.tiled])  # fmt: skip
    label: str = Field(description="What these numbers are (not counts).", examples=[_T.label])


class FlashResponse(BaseModel):
    block_cols: int = _count("B_c = ⌈M / 4d⌉ key rows per tile.", _B.block_cols)
    block_rows: int = _count("B_r = min(⌈M / 4d⌉, d) query rows per tile.", _B.block_rows)
    row_tiles: int = _count("T_r = ⌈N / B_r⌉ row tiles (the inner loop).", _B.row_tiles)
    col_tiles: int = _count("T_c = ⌈N / B_c⌉ column tiles (the outer loop).", _B.col_tiles)
    traffic: TrafficOut


def plan_flash(ask: Ask) -> Plan:
    """POST /api/v1/flash: constant time, nothing to price (``args``: the checked body)."""
    body: FlashRequest = ask.data
    return Plan(Cost(0, 0), "sram", args=body.checked())


def flash_to_dict(body: FlashRequest) -> dict[str, Any]:
    return {**asdict(flash.blocks(body.n, body.d, body.sram)),
            "traffic": asdict(flash.traffic(body.n, body.d, body.sram))}  # fmt: skip
