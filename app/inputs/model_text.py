"""What a request to a real model asks for (``/api/v1/models/{id}/…``), and its price.

A text, bounded in characters before anything is done with it (``MAX_TEXT_CHARS``), and
for a head its layer and head (0-based, checked against the model by ``app.models``).
The price is set from the token count, layers and heads before the model runs: every
token has at least one character, so a text of c characters has at most c + specials
tokens, and no more than the model takes (past that the model refuses the text, 422
naming ``text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from app.inputs.experiments import MAX_SEED
from app.inputs.fields import INTEGRAL, Whole
from app.inputs.limits import BYTES_PER_NUMBER, INLINE_CELLS, Cost
from app.inputs.plan import Plan

# Longer than any 128-token sentence of English (about 600 characters), short enough that
# tokenising it is a millisecond.
MAX_TEXT_CHARS = 2000
# Numbers one layer of a forward pass holds per token and model width at once: the input,
# Q, K, V, the heads' outputs, the projection, two residuals and norms, and the
# feed-forward's 4·d_model hidden values before and after the GELU.
LAYER_NUMBERS_PER_WIDTH = 16
# A weight on the wire: "0.123456," (6 decimals), and a head's summary (pattern,
# entropy, eight scores with their names).
BYTES_PER_WEIGHT = 9
BYTES_PER_SUMMARY = 250
# A float32 of k or v as orjson writes its shortest form, "-1.2345678,": measured 10.9
# (k) and 11.2 (v) bytes a value on SmolLM2's keys and values.
BYTES_PER_FLOAT32 = 12
# A forward pass is never inline work, however short the text: it reads every weight of
# the model (11 million for the encoder's layers), and the first one loads them.
MIN_FORWARD_CELLS = INLINE_CELLS + 1
# A body of the longest text, every character escaped as a surrogate pair (12 bytes),
# with its keys: larger bodies are refused (413) before they are read.
MODEL_BODY_BYTES = 32 * 1024


class ModelText(BaseModel):
    """A sentence for the model."""

    model_config = ConfigDict(extra="forbid")

    text: StrictStr = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description=f"The text to run through the model (at most {MAX_TEXT_CHARS} "
        "characters, and at most the model's `max_tokens` tokens, special tokens included).",
        examples=["I love LLMs"],
    )


class ModelHead(ModelText):
    """A sentence and one head of the model (both numbers 0-based)."""

    layer: Whole = Field(ge=0, description="The layer, from 0.", examples=[1])
    head: Whole = Field(ge=0, description="The head within the layer, from 0.", examples=[3])


# The bounds before the validator that reads 7.0 as 7 (see ``app.inputs.fields.INTEGRAL``).
SampleSeed = Annotated[StrictInt, Field(ge=0, le=MAX_SEED), INTEGRAL]


class ModelGenerate(ModelText):
    """A prompt and how many tokens to add to it (greedy, or sampled with a seed)."""

    steps: Whole = Field(
        ge=1,
        description="How many tokens to add, one forward of one token each; at most the "
        "model's step limit, and the prompt and the added tokens together at most its "
        "`max_tokens` (both checked against the model: a 422 naming `steps` says the bound).",
        examples=[1],
    )
    seed: SampleSeed | None = Field(
        None,
        description="Absent or null: greedy (the most likely token each step). A number: "
        "each token is drawn from the softmax of the logits with numpy.random.default_rng"
        "(seed); the same body gives the same tokens.",
        examples=[None, 7],
    )


def token_bound(text: str, specials: int, max_tokens: int) -> int:
    """The most tokens ``text`` can make that the model accepts (see the module doc)."""
    return min(len(text) + specials, max_tokens)


def forward_cost(n: int, layers: int, heads: int, d_model: int) -> Cost:
    """Numbers held by a forward pass on n tokens that keeps every layer's input and
    every head's weights; no answer bytes."""
    working = LAYER_NUMBERS_PER_WIDTH * n * d_model + 2 * heads * n * n  # one layer at a time
    kept = layers * (heads * n * n + n * d_model)
    return Cost(max(working + kept, MIN_FORWARD_CELLS), 0)


def attention_cost(n: int, layers: int, heads: int, d_model: int) -> Cost:
    """POST /api/v1/models/{id}/attention: the forward pass and every head's n × n weights
    with its summary on the wire."""
    answer = layers * heads * (n * n * BYTES_PER_WEIGHT + BYTES_PER_SUMMARY)
    return forward_cost(n, layers, heads, d_model) + Cost(0, answer)


def kv_cost(n: int, layers: int, kv_heads: int, d_k: int) -> Cost:
    """k and v of every key/value head in the answer of POST /api/v1/models/{id}/attention
    (models whose trace keeps them): 2 × layers × kv_heads × n × d_k float32 values."""
    numbers = 2 * layers * kv_heads * n * d_k
    return Cost(numbers, numbers * BYTES_PER_FLOAT32)


def head_cost(n: int, layers: int, heads: int, d_model: int, d_k: int) -> Cost:
    """POST /api/v1/models/{id}/head: the forward pass, then X (n × (d_model + 1)) and
    three (d_model + 1) × d_k weight matrices as a request body."""
    numbers = (n + 3 * d_k) * (d_model + 1)
    return forward_cost(n, layers, heads, d_model) + Cost(numbers, numbers * BYTES_PER_NUMBER)


# A generated step on the wire besides its weights: its id, token text (at most a few
# escaped bytes), position and cache size, with their keys.
BYTES_PER_STEP = 120


def generate_cost(prompt: int, steps: int, shape: ModelShape) -> Cost:
    """POST /api/v1/models/{id}/generate: the prompt's forward (which keeps everything
    ``forward_cost`` counts), then per step t (its query sees t keys) one token's working
    numbers and its weights kept, layers × heads × t, and at the end the cache,
    2 × layers × kv_heads × d_k × (prompt + steps); the answer is every step's weights."""
    layers, heads = shape.layers, shape.heads
    seen = sum(range(prompt + 1, prompt + steps + 1))  # Σ t over the steps
    per_step = LAYER_NUMBERS_PER_WIDTH * shape.d_model
    cache = 2 * layers * shape.kv_heads * shape.d_k * (prompt + steps)
    held = steps * per_step + (layers + 2) * heads * seen + cache
    answer = layers * heads * seen * BYTES_PER_WEIGHT + steps * BYTES_PER_STEP
    return forward_cost(prompt, layers, heads, shape.d_model) + Cost(held, answer)


@dataclass(frozen=True)
class ModelShape:
    """What pricing needs of a model (``app.models`` gives it; this package may not
    import that one): sizes, the number of special tokens, the longest input."""

    layers: int
    heads: int
    d_model: int
    d_k: int
    specials: int
    max_tokens: int
    kv_heads_sent: int = 0  # key/value heads whose k and v the attention answer holds
    kv_heads: int = 0  # key/value heads a cache holds per layer (generation)


def plan_attention(body: ModelText, model: ModelShape) -> Plan:
    """POST /models/{id}/attention: priced from the token bound (``args``: the text)."""
    n = token_bound(body.text, model.specials, model.max_tokens)
    cost = attention_cost(n, model.layers, model.heads, model.d_model)
    cost += kv_cost(n, model.layers, model.kv_heads_sent, model.d_k)
    return Plan(cost, "text", args=body.text, field="text")


def plan_head(body: ModelHead, model: ModelShape) -> Plan:
    """POST /models/{id}/head: priced from the token bound (``args``: the body)."""
    n = token_bound(body.text, model.specials, model.max_tokens)
    cost = head_cost(n, model.layers, model.heads, model.d_model, model.d_k)
    return Plan(cost, "text", args=body, field="text")


def plan_generate(body: ModelGenerate, model: ModelShape) -> Plan:
    """POST /models/{id}/generate (``steps`` already checked against the model): priced
    from the token bound of a prompt that leaves room for the steps (a longer one is
    refused once tokenised, before any forward), ``args``: the body."""
    prompt = min(
        token_bound(body.text, model.specials, model.max_tokens), model.max_tokens - body.steps
    )
    cost = generate_cost(max(prompt, 1), body.steps, model)
    return Plan(cost, "text or steps", args=body, field="text")
