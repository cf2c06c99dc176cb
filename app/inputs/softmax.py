"""The request body of ``POST /api/v1/softmax``: scores (a vector or a matrix), optional
values, masks and the stretch factor of Figure 12 and lab A1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, StrictBool, Tag

from app.inputs.body import Number, rectangular

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
        AfterValidator(rectangular),
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
    """Scores to pass through softmax, optionally stretched (Figure 12).

    Rules across fields, checked after the schema (each a 422 naming the field): every row
    of a matrix has the same length; values has one number (or one row) per key, as many
    as a score row has scores; allowed has the shape of scores."""

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
