"""SmolLM2 generating token by token with a key/value cache.

The prompt runs once and leaves every layer's keys (after RoPE) and values in a
``KVCache``; then each step picks the next token from the last logits (greedy, or a
sample drawn with a seeded generator), feeds only that token (its position is the cache's
length), and keeps what the product shows: the token, the new query's weights per layer
and head against every cached key, and the cache's size, 2 × layers × kv_heads × d_head ×
4 bytes per token (float32). Equal to recomputing the whole causal sequence (tested, and
measured per answer by ``recompute_difference``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.models.errors import ModelInputError
from app.models.smollm import SPEC, KVCache, SmolLM2

MAX_STEPS = 32  # one step costs about a 1-token forward; 32 keep a request near 10 s


@dataclass(frozen=True)
class Step:
    """One generated token and its query's attention."""

    token: int
    text: str
    position: int  # the token's row (0-based): its query sees keys 0 … position
    weights: np.ndarray  # (layers, heads, position + 1)
    cache_bytes: int  # after the step


def bytes_per_token(itemsize: int = 4) -> int:
    """The cache's growth per token: 2 (k and v) × layers × kv_heads × d_head × itemsize."""
    return 2 * SPEC.layers * SPEC.key_value_heads * SPEC.d_k * itemsize


def check_step_count(steps: int) -> None:
    """``ModelInputError`` naming ``steps`` when it is not 1 to ``MAX_STEPS`` (what a
    request can be refused for before its text is tokenised)."""
    if not 1 <= steps <= MAX_STEPS:
        raise ModelInputError("steps", f"ask for 1 to {MAX_STEPS} steps; got {steps}")


def check_steps(prompt_tokens: int, steps: int) -> None:
    """``ModelInputError`` naming ``steps`` when out of range or past the model's length."""
    room = SPEC.max_tokens - prompt_tokens
    check_step_count(steps)
    if steps > room:
        raise ModelInputError(
            "steps",
            f"the text is {prompt_tokens} tokens and {SPEC.name} takes {SPEC.max_tokens} "
            f"here: at most {max(room, 0)} more",
        )


def pick(logits: np.ndarray, rng: np.random.Generator | None) -> int:
    """The next token: the largest logit, or a draw from softmax(logits) with ``rng``."""
    if rng is None:
        return int(np.argmax(logits))
    z = logits.astype(np.float64)
    p = np.exp(z - z.max())
    return int(rng.choice(len(p), p=p / p.sum()))


def generate(model: SmolLM2, text: str, steps: int, seed: int | None = None) -> list[Step]:
    """``steps`` tokens after ``text``, one forward of one token each (greedy when
    ``seed`` is None)."""
    ids = model.ids(text)
    check_steps(len(ids), steps)
    rng = None if seed is None else np.random.default_rng(seed)
    cache = KVCache.empty()
    x, _ = model.run(ids, cache)
    out: list[Step] = []
    for _ in range(steps):
        token = pick(model.head_logits(x[-1:])[0], rng)
        position = cache.length
        x, kept = model.run([token], cache)
        weights = np.stack([w[:, 0, :] for w in kept["weights"]])  # (layers, heads, t + 1)
        out.append(Step(token, model.bpe.decode([token]), position, weights, cache.nbytes))
    return out


def recompute_difference(model: SmolLM2, text: str, steps: list[Step]) -> float:
    """The largest |cached − recomputed| weight over every step, layer, head and key: the
    prompt and the tokens added run again in one forward, no cache, the causal mask
    alone keeping each row from later keys; step s's row is that forward's row
    ``position`` (0 when nothing was added)."""
    if not steps:
        return 0.0
    ids = model.ids(text) + [s.token for s in steps]
    _, full = model.run(ids)
    worst = 0.0
    for step in steps:
        p = step.position
        again = np.stack([w[:, p, : p + 1] for w in full["weights"]])  # (layers, heads, p + 1)
        cached = step.weights.astype(np.float64)
        worst = max(worst, float(np.abs(cached - again.astype(np.float64)).max()))
    return worst


@dataclass(frozen=True)
class Generated:
    """A whole generation as the page and the API show it: the prompt's ids, the steps,
    and how far the cached weights are from recomputing everything."""

    prompt: list[int]
    steps: list[Step]
    difference: float  # recompute_difference


def generated(model: SmolLM2, text: str, steps: int, seed: int | None = None) -> Generated:
    """``generate`` and its check against recomputing the whole causal sequence."""
    out = generate(model, text, steps, seed)
    return Generated(model.ids(text), out, recompute_difference(model, text, out))
