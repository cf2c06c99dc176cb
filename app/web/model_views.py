"""What the model pages show, from the models package: the models listed, a sentence
checked against a model's limits, and one sentence's heads as grids with their summaries.

Every word and number the page prints is made here (pattern names in words, entropies
through ``app.figures.fmt``), so ``static/js/models/*.js`` only places them. The one
registry of models is ``app.models.registry``; this module adapts it for the pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import numpy as np

from app.figures import fmt
from app.figures.model_heads import generation_grid, head_grids, mini_maps
from app.inputs.errors import FieldError
from app.inputs.fields import printable
from app.inputs.limits import Cost
from app.inputs.model_text import (
    MAX_TEXT_CHARS,
    ModelShape,
    attention_cost,
    forward_cost,
    generate_cost,
    head_cost,
)
from app.models import generation, head_state, registry, summaries
from app.models import text as text_rule
from app.models.base import Model, ModelSpec, Trace
from app.models.errors import ModelInputError
from app.models.smollm import SmolLM2

# What the page opens on: the running example's sentence, and for the decoder a repeated
# random sequence (the second half repeats the first: induction heads show on it).
DEFAULT_TEXT = {"minilm": "I love LLMs", "tiny-decoder": "kqzfmbwd kqzfmbwd"}
# A head's pattern (``app.models.summaries``) in a learner's words.
PATTERN_WORDS = {
    "previous": "previous-token head",
    "two_back": "two-back head",
    "next": "next-token head",
    "self": "self head",
    "first": "first-token head",
    "last": "last-token head",
    "induction": "induction head",
    "broad": "broad head",
    "same_word": "same-word head",
    "special": "special-token head",
}
# What each pattern means, for the page's key (a head's pattern is where most of its
# weight goes on average, app.models.summaries).
PATTERN_MEANINGS = {
    "previous": "each token attends to the token before it",
    "two_back": "to the token two before it",
    "next": "to the token after it",
    "self": "to itself",
    "first": "to the first token",
    "last": "to the last token",
    "same_word": "to the other pieces of its own word",
    "special": "to the special tokens",
    "induction": "to the token after an earlier copy of itself",
    "broad": "no single pattern: the weight is spread out",
}
# What a known head does, in a sentence (the decoder's heads on a repeated run of letters).
KNOWN_MEANINGS = {
    "previous": "each letter attends to the letter before it",
    "two_back": "each letter attends to the letter two before it",
    "induction": "each letter attends to the letter after the previous copy of itself, "
    "which is how the model predicts the second copy of a repeated sequence",
    # Layer 1, head 2 (tests/unit/test_decoder_heads.py measures both shares).
    "broad": "no one pattern takes most of its weight; on average about 0.4 of it is on "
    "the letter itself and about a fifth on [BOS]",
}
# Bytes a head's grid cell takes on the wire beyond its weight (colour, printed text).
GRID_BYTES_PER_CELL = 16


@dataclass(frozen=True)
class Listed:
    """A model as the pages list it."""

    spec: ModelSpec
    installed: bool
    install: str | None  # the command that installs it, when it is not
    generates: bool = False  # the page's generation mode (registry.Entry.generates)

    @property
    def missing(self) -> str:
        """Why it cannot open and what to do: the command, or (for a model that ships with
        the app, which has none) that its files must come back from the repository."""
        how = (f"install it with: {self.install}" if self.install
               else "its files are missing: restore them from the repository")  # fmt: skip
        return f"{self.spec.name} is not installed; {how}"


def load(model_id: str) -> Model:
    """The model (loaded once per worker by the registry)."""
    return registry.get(model_id)


def head_body(model_id: str, text: str, layer: int, head: int) -> dict[str, Any]:
    """A body for ``POST /api/v1/attention`` whose weights are that head's (0-based)."""
    return head_state.head_body(model_id, text, layer, head)


def summarise(
    model: Model, trace: Trace, aside: list[bool] | None = None
) -> list[list[dict[str, Any]]]:
    """``[layer][head]`` of {"pattern", "entropy", "scores"} (``app.models.summaries``),
    on the tokens not ``aside`` when some are (the greyed-out ones)."""
    return summaries.of_trace(model.spec, trace, aside)


def listed() -> list[Listed]:
    """Every model of the registry, with whether it is installed here."""
    out = []
    for model_id, entry in registry.MODELS.items():
        ready = registry.installed(model_id)
        out.append(Listed(entry.spec, ready, None if ready else entry.install, entry.generates))
    return out


def find(model_id: str) -> Listed | None:
    return next((m for m in listed() if m.spec.id == model_id), None)


def known_heads(model_id: str) -> list[str]:
    """What training made each head do, one sentence a head ("Layer 1, head 1 is a
    previous-token head: …"); empty for a model nobody has named the heads of."""
    entry = registry.MODELS.get(model_id)  # the tests' stand-in models are not listed there
    out = []
    for layer, row in enumerate(entry.known_heads if entry else ()):
        for head, pattern in enumerate(row):
            words = PATTERN_WORDS.get(pattern, pattern)
            article = "an" if words[0] in "aeiou" else "a"
            meaning = KNOWN_MEANINGS.get(pattern, PATTERN_MEANINGS.get(pattern, ""))
            out.append(f"Layer {layer + 1}, head {head + 1} is {article} {words}: {meaning}.")
    return out


def default_text(spec: ModelSpec) -> str:
    return DEFAULT_TEXT.get(spec.id, "I love LLMs")


def check_text(model: Model, text: str, field: str = "text") -> list[str]:
    """The model's tokens of ``text``, or FieldError naming ``field`` and the limit (the
    one rule: ``app.models.text``)."""
    try:
        return text_rule.tokens_of(model, text, MAX_TEXT_CHARS, field)
    except ModelInputError as exc:
        raise FieldError(exc.field, exc.message) from None


def heads_cost(spec: ModelSpec, n: int) -> Cost:
    """The model's attention (as ``POST /api/v1/models/{id}/attention`` prices it) and
    every head drawn as a grid: its colours held, more bytes per cell on the wire."""
    cells = spec.layers * spec.heads * n * n
    grids = Cost(cells, cells * GRID_BYTES_PER_CELL)
    return attention_cost(n, spec.layers, spec.heads, spec.d_model) + grids


def head_grid_cost(spec: ModelSpec, n: int) -> Cost:
    """One head's full grid (``/models/{id}/head.json``): the model's attention (its
    trace is usually held already) and one head's cells."""
    cells = n * n
    return attention_cost(n, spec.layers, spec.heads, spec.d_model) + Cost(
        cells, cells * GRID_BYTES_PER_CELL
    )


def check_head(spec: ModelSpec, layer: int, head: int) -> None:
    """FieldError naming ``layer`` or ``head`` (0-based) when outside the model."""
    if not 0 <= layer < spec.layers:
        raise FieldError("layer", f"layer must be from 0 to {spec.layers - 1}")
    if not 0 <= head < spec.heads:
        raise FieldError("head", f"head must be from 0 to {spec.heads - 1}")


def link_cost(spec: ModelSpec, n: int) -> Cost:
    """One head as the main page's state (``POST /api/v1/models/{id}/head``'s price)."""
    return head_cost(n, spec.layers, spec.heads, spec.d_model, spec.d_k)


def head_link(model_id: str, text: str, layer: int, head: int) -> str:
    """The main page's query opening head ``head`` of ``layer`` (0-based here; counted
    from 1 in the URL, as a person reads them)."""
    return urlencode({"model": model_id, "text": text, "layer": layer + 1, "head": head + 1})


def greyable(spec: ModelSpec, special: list[bool]) -> list[bool]:
    """The tokens the page's toggle can grey out: the special tokens, or in a causal model
    without any, the first token, where most weight of later layers lands (the attention
    sink, Xiao et al., "Efficient Streaming Language Models with Attention Sinks", 2024)."""
    if any(special) or not spec.causal or len(special) < 2:
        return special
    return [True] + [False] * (len(special) - 1)


def group_text(spec: ModelSpec, head: int) -> str | None:
    """ "KV 1 (H1–H3)": the key/value head query head ``head`` reads and the query heads
    that share it, counted from 1; None without grouped-query attention."""
    if spec.kv_heads is None:
        return None
    kv = spec.kv_head(head)
    group = spec.head_groups()[kv]
    return f"KV {kv + 1} (H{group[0] + 1}–H{group[-1] + 1})"


def _summary(
    spec: ModelSpec, item: dict[str, Any], sink: float, layer: int, head: int, open_query: str
) -> dict[str, Any]:
    pattern = str(item["pattern"])
    entropy = float(item["entropy"])
    words = PATTERN_WORDS.get(pattern, pattern)
    name = f"Layer {layer + 1}, head {head + 1}"
    entropy_text = fmt.coarse(entropy, 2)
    group = group_text(spec, head)
    return {
        "layer": layer,
        "head": head,
        "label": f"L{layer + 1} H{head + 1}",
        "name": name,
        "pattern": pattern,
        "short": pattern.replace("_", " "),  # the small map's label: "same word"
        "words": words,
        "entropy": entropy,
        "entropy_text": entropy_text,
        "sink": sink,
        "sink_text": fmt.coarse(sink, 2),
        "kv_head": spec.kv_head(head) if spec.kv_heads is not None else None,
        "group": group,
        "spoken": f"{name}: {words}, entropy {entropy_text} nats, "
        f"{fmt.coarse(sink, 2)} of its weight on the first token"
        + (f", shares its keys and values as {group}" if group else ""),
        "open": open_query,
    }


def _traced(model: Model, text: str) -> tuple[Trace, list[str], list[bool]]:
    # The registry keeps the last few traces: the larger head's head.json after the
    # sentence's heads.json does not run the model again (the tests' stand-ins are not there).
    listed = model.spec.id in registry.MODELS
    trace = registry.trace(model.spec.id, text) if listed else model.trace(text)
    tokens = [printable(t) for t in trace.tokens]
    special = [t in model.spec.special_tokens for t in trace.tokens]
    return trace, tokens, special


def _grey(model: Model, traced: tuple[Trace, list[str], list[bool]]) -> list[bool]:
    return greyable(model.spec, traced[2])


def head_answer(
    model: Model,
    text: str,
    theme: str,
    hide_special: bool,
    layer: int,
    head: int,
    traced: tuple[Trace, list[str], list[bool]] | None = None,
) -> dict[str, Any]:
    """One head's full grid (weights printed when small, hover values) for the larger view."""
    traced = traced or _traced(model, text)
    trace, tokens, _ = traced
    a = np.asarray(trace.attentions)[layer : layer + 1, head : head + 1]
    grey = _grey(model, traced)
    grid = head_grids(
        tokens, a, special=grey, mask=trace.mask, theme=theme, hide_special=hide_special
    )[0][0]
    grid["grid"] = f"weights-l{layer + 1}h{head + 1}"
    return {"layer": layer, "head": head, "grid": grid}


def heads_answer(
    model: Model, text: str, theme: str, hide_special: bool, layer: int = 0, head: int = 0
) -> dict[str, Any]:
    """One sentence through ``model``: tokens, every head's colours (``minis``) and
    summary, and the full grid of head ``head`` of ``layer`` (``selected``)."""
    traced = _traced(model, text)
    trace, tokens, special = traced
    greyed = hide_special and any(_grey(model, traced))
    # Greyed-out tokens are set aside in the summaries too: each head is named for what it
    # does with the other tokens (the grids keep the model's own weights).
    found = summarise(model, trace, _grey(model, traced) if greyed else None)
    attentions = np.asarray(trace.attentions)
    sinks = summaries.sink(attentions, model.spec.causal)
    return {
        "model": model.spec.id,
        "text": text,
        "tokens": tokens,
        "special": special,
        "causal": model.spec.causal,
        "hide_special": greyed,
        "greyable": _grey(model, traced),
        "summaries": [
            [
                _summary(
                    model.spec, item, float(sinks[i, j]), i, j, head_link(model.spec.id, text, i, j)
                )
                for j, item in enumerate(row)
            ]
            for i, row in enumerate(found)
        ],
        "minis": mini_maps(
            attentions,
            special=_grey(model, traced),
            mask=trace.mask,
            theme=theme,
            hide_special=hide_special,
        ),
        "selected": head_answer(model, text, theme, hide_special, layer, head, traced),
    }


# What the page's generation opens on (its steps; greedy unless a seed is given).
GENERATE_STEPS = 6


def generation_cost(spec: ModelSpec, prompt: int, steps: int) -> Cost:
    """The page's generation: the API's price of the steps (``generate_cost``), the
    check's forward of every token again without the cache, and one head's grid."""
    shape = ModelShape(
        spec.layers, spec.heads, spec.d_model, spec.d_k, len(spec.special_tokens),
        spec.max_tokens, 0, spec.key_value_heads,
    )  # fmt: skip
    n = prompt + steps
    check = forward_cost(n, spec.layers, spec.heads, spec.d_model)
    cells = steps * n
    return generate_cost(prompt, steps, shape) + check + Cost(cells, cells * GRID_BYTES_PER_CELL)


def check_generation(model: Model, prompt: int, steps: int, seed: int | None) -> None:
    """FieldError naming ``model``, ``steps`` or ``seed`` when this generation cannot run."""
    entry = registry.MODELS.get(model.spec.id)
    if entry is None or not entry.generates:
        raise FieldError("model", f"{model.spec.name} does not generate text")
    try:
        generation.check_steps(prompt, steps)
    except ModelInputError as exc:
        raise FieldError(exc.field, exc.message) from None


def token_label(text: str) -> str:
    """A token as the generation shows it: a new line as ⏎ (it is the commonest token a
    small model adds and would print as nothing), other control characters replaced."""
    return printable(text.replace("\n", "⏎"))


def _quoted(texts: list[str]) -> str:
    return ", ".join(f"“{t}”" for t in texts)


def generation_answer(
    model: Model, text: str, steps: int, seed: int | None, theme: str, layer: int, head: int
) -> dict[str, Any]:
    """The page's generation: the prompt and the tokens added, head ``head`` of ``layer``
    (0-based) as each new query's row over the cached keys, the cache's bytes per step,
    and the largest difference from recomputing the whole causal sequence, in words."""
    spec = model.spec
    assert isinstance(model, SmolLM2)  # check_generation: it generates
    done = registry.generated(spec.id, text, steps, seed)
    prompt = [token_label(t) for t in model.bpe.token_texts(done.prompt)]
    added = [token_label(s.text) for s in done.steps]
    tokens = prompt + added
    per_token = generation.bytes_per_token()
    name = f"Layer {layer + 1}, head {head + 1}"
    kv = spec.kv_head(head)
    group = spec.head_groups()[kv]
    grid = generation_grid(
        tokens,
        len(added),
        [s.weights[layer, head] for s in done.steps],
        name=f"weights-gen-l{layer + 1}h{head + 1}",
        theme=theme,
    )
    rows = [
        {
            "step": i + 1,
            "token": added[i],
            "position": s.position,
            "keys": s.position + 1,
            "cache_bytes": s.cache_bytes,
            "cache_text": f"{fmt.count(s.cache_bytes)} bytes",
            "announce": f"Step {i + 1}: added “{added[i]}” as token {s.position + 1}; "
            f"its query meets {s.position + 1} cached keys; the cache is now "
            f"{fmt.count(s.cache_bytes)} bytes.",
        }
        for i, s in enumerate(done.steps)
    ]
    last = done.steps[-1]
    n_all = len(tokens)
    how = "greedy: the most likely token each step" if seed is None else (
        f"sampled from the softmax of the logits with seed {seed}")  # fmt: skip
    return {
        "model": spec.id,
        "text": text,
        "steps": steps,
        "seed": seed,
        "greedy": seed is None,
        "layer": layer,
        "head": head,
        "prompt": prompt,
        "added": added,
        "rows": rows,
        "grid": grid,
        "how": f"{len(added)} tokens added, {how}.",
        "title": f"{name}: each new query over the cached keys",
        "head_words": f"{name} reads key/value head {kv + 1}, which query heads "
        f"H{group[0] + 1}–H{group[-1] + 1} share: at each step the new token's query meets "
        "the keys of every token before it and its own, read from the cache, never "
        "recomputed. Hatched cells are keys not added yet (the causal mask, weight 0).",
        "cache_words": f"Each token adds 2 (k and v) × {spec.layers} layers × "
        f"{spec.key_value_heads} key/value heads × {spec.d_k} numbers × 4 bytes "
        f"(float32) = {fmt.count(per_token)} bytes to the cache: "
        f"{fmt.count(per_token // (spec.layers * spec.key_value_heads))} bytes per layer "
        f"and key/value head. After the prompt ({len(prompt)} tokens) it holds "
        f"{fmt.count(per_token * len(prompt))} bytes; after step {len(added)}, "
        f"{fmt.count(last.cache_bytes)} bytes.",
        "difference": done.difference,
        # The steps of "Add one token", or None when no more fit (the step limit, the
        # model's length).
        "more": steps + 1 if steps < generation.MAX_STEPS and n_all < spec.max_tokens else None,
        "check": f"Cached against recomputed: running all {n_all} tokens again in one "
        f"forward, with no cache and the causal mask, gives each step's weights in every "
        f"one of the {spec.layers} × {spec.heads} heads to within "
        f"{fmt.significant(done.difference, 2)} (the largest |difference|, float32 "
        "rounding).",
        "announce": f"Added {len(added)} token{'s' if len(added) != 1 else ''}: "
        f"{_quoted(added)}; the cache holds {n_all} tokens, "
        f"{fmt.count(last.cache_bytes)} bytes.",
    }
