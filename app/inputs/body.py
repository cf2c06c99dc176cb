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
)

from app.attention import AttentionInput
from app.inputs.errors import FieldError
from app.inputs.fields import MAX_LABEL_CHARS, Label, Whole
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
