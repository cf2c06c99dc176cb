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

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from app.inputs.fields import Whole
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
