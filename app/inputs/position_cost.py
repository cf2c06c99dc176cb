"""Request and response models of ``POST /api/v1/positional-encoding`` and
``POST /api/v1/cost`` (LABS.md §2): types, bounds, descriptions and examples.

``/cost`` answers bounded integers, every one below 2^53: a JSON reader (JavaScript's
numbers, or any float64) holds integers exactly only below that. Each field has a bound
in the schema, and one cross-field rule, said in ``n``'s description, refuses an N for
which a count would reach 2^53 (a 422 naming ``n`` with the largest N that fits). Fixed
per-field bounds alone would have to refuse GPT-3's d_model or the lab's ×4 growth at
N = 2^17 to keep 4·N²·h·layers below 2^53. The arithmetic is Python's, in ``app.labs.cost``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from app.inputs.errors import FieldError
from app.inputs.fields import Whole
from app.inputs.limits import BYTES_PER_NUMBER, Cost
from app.inputs.plan import Ask, Plan
from app.labs import cost
from app.labs.positional import DEFAULT_BASE
from app.settings import Settings

# ---------------------------------------------------------------- positional encoding

BASE_MIN, BASE_MAX = 1e-12, 1e12  # every angle pos / base^(2i/d_model) stays finite


class PositionalRequest(BaseModel):
    """The sinusoidal encoding of positions 0 … positions − 1 at width d_model."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"positions": 3, "d_model": 4, "base": DEFAULT_BASE}]},
    )

    positions: Whole = Field(
        ge=1, description="How many positions (T), from 0; at most the token limit.", examples=[3]
    )
    d_model: Whole = Field(
        ge=1, description="Width of each encoding row (d_model); at most the width limit.",
        examples=[4],
    )  # fmt: skip
    base: float = Field(
        DEFAULT_BASE, strict=True, allow_inf_nan=False, ge=BASE_MIN, le=BASE_MAX,
        description="The base of the wavelengths, 10000 in the original transformer: "
        "PE(pos, 2i) = sin(pos / base^(2i/d_model)), PE(pos, 2i+1) = cos(…).",
        examples=[DEFAULT_BASE],
    )  # fmt: skip

    def check_limits(self, settings: Settings) -> None:
        """Refuse more positions than ``max_tokens`` or a width over ``max_width``."""
        if self.positions > settings.max_tokens:
            raise FieldError("positions", f"{self.positions} positions is more than the limit "
                             f"of {settings.max_tokens} tokens")  # fmt: skip
        if self.d_model > settings.max_width:
            raise FieldError("d_model", f"d_model = {self.d_model} is more than the width "
                             f"limit of {settings.max_width}")  # fmt: skip


def positional_cost(positions: int, d_model: int) -> Cost:
    """Float64 cells held (the angles and the encoding) and bytes answered (one number a
    cell), from the sizes alone."""
    cells = positions * d_model
    return Cost(2 * cells, cells * BYTES_PER_NUMBER + 16)


class PositionalResponse(BaseModel):
    pe: list[list[float]] = Field(
        description="positions × d_model: row pos is the encoding of position pos; column 2i "
        "a sine, column 2i + 1 the cosine of the same frequency.",
        examples=[[[0, 1, 0, 1], [0.8414709848078965, 0.5403023058681398, 0.01, 0.99995]]],
    )


# ---------------------------------------------------------------- cost

_BASE = cost.Config()


def _int(default: int, hi: int, description: str) -> Any:
    return Field(default, ge=1, le=hi, description=description, examples=[default])


EXACT = "every count of the answer stays below 2^53 (exact in any JSON reader)"


class CostRequest(BaseModel):
    """Sizes of a transformer; the defaults are the original base model with N = 512.
    Every count of the answer is an exact integer below 2^53."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{}]})

    n: Whole = _int(_BASE.n, 2**20, "Sequence length N (tokens), at most 2^20, and at most "
                    f"the largest N for which {EXACT}: 4·N·d_model² + 2·N²·d_model < 2^53 "
                    "and 4·N²·heads·layers < 2^53 (else a 422 naming n gives that N).")  # fmt: skip
    d_model: Whole = _int(_BASE.d_model, 2**16, "Model width d_model, at most 65536; "
                          "a multiple of heads.")  # fmt: skip
    heads: Whole = _int(
        _BASE.heads,
        2**16,
        "Heads h; must divide d_model (d_k = d_model / h). Enters no count "
        "but memory.all_tables_bytes = 4·N²·h·layers.",
    )
    d_ff: Whole = _int(_BASE.d_ff, 2**18, "Feed-forward hidden size d_ff, at most 2^18.")
    vocab: Whole = _int(_BASE.vocab, 2**24, "Vocabulary size (embedding rows), at most 2^24.")
    layers: Whole = _int(_BASE.layers, 1024, "Number of layers, at most 1024.")
    biases: StrictBool = Field(
        _BASE.biases,
        description="Count biases and the two LayerNorms (scale and shift) of each layer.",
        examples=[False],
    )

    def config(self) -> cost.Config:
        """The pure model's config; a 422 naming ``heads`` when h does not divide d_model,
        or ``n`` when a count of the answer would reach 2^53."""
        c = cost.Config(self.n, self.d_model, self.heads, self.d_ff, self.vocab, self.layers,
                        self.biases)  # fmt: skip
        if c.d_model % c.heads:
            near = divisors_near(c.d_model, c.heads)
            raise FieldError("heads", f"heads = {c.heads} must divide d_model = {c.d_model} "
                             f"(d_k = d_model / h); try {near}")  # fmt: skip
        name, value = cost.largest_count(cost.cost(c))
        if value >= cost.EXACT_BELOW:
            raise FieldError("n", f"n = {c.n} makes {name} = {value:,}, past 2^53 where JSON "
                             "readers lose precision; at most n = "
                             f"{cost.largest_exact_n(c):,} with these sizes")  # fmt: skip
        return c


def divisors_near(d_model: int, heads: int) -> str:
    """The divisors of d_model nearest to ``heads``, as text for an error message."""
    divs = [d for d in range(1, min(d_model, 4096) + 1) if d_model % d == 0]
    best = sorted(divs, key=lambda d: (abs(d - heads), d))[:3]
    return " or ".join(str(d) for d in sorted(best))


def _count(description: str, example: int) -> Any:
    return Field(description=description, examples=[example])


_C = cost.cost(_BASE)


class FlopsOut(BaseModel):
    """Multiply-adds of one multi-head attention layer (d = d_model, N = n)."""

    projections: int = _count("3·N·d²: Q, K and V from X.", _C.flops.projections)
    scores: int = _count("N²·d: Q Kᵀ summed over the heads (h·d_k = d).", _C.flops.scores)
    weighted_sum: int = _count("N²·d: weights × V over the heads.", _C.flops.weighted_sum)
    output_projection: int = _count("N·d²: concat × W^O.", _C.flops.output_projection)
    linear: int = _count("4·N·d²: the terms linear in N.", _C.flops.linear)
    quadratic: int = _count("2·N²·d: the terms quadratic in N.", _C.flops.quadratic)
    total: int = _count("linear + quadratic.", _C.flops.total)


class ParamsOut(BaseModel):
    """Parameter counts; bracketed terms only with ``biases``."""

    attention: int = _count("4·d² (+4·d): W^Q, W^K, W^V and W^O.", _C.params.attention)
    ffn: int = _count("2·d·d_ff (+d_ff + d): the feed-forward block.", _C.params.ffn)
    layer_norm: int = _count("(2·2·d): two LayerNorms, scale and shift.", _C.params.layer_norm)
    embedding: int = _count("vocab·d: the token embedding, counted once.", _C.params.embedding)
    per_layer: int = _count("attention + ffn + layer_norm.", _C.params.per_layer)
    total: int = _count("embedding + layers·per_layer.", _C.params.total)


class HeadsOut(BaseModel):
    """What the split into h heads changes (the divisor √d_k) and what it does not."""

    d_k: int = _count("d_model / h: each head's query/key (and value) width.", _C.heads.d_k)
    one_head_qkv: int = _count("d_model·(2·d_k + d_v): one head's three maps.",
                               _C.heads.one_head_qkv)  # fmt: skip
    all_heads_qkv: int = _count("h·d_model·(2·d_k + d_v): all heads' maps.",
                                _C.heads.all_heads_qkv)  # fmt: skip
    full_width_qkv: int = _count("3·d_model²: one head of full width.", _C.heads.full_width_qkv)
    score_flops: int = _count("h·N²·d_k = N²·d_model: the scores over all heads.",
                              _C.heads.score_flops)  # fmt: skip


class MemoryOut(BaseModel):
    """float32 score tables."""

    score_table_bytes: int = _count("4·N²: one head's score table in one layer.",
                                    _C.memory.score_table_bytes)  # fmt: skip
    all_tables_bytes: int = _count("4·N²·h·layers: every head's table in every layer.",
                                   _C.memory.all_tables_bytes)  # fmt: skip


class CostResponse(BaseModel):
    flops: FlopsOut
    crossover_n: int = _count("2·d_model: past this N the quadratic terms exceed the linear.",
                              _C.crossover_n)  # fmt: skip
    score_cells: int = _count("N²: cells of one head's score table in one layer.", _C.score_cells)
    params: ParamsOut
    heads: HeadsOut
    memory: MemoryOut


def cost_to_dict(c: cost.Cost) -> dict[str, Any]:
    """The ``/cost`` response: Python ints throughout."""
    return {
        "flops": asdict(c.flops),
        "crossover_n": c.crossover_n,
        "score_cells": c.score_cells,
        "params": asdict(c.params),
        "heads": asdict(c.heads),
        "memory": asdict(c.memory),
    }


# The bodies of both routes are a few named numbers: 16 KiB holds any of them with room for
# spacing, and nothing larger is ever kept (``app.http.runner`` refuses it with 413).
SMALL_BODY_BYTES = 16 * 1024


def plan_positional(ask: Ask) -> Plan:
    """POST /api/v1/positional-encoding: the limits, then the price from the sizes
    (``args``: the body)."""
    body: PositionalRequest = ask.data
    body.check_limits(ask.settings)
    return Plan(positional_cost(body.positions, body.d_model), "positions", args=body)


def plan_cost(ask: Ask) -> Plan:
    """POST /api/v1/cost: exact integers in constant time, a few dozen multiplications
    whatever the sizes, so nothing to price (``args``: the pure model's config, whose
    checks name ``heads`` or ``n``)."""
    body: CostRequest = ask.data
    return Plan(Cost(0, 0), "n", args=body.config())
