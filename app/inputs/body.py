"""The attention request body of API v1: types, bounds and descriptions, and its conversion
to the engine (the softmax endpoint's body is ``app.inputs.softmax``).

Pydantic checks what a JSON body can get wrong on its own (types, finite numbers within
±1e6, rectangular rows, printable labels (``app.inputs.fields``), unknown fields);
``check_limits`` applies the size limits from settings; the engine checks that shapes
chain. Responses are built in ``app/wire.py`` and documented by ``app.api.models``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
)

from app.attention import AttentionInput
from app.inputs.errors import FieldError
from app.inputs.fields import INTEGRAL, MAX_LABEL_CHARS, Label, Whole
from app.labs.positional import sinusoidal
from app.presets import RUNNING_EXAMPLE, W_O_TWO_HEADS
from app.settings import Settings

VALUE_LIMIT = 1e6

# Strict: a JSON number only (true, "1" and null are refused, not coerced); ints are fine.
Number = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-VALUE_LIMIT, le=VALUE_LIMIT)]


def rectangular(rows: list[list[Any]]) -> list[list[Any]]:
    if not rows:
        raise ValueError("must have at least one row")
    width = len(rows[0])
    if width == 0:
        raise ValueError("row 1 is empty; every row needs at least one number")
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"rows must all have the same length: row {i + 1} has {len(row)} "
                f"numbers but row 1 has {width}"
            )
    return rows


# The schema says "at least one row of at least one number"; ``rectangular`` checks it
# with a message of its own, and checks what no JSON Schema can say: rows of equal length.
_NONEMPTY = {"minItems": 1}
Matrix = Annotated[
    list[Annotated[list[Number], Field(json_schema_extra=_NONEMPTY)]],
    Field(json_schema_extra=_NONEMPTY),
    AfterValidator(rectangular),
]
BoolMatrix = Annotated[
    list[Annotated[list[StrictBool], Field(json_schema_extra=_NONEMPTY)]],
    Field(json_schema_extra=_NONEMPTY),
    AfterValidator(rectangular),
]


def _matrix_field(description: str, example: Any) -> Any:
    return Field(None, description=description, examples=[example])


class Source(BaseModel):
    """A second sequence for cross-attention: K and V come from it, Q from ``x``."""

    model_config = ConfigDict(extra="forbid")

    x: Matrix = Field(
        description="The source sequence S, L_K × d_model: one row per source token.",
        examples=[RUNNING_EXAMPLE["x"] + [[1, 1, 0, 1]]],
    )
    tokens: list[Label] | None = Field(
        None,
        description="Labels of the source tokens (L_K of them).",
        examples=[["I", "love", "LLMs", "!"]],
    )


# RoPE positions: whole numbers, far enough for any context here and exact as float64.
MAX_POSITION = 1_000_000
# Sliding window, sinks and tile sizes: at most the most tokens a sequence may have.
MAX_SPAN = 4096
# Bounds before INTEGRAL, so the schema says them as JSON Schema's keywords (fields.py).
Position = Annotated[StrictInt, Field(ge=0, le=MAX_POSITION), INTEGRAL]
WindowSize = Annotated[StrictInt, Field(ge=1, le=MAX_SPAN), INTEGRAL]
SinkCount = Annotated[StrictInt, Field(ge=0, le=MAX_SPAN), INTEGRAL]
KvHeads = Annotated[StrictInt, Field(ge=1, le=512), INTEGRAL]


class Rope(BaseModel):
    """Rotary position embedding (Su et al., "RoFormer"): pair i of q and k at position m
    turns by m·θ_i, θ_i = base^(−2i/d_k) per head."""

    model_config = ConfigDict(extra="forbid")

    base: float = Field(
        10_000.0,
        strict=True,
        allow_inf_nan=False,
        gt=1,
        le=1e12,
        description="The base of θ_i = base^(−2i/d_k): 10,000 in RoFormer, 100,000 in some "
        "newer models. Above 1.",
        examples=[10_000],
    )


class Tiling(BaseModel):
    """FlashAttention's tiles (Dao et al., Algorithm 1): the weighted sum computed with the
    online softmax, block_rows queries by block_cols keys at a time."""

    model_config = ConfigDict(extra="forbid")

    block_rows: Whole = Field(ge=1, le=MAX_SPAN, description="B_r: queries per tile.", examples=[2])
    block_cols: Whole = Field(ge=1, le=MAX_SPAN, description="B_c: keys per tile.", examples=[2])


class AttentionRequest(BaseModel):
    """One attention computation. Give x, w_q, w_k, w_v (projection) or q, k, v (direct).

    Rules across fields, checked after the schema (each a 422 naming the field): one mode
    only; in projection mode w_q, w_k and w_v have as many rows as x (and source.x) has
    columns (d_model), and w_k as many columns as w_q (d_k); in direct mode k has as many
    columns as q (d_k) and v as many rows as k (L_K); every row of a matrix has the same
    length; heads divides d_k and d_v; w_o has d_v rows; tokens has one label per query,
    source.tokens and key_tokens (direct mode only) one per key; padding has one flag
    per key; allowed is L_Q × L_K; positional 'sinusoidal' needs x. The server's size
    limits (tokens, width, work) apply too: a 413 or 422 naming what to reduce."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [RUNNING_EXAMPLE]})

    tokens: list[Label] | None = Field(
        None,
        description="Labels of the query tokens, one per row of x (or q).",
        examples=[RUNNING_EXAMPLE["tokens"]],
    )
    key_tokens: list[Label] | None = Field(
        None,
        description="Direct mode only: labels of the L_K keys, one per row of k (at most "
        f"{MAX_LABEL_CHARS} characters each). Without it the keys take the query labels "
        "when L_K = L_Q, else s0, s1, …",
        examples=[["is", "the", "best"]],
    )
    x: Matrix | None = _matrix_field(
        "The input X, L_Q × d_model: one row per token.", RUNNING_EXAMPLE["x"]
    )
    w_q: Matrix | None = _matrix_field("W^Q, d_model × d_k: Q = X W^Q.", RUNNING_EXAMPLE["w_q"])
    w_k: Matrix | None = _matrix_field(
        "W^K, d_model × d_k: K = X W^K (or S W^K).", RUNNING_EXAMPLE["w_k"]
    )
    w_v: Matrix | None = _matrix_field(
        "W^V, d_model × d_v: V = X W^V (or S W^V).", RUNNING_EXAMPLE["w_v"]
    )
    source: Source | None = Field(
        None,
        description="Cross-attention: a second sequence that K and V come from.",
        examples=[
            {"x": [*RUNNING_EXAMPLE["x"], [1, 1, 0, 1]], "tokens": ["I", "love", "LLMs", "!"]}
        ],
    )
    positional: Literal["none", "sinusoidal"] = Field(
        "none",
        description="'sinusoidal': add the sinusoidal positional encoding (positions 0…L_Q−1) "
        "to x before the projections; a cross-attention source gets its own, from position 0. "
        "Projection mode only: direct mode has no x.",
        examples=["sinusoidal"],
    )
    q: Matrix | None = _matrix_field(
        "Direct mode: Q as given, L_Q × d_k.", [[2, 1, 0, 0], [1, 2, 0, 1]]
    )
    k: Matrix | None = _matrix_field(
        "Direct mode: K as given, L_K × d_k.", [[2, 0, 1, 0], [0, 2, 0, 1]]
    )
    v: Matrix | None = _matrix_field(
        "Direct mode: V as given, L_K × d_v.", [[1, 1, 0, 0], [2, 0, 0, 1]]
    )
    scale: StrictBool = Field(
        True, description="Divide the scores by √d_k (true) or by 1 (false).", examples=[True]
    )
    mask: Literal["none", "causal"] = Field(
        "none", description="'causal': query i sees key j only when j ≤ i.", examples=["causal"]
    )
    padding: list[StrictBool] | None = Field(
        None,
        description="One flag per key: true marks a padding key, blocked for every query.",
        examples=[[False, False, True]],
    )
    allowed: BoolMatrix | None = Field(
        None,
        description="Custom mask, L_Q × L_K: true where query i may attend to key j. "
        "Combined with the other masks by AND.",
        examples=[[[True, True, False], [True, True, True], [False, True, True]]],
    )
    heads: Whole = Field(
        1,
        ge=1,
        le=512,
        description="Number of heads h; must divide d_k (the columns of w_q "
        "and w_k, or of q and k) and d_v (the columns of w_v, or of v).",
        examples=[2],
    )
    w_o: Matrix | None = _matrix_field(
        "W^O, d_v × d_out: applied to the concatenated head outputs.",
        W_O_TWO_HEADS,
    )

    def to_input(self) -> AttentionInput:
        """The engine's input, as float64 arrays."""
        return AttentionInput(
            x=_array(self.x),
            w_q=_array(self.w_q),
            w_k=_array(self.w_k),
            w_v=_array(self.w_v),
            source_x=_array(self.source.x) if self.source else None,
            q=_array(self.q),
            k=_array(self.k),
            v=_array(self.v),
            tokens=tuple(self.tokens) if self.tokens is not None else None,
            source_tokens=tuple(self.source.tokens) if self.source and self.source.tokens else None,
            key_tokens=tuple(self.key_tokens) if self.key_tokens is not None else None,
            scale=self.scale,
            mask=self.mask,
            padding=tuple(self.padding) if self.padding is not None else None,
            allowed=np.asarray(self.allowed, dtype=bool) if self.allowed is not None else None,
            heads=self.heads,
            w_o=_array(self.w_o),
            **self._options(),
        ).with_positional(*self._positional())

    def _options(self) -> dict[str, Any]:
        """The engine's additive options: none in this body (``AttentionOptionsRequest``)."""
        return {}

    def _positional(self) -> tuple[Any, Any]:
        """(PE for x, PE for source.x), or (None, None) without positions. A 422 naming
        ``positional`` in direct mode, which has no x to add them to."""
        if self.positional == "none":
            return None, None
        if self.x is None:
            if any(m is not None for m in (self.q, self.k, self.v)):
                raise FieldError(
                    "positional",
                    "sinusoidal positions need x (projection mode); "
                    "direct mode gives q, k, v and has no x to add them to",
                )
            return None, None
        src = self.source.x if self.source else None
        return (sinusoidal(len(self.x), len(self.x[0])),
                None if src is None else sinusoidal(len(src), len(src[0])))  # fmt: skip


class AttentionOptionsRequest(AttentionRequest):
    """The body of ``POST /api/v1/attention``: an attention request plus the engine's
    additive options (issue 31), each off unless given. Figures, links, lessons and exports
    read ``AttentionRequest``, which has none: their words and scripts do not explain them yet.

    Rules across fields (each a 422 naming the field): positions needs rope, one per query,
    and rope an even d_k per head; alibi needs mask 'causal'; sinks needs window; kv_heads
    divides heads. The cost model counts the options' extra work (tiles included)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [RUNNING_EXAMPLE]})

    rope: Rope | None = Field(
        None,
        description="Rotary position embedding on q and k of every head (d_k per head even).",
        examples=[{"base": 10_000}],
    )
    positions: list[Position] | None = Field(
        None,
        description="With rope: the position of each query (L_Q of them; default 0 … L_Q − 1). "
        "Keys take the same positions in self-attention, 0 … L_K − 1 otherwise.",
        examples=[[5, 6, 7]],
    )
    alibi: StrictBool | None = Field(
        None,
        description='ALiBi (Press et al., "Train Short, Test Long"): add −m·(i − j) to each '
        "head's scaled scores, m the paper's slope for the head. Needs mask 'causal'. "
        "Off when false or absent.",
        examples=[True],
    )
    window: WindowSize | None = Field(
        None,
        description="Sliding window W: query i reads key j only when |i − j| < W "
        "(with mask 'causal': the last W keys, itself included).",
        examples=[2],
    )
    sinks: SinkCount | None = Field(
        None,
        description="With window: the first k keys stay readable by every query "
        "(attention sinks, Xiao et al., StreamingLLM).",
        examples=[1],
    )
    kv_heads: KvHeads | None = Field(
        None,
        description="Grouped-query attention: the heads' keys and values mean-pooled into "
        "kv_heads groups of consecutive heads (1: multi-query). Must divide heads.",
        examples=[1],
    )
    tiling: Tiling | None = Field(
        None,
        description="Compute each head's weighted sum tile by tile with the online softmax "
        "(the same output to rounding); the stages keep each tile's running max m and sum ℓ.",
        examples=[{"block_rows": 2, "block_cols": 2}],
    )

    def _options(self) -> dict[str, Any]:
        """The engine's additive options (absent ones stay at the engine's defaults)."""
        return {
            "rope_base": None if self.rope is None else self.rope.base,
            "positions": None if self.positions is None else tuple(map(float, self.positions)),
            "alibi": bool(self.alibi),
            "window": self.window,
            "sinks": self.sinks,
            "kv_heads": self.kv_heads,
            "tiling": None
            if self.tiling is None
            else (self.tiling.block_rows, self.tiling.block_cols),
        }


def _array(m: list[list[float]] | None) -> np.ndarray[Any, np.dtype[np.float64]] | None:
    return None if m is None else np.asarray(m, dtype=np.float64)


# Rows of these matrices are tokens; rows of the weight matrices are widths (d_model, d_v).
_TOKEN_ROWS = {"x", "q", "k", "v", "source.x"}


def check_limits(req: AttentionRequest, settings: Settings) -> None:
    """Refuse sequences longer than ``max_tokens`` or matrices wider than ``max_width``."""
    matrices = {
        "x": req.x, "w_q": req.w_q, "w_k": req.w_k, "w_v": req.w_v, "q": req.q, "k": req.k,
        "v": req.v, "w_o": req.w_o, "source.x": req.source.x if req.source else None,
    }  # fmt: skip
    for name, m in matrices.items():
        if m is None:
            continue
        tokens = name in _TOKEN_ROWS
        row_limit = settings.max_tokens if tokens else settings.max_width
        if len(m) > row_limit:
            what = "tokens" if tokens else "rows"
            raise FieldError(name, f"{len(m)} rows is more than the limit of {row_limit} {what}")
        if len(m[0]) > settings.max_width:
            raise FieldError(
                name, f"{len(m[0])} columns is more than the width limit of {settings.max_width}"
            )
    for name, items in (
        ("tokens", req.tokens),
        ("padding", req.padding),
        ("positions", getattr(req, "positions", None)),
    ):
        if items is not None and len(items) > settings.max_tokens:
            raise FieldError(
                name, f"{len(items)} entries is more than the limit of {settings.max_tokens}"
            )
