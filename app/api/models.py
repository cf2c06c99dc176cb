"""Response models of API v1. They document the JSON in OpenAPI; responses themselves
are encoded by ``app.wire`` for speed, and tests check the two agree."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.inputs.errors import ErrorResponse

Grid = list[list[float | None]]


class HeadOut(BaseModel):
    """One head's stages. Grids are L_Q × L_K; q is L_Q × d_k, k L_K × d_k, v L_K × d_v."""

    q: list[list[float]] = Field(description="Q = X W^Q (this head's columns).")
    k: list[list[float]] = Field(description="K = X W^K, or S W^K for cross-attention.")
    v: list[list[float]] = Field(description="V = X W^V, or S W^V for cross-attention.")
    scores: list[list[float]] = Field(description="Q Kᵀ, the raw dot products (never masked).")
    scaled: list[list[float]] = Field(description="scores ÷ divisor.")
    masked: Grid = Field(description="scaled, with null where the mask blocks a cell (−∞).")
    weights: list[list[float]] = Field(
        description="Row softmax of masked: the attention weights A."
    )
    output: list[list[float]] = Field(description="A V: this head's output, L_Q × d_v.")
    d_k: int = Field(description="Width of this head's Q and K.", examples=[4])
    divisor: float = Field(description="√d_k with scaling on, 1 with it off.", examples=[2.0])
    row_sum: list[float] = Field(description="Sum of each weights row: 1, or 0 when fully blocked.")
    row_entropy: list[float] = Field(description="Entropy of each weights row, in bits.")
    row_argmax: list[int] = Field(description="Index (0-based) of each row's largest weight.")
    row_max: list[float] = Field(description="Each row's largest weight.")


class AttentionResponse(HeadOut):
    """Head 1's stages at the top level, every head in `heads`, and the final output."""

    heads: list[HeadOut] = Field(description="Every head's stages, head 1 first.")
    output: list[list[float]] = Field(
        description="The final output: heads concatenated, times W^O when given."
    )
    concat: list[list[float]] = Field(description="The head outputs side by side, L_Q × d_v.")
    d_v: int = Field(description="Width of V (all heads).")
    tokens: list[str] = Field(description="Query token labels (rows).")
    key_tokens: list[str] = Field(description="Key token labels (columns).")
    allowed: list[list[bool]] = Field(description="L_Q × L_K: true where query i may see key j.")
    scale: bool
    mask: str
    num_heads: int
    warnings: list[str] = Field(description="E.g. a row with no allowed key (all-zero weights).")
    positional: list[list[float]] | None = Field(
        description="The positional encoding added to x (L_Q × d_model), or null without "
        "positions.",
        examples=[None],
    )


class SoftmaxResponse(BaseModel):
    """Vectors for a vector request; one entry per row for a matrix request."""

    scores: Any
    stretch: float
    stretched: Any = Field(description="scores × stretch.")
    weights: Any
    exps: Any = Field(description="e^(stretched − exp_shift): the softmax numerators.")
    exp_shift: Any = Field(description="0 unless exp would overflow; then the row maximum.")
    exp_sum: Any
    entropy: Any = Field(description="Entropy in bits.")
    argmax: Any
    max_weight: Any = Field(description="The largest weight p.")
    gradient_term: Any = Field(description="p (1 − p): the softmax gradient factor for p.")
    row_sums: Any = Field(
        description="Sum of the weights (per row): 1, less under mask_order 'after', "
        "0 for a row with no allowed key.",
        examples=[1.0],
    )
    output: Any = Field(
        None,
        description="Only with `values`: Σ weight·value (per row), from unrounded weights. "
        "A number per row for a value vector, a d_v vector per row for a value matrix.",
        examples=[1.4247],
    )
    mask_order: str = Field(description="'before' or 'after', as requested.", examples=["before"])
    warnings: list[str] = Field(
        description="One per row with no allowed key (0-based), e.g. 'row 0 has no allowed "
        "key: its weights are all zero'.",
        examples=[[]],
    )


class PresetSummary(BaseModel):
    id: str = Field(examples=["i-love-llms"])
    title: str
    description: str


class PresetDetail(PresetSummary):
    body: dict[str, Any] = Field(description="A request body for POST /api/v1/attention.")


class ModelInfo(BaseModel):
    """One model of the registry (``GET /api/v1/models``)."""

    id: str = Field(examples=["minilm"])
    name: str = Field(examples=["all-MiniLM-L6-v2"])
    causal: bool = Field(
        description="True when each token sees only itself and the tokens before it."
    )
    layers: int
    heads: int
    d_model: int
    d_k: int
    installed: bool = Field(description="Whether its files are on this server.")
    licence: str
    source: str
    tokenizer: str
    max_tokens: int = Field(description="Longest input accepted, special tokens included.")
    install: str | None = Field(
        description="The command that installs it, or null when it ships with the app.",
        examples=["attention-lab models install minilm"],
    )
    known_heads: list[KnownHead] = Field(
        description="Heads whose job is known and tested (the tiny decoder's previous-token "
        "and induction heads on a repeated sequence); empty when nobody has named them."
    )
    kv_heads: int = Field(
        description="Key/value heads per layer: fewer than `heads` when query heads share "
        "them (grouped-query attention), equal to `heads` otherwise.",
        examples=[3],
    )
    rope_base: float | None = Field(
        description="RoPE's base θ when q and k are rotated by their position, else null.",
        examples=[100000.0],
    )
    head_groups: list[list[int]] = Field(
        description="[kv_head] the query heads (0-based) that read that key/value head: "
        "consecutive query heads share one, e.g. [[0, 1, 2], [3, 4, 5], [6, 7, 8]] for 9 "
        "query heads and 3 key/value heads; [[0], [1], …] without grouping.",
        examples=[[[0, 1, 2], [3, 4, 5], [6, 7, 8]]],
    )
    generates: bool = Field(
        description="Whether POST /api/v1/models/{id}/generate adds tokens with it.",
        examples=[True],
    )


class KnownHead(BaseModel):
    """What training made one head do, measured by the repository's tests."""

    layer: int = Field(description="0-based, as the API counts.")
    head: int = Field(description="0-based, as the API counts.")
    pattern: str = Field(
        description="The summaries' pattern name (previous, induction, broad, …) the head "
        "gets on the task it was trained on.",
        examples=["induction"],
    )


class ModelList(BaseModel):
    models: list[ModelInfo]


class HeadSummary(BaseModel):
    """What one head does."""

    pattern: str = Field(
        description="previous, next, self, first, last, special, same_word, induction (the "
        "best score, when at least 0.5) or broad.",
        examples=["previous"],
    )
    entropy: float = Field(description="Mean entropy of its rows, in nats.")
    scores: dict[str, float] = Field(
        description="Each pattern defined on this text: the mean weight on its cells."
    )


class ModelAttentionResponse(BaseModel):
    """Every layer's and head's attention for one text."""

    tokens: list[str] = Field(description="The tokens as the model splits the text.")
    attentions: list[list[list[list[float]]]] = Field(
        description="[layer][head][query][key], rounded to 6 decimals; rows sum to 1."
    )
    summaries: list[list[HeadSummary]] = Field(description="[layer][head].")
    special: list[bool] = Field(description="Per token: true for a special token ([CLS], [SEP]).")
    causal: bool
    k: list[list[list[list[float]]]] | None = Field(
        None,
        description="[layer][kv_head][token][d_k]: each key/value head's keys, after RoPE, "
        "float32 as the forward computes them; query head h reads key/value head "
        "h // (heads // kv_heads) (the listing's `head_groups`). Null for a model whose "
        "heads each have their own keys (the encoder, the tiny decoder).",
    )
    v: list[list[list[list[float]]]] | None = Field(
        None,
        description="[layer][kv_head][token][d_k]: each key/value head's values, float32; "
        "null as for `k`.",
    )


class ModelHeadResponse(BaseModel):
    """One head as a state of the figures."""

    body: dict[str, Any] = Field(
        description="A request body for POST /api/v1/attention whose weights are this "
        "head's attention."
    )
    note: str = Field(
        description="What the body holds: how the biases are folded in, or for a model "
        "with RoPE that X is the head's rotated q, rotated k and v (scale √d_k)."
    )


class GeneratedStep(BaseModel):
    """One token added, and what its query saw."""

    id: int = Field(description="The token's id in the model's vocabulary.", examples=[7042])
    token: str = Field(description="The token's text (its bytes as UTF-8).", examples=[" Paris"])
    position: int = Field(
        description="Its row, 0-based: its query sees keys 0 … position.", examples=[5]
    )
    weights: list[list[list[float]]] = Field(
        description="[layer][head][key]: the new query's attention over the position + 1 "
        "cached keys, rounded to 6 decimals; each row sums to 1. Equal (to float32 "
        "rounding) to the last row of recomputing the whole causal sequence."
    )
    cache_bytes: int = Field(
        description="The key/value cache after this step: 2 × layers × kv_heads × d_k × "
        "bytes per value × (position + 1).",
        examples=[276480],
    )


class ModelGenerateResponse(BaseModel):
    """A prompt and the tokens a model added to it, step by step."""

    tokens: list[str] = Field(description="The prompt's tokens.")
    text: str = Field(description="The added tokens' text, decoded together.", examples=[" Paris"])
    greedy: bool = Field(description="True when each token was the most likely one (no seed).")
    seed: int | None = Field(description="The seed of the sampling, or null when greedy.")
    bytes_per_token: int = Field(
        description="What each token adds to the cache: 2 (k and v) × layers × kv_heads × "
        "d_k × bytes per value (float32: 4).",
        examples=[46080],
    )
    prompt_cache_bytes: int = Field(description="The cache after the prompt, before step 1.")
    steps: list[GeneratedStep] = Field(description="One per token added, in order.")


class ModelNotFound(ErrorResponse):
    """404 for a model: no such id, or not installed here (then ``install`` says how)."""

    install: str | None = Field(
        None,
        description="Only when the model exists but is not installed: the command that "
        "installs it.",
        examples=["attention-lab models install minilm"],
    )
