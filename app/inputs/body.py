"""Request models of API v1: types, bounds and descriptions, and their conversion to the engine.

Pydantic checks what a JSON body can get wrong on its own (types, finite numbers within
±1e6, rectangular rows, label lengths, unknown fields); ``check_limits`` applies the
size limits from settings; the engine checks that shapes chain. Responses are built in
``app/wire.py``; the models at the bottom only document them in OpenAPI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    Tag,
)

from app.attention import AttentionInput
from app.inputs.errors import FieldError
from app.inputs.presets import RUNNING_EXAMPLE, W_O_TWO_HEADS
from app.labs.positional import sinusoidal
from app.settings import Settings

VALUE_LIMIT = 1e6
# The longest token label, in characters: the page's editor reads it from #initial-state.
MAX_LABEL_CHARS = 64

# Strict: a JSON number only (true, "1" and null are refused, not coerced); ints are fine.
Number = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-VALUE_LIMIT, le=VALUE_LIMIT)]
Label = Annotated[
    str,
    Strict(),
    Field(
        max_length=MAX_LABEL_CHARS,
        description=f"A token label, at most {MAX_LABEL_CHARS} characters.",
    ),
]


def _rectangular(rows: list[list[Any]]) -> list[list[Any]]:
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


Matrix = Annotated[list[list[Number]], AfterValidator(_rectangular)]
BoolMatrix = Annotated[list[list[StrictBool]], AfterValidator(_rectangular)]


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


class AttentionRequest(BaseModel):
    """One attention computation. Give x, w_q, w_k, w_v (projection) or q, k, v (direct)."""

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
    heads: StrictInt = Field(
        1, ge=1, le=512, description="Number of heads h; must divide d_k and d_v.", examples=[2]
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
        ).with_positional(*self._positional())

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
    for name, items in (("tokens", req.tokens), ("padding", req.padding)):
        if items is not None and len(items) > settings.max_tokens:
            raise FieldError(
                name, f"{len(items)} entries is more than the limit of {settings.max_tokens}"
            )


# The longest score row the softmax endpoint takes (Figure 12 shows one row of weights).
SOFTMAX_MAX_ENTRIES = 4096


def _vector_or_matrix(item: Any, name: str) -> Any:
    """One ``item`` per key, or a rectangular matrix of them (one row per query), at most
    ``SOFTMAX_MAX_ENTRIES`` a side. A discriminator picks the form from the first element,
    so an error names the form that was sent (``list[number]`` or ``list[list[number]]``)
    instead of listing both. The tags contain "[" so app.inputs.errors leaves them out of
    the field name."""
    vector_tag, matrix_tag = f"list[{name}]", f"list[list[{name}]]"
    vector = Annotated[list[item], Field(min_length=1, max_length=SOFTMAX_MAX_ENTRIES)]
    matrix = Annotated[
        list[vector], Field(min_length=1, max_length=SOFTMAX_MAX_ENTRIES),
        AfterValidator(_rectangular),
    ]  # fmt: skip

    def form(value: Any) -> str:
        is_matrix = isinstance(value, list) and value and isinstance(value[0], list)
        return matrix_tag if is_matrix else vector_tag

    return Annotated[
        Annotated[vector, Tag(vector_tag)] | Annotated[matrix, Tag(matrix_tag)],
        Discriminator(form),
    ]


if TYPE_CHECKING:  # what mypy sees; pydantic validates with the annotated unions below
    Scores = list[float] | list[list[float]]
    Flags = list[bool] | list[list[bool]]
else:
    Scores = _vector_or_matrix(Number, "number")
    Flags = _vector_or_matrix(StrictBool, "bool")
# Values: one number per key, or one row per key (d_v numbers each).
Values = Scores


class SoftmaxRequest(BaseModel):
    """Scores to pass through softmax, optionally stretched (Figure 12)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"scores": [1, 2, 3], "stretch": 8},
                {"scores": [2, 1, 0], "values": [1, 2, 3]},
            ]
        },
    )

    scores: Scores = Field(
        description="One score vector, or a matrix whose rows are softmaxed separately "
        f"(at most {SOFTMAX_MAX_ENTRIES} rows of at most {SOFTMAX_MAX_ENTRIES} scores).",
        examples=[[1.0, 2.0, 3.0]],
    )
    stretch: float = Field(
        1.0, strict=True, allow_inf_nan=False, ge=-1000, le=1000,
        description="Factor the scores are multiplied by before the softmax.", examples=[8.0],
    )  # fmt: skip
    values: Values | None = Field(
        None,
        description="Values to average with the weights: one number per key (a vector as "
        "long as a score row) or a matrix with one row per key. The response then has "
        "`output` = Σ weight·value per row.",
        examples=[[1.0, 2.0, 3.0]],
    )
    mask: Literal["none", "causal"] = Field(
        "none",
        description="'causal': row i uses key j only when j ≤ i (0-based). A vector of "
        "scores is row 0.",
        examples=["causal"],
    )
    allowed: Flags | None = Field(
        None,
        description="Custom mask, the shape of `scores`: true where that score's key may be "
        "used. Combined with `mask` by AND.",
        examples=[[True, True, False]],
    )
    mask_order: Literal["before", "after"] = Field(
        "before",
        description="'before' (attention proper): blocked scores become −∞, so each row "
        "sums to 1 over its allowed keys. 'after' (a teaching contrast): softmax of the "
        "unmasked row, then blocked weights set to 0, so a row may sum to less than 1. A "
        "row with no allowed key is all zeros either way, with a warning.",
        examples=["after"],
    )

    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the scores; a vector is one row."""
        first = self.scores[0]
        if isinstance(first, list):
            return len(self.scores), len(first)
        return 1, len(self.scores)

    def scores_array(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The scores as float64: 1-D for a vector, 2-D for a matrix."""
        return np.asarray(self.scores, dtype=np.float64)

    def values_array(self) -> np.ndarray[Any, np.dtype[np.float64]] | None:
        """The values as float64 ((n,) or (n, d_v)), or None."""
        return None if self.values is None else np.asarray(self.values, dtype=np.float64)

    def allowed_array(self) -> np.ndarray[Any, np.dtype[np.bool_]] | None:
        """The custom mask as a bool array (1-D or 2-D, like ``scores``), or None."""
        return None if self.allowed is None else np.asarray(self.allowed, dtype=np.bool_)
