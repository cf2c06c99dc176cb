"""Request and response models of the why-scale experiments (LABS.md §2, binding names).

Requests forbid unknown fields and take JSON integers (``app.inputs.fields.Whole``: 64 or
64.0, never "64" or true); each converts to the pure parameters of ``app.labs.experiments``.
The one rule across fields, the work limit, is stated in the descriptions of the fields
that a 422 names. Responses are encoded by ``app.wire``; the
response models document them in OpenAPI (and the HTTP tests check the two agree).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from app.inputs.fields import INTEGRAL, Whole
from app.labs.experiments import (
    P_MAX_BINS,
    SaturationParams,
    ScalingTableParams,
    ScoreVarianceParams,
)

# Seeds stay exact in a browser: JavaScript numbers hold integers exactly up to 2**53 − 1.
# The most work one run may do, in numbers drawn and softmaxed (``experiment_cells``):
# ~0.5 s of numpy on one core. Every body within the why-scale page's controls fits,
# e.g. saturation with 10,000 trials of 512 keys (15.4 M).
MAX_CELLS = 30_000_000
MAX_SEED = 2**53 - 1
MAX_WIDTHS = 16

Width = Annotated[StrictInt, Field(ge=1, le=1024), INTEGRAL]
Seed = Annotated[
    StrictInt,
    Field(
        ge=0, le=MAX_SEED,
        description="Seed of numpy.random.default_rng (PCG64); the same body gives the same "
        "bytes.", examples=[0],
    ),
    INTEGRAL,
]  # fmt: skip


def _widths(default: list[int], what: str) -> list[int]:
    return Field(
        default=default,
        min_length=1,
        max_length=MAX_WIDTHS,
        description=f"Widths d_k to run, in this order ({what}), each 1..1024; at most "
        f"{MAX_WIDTHS}.",
        examples=[default],
    )


class ScoreVarianceRequest(BaseModel):
    """C1: the variance of q·k for random q, k at each width."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"d_ks": [32, 64, 128, 256], "draws": 200000}]},
    )

    d_ks: list[Width] = _widths([32, 64, 128, 256], "one result per width")
    draws: Whole = Field(
        20_000, ge=1, le=200_000, description="Pairs q, k drawn per width.", examples=[200_000]
    )
    seed: Seed = 0
    bins: Whole = Field(
        60, ge=5, le=200, description="Equal histogram bins spanning the draws.", examples=[60]
    )

    def to_params(self) -> ScoreVarianceParams:
        return ScoreVarianceParams(tuple(self.d_ks), self.draws, self.seed, self.bins)


class SaturationRequest(BaseModel):
    """C2: how often softmax goes one-hot, unscaled against scaled."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"d_k": 128, "keys": 64, "trials": 500}]},
    )

    d_k: Whole = Field(128, ge=1, le=1024, description="Width of q and k.", examples=[128])
    keys: Whole = Field(64, ge=2, le=1024, description="Keys per trial.", examples=[64])
    trials: Whole = Field(
        500, ge=1, le=10_000, examples=[500],
        description="Trials: one query and its keys each. With keys: trials·(1 + 3·keys) "
        f"is at most {MAX_CELLS:,} (the work limit), else a 422 naming trials.",
    )  # fmt: skip
    threshold: float = Field(
        0.99, strict=True, allow_inf_nan=False, gt=0, lt=1,
        description="A trial is saturated when p_max > threshold (strictly).", examples=[0.99],
    )  # fmt: skip
    seed: Seed = 0

    def to_params(self) -> SaturationParams:
        return SaturationParams(self.d_k, self.keys, self.trials, self.threshold, self.seed)


class ScalingTableRequest(BaseModel):
    """C3: spread, max weight and entropy over d_k, raw and scaled."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"d_ks": [4, 16, 64, 256, 1024], "keys": 8}]},
    )

    d_ks: list[Width] = _widths([4, 16, 64, 256, 1024], "one row per width")
    keys: Whole = Field(8, ge=2, le=1024, description="Keys per draw.", examples=[8])
    draws: Whole = Field(
        200, ge=1, le=10_000, examples=[200],
        description="Draws (one query each) per width. With d_ks and keys: "
        f"len(d_ks)·draws·(1 + 3·keys) is at most {MAX_CELLS:,} (the work limit), else a "
        "422 naming draws.",
    )  # fmt: skip
    seed: Seed = 0

    def to_params(self) -> ScalingTableParams:
        return ScalingTableParams(tuple(self.d_ks), self.keys, self.draws, self.seed)


# --- responses ---------------------------------------------------------------------------


class Histogram(BaseModel):
    edges: list[float] = Field(
        description="Bin edges, one more than the counts.", examples=[[-2.0, 0.0, 2.0]]
    )
    counts: list[int] = Field(description="How many values fall in each bin.", examples=[[4, 6]])


class WidthOut(BaseModel):
    d_k: int = Field(description="The width.", examples=[64])
    mean: float = Field(description="Mean of the raw scores s = q·k (about 0).", examples=[0.03])
    var: float = Field(description="Population variance of s (about d_k).", examples=[63.8])
    var_over_d_k: float = Field(description="var / d_k (about 1).", examples=[0.997])
    scaled_var: float = Field(
        description="Population variance of s/√d_k (about 1).", examples=[0.997]
    )
    histogram: Histogram = Field(description="Raw s in `bins` equal bins from min to max.")


class ScoreVarianceResponse(BaseModel):
    seed: int = Field(description="The seed, as requested.", examples=[0])
    draws: int = Field(description="Pairs drawn per width, as requested.", examples=[20000])
    widths: list[WidthOut] = Field(description="One entry per width, in request order.")


class SaturationSide(BaseModel):
    saturated_fraction: float = Field(
        description="Share of trials with p_max > threshold.", examples=[0.346]
    )
    mean_p_max: float = Field(
        description="Mean of the largest weight p_max over the trials.", examples=[0.86]
    )
    mean_saturated_p_one_minus_p: float | None = Field(
        description="Mean of p_max(1 − p_max) over the saturated trials; null if none.",
        examples=[0.0022],
    )
    p_max_histogram: Histogram = Field(
        description=f"p_max in {P_MAX_BINS} equal bins on [0, 1] (width {1 / P_MAX_BINS})."
    )


class SaturationResponse(BaseModel):
    unscaled: SaturationSide = Field(description="p = softmax(s).")
    scaled: SaturationSide = Field(description="p′ = softmax(s/√d_k), from the same draws.")


class ScalingRow(BaseModel):
    d_k: int = Field(description="The width.", examples=[64])
    spread: float = Field(
        description="Mean over draws of the population std of the raw scores.", examples=[7.2]
    )
    pooled_spread: float = Field(
        description="Population std of all raw scores together.", examples=[7.95]
    )
    raw_max_weight: float = Field(description="Mean largest weight of softmax(s).", examples=[0.89])
    raw_entropy_bits: float = Field(
        description="Mean entropy of softmax(s), in bits.", examples=[0.43]
    )
    scaled_max_weight: float = Field(
        description="Mean largest weight of softmax(s/√d_k).", examples=[0.36]
    )
    scaled_entropy_bits: float = Field(
        description="Mean entropy of softmax(s/√d_k), in bits.", examples=[2.49]
    )


class ScalingTableResponse(BaseModel):
    max_entropy_bits: float = Field(
        description="log₂ keys: the entropy of equal weights.", examples=[3.0]
    )
    rows: list[ScalingRow] = Field(description="One row per width, in request order.")
