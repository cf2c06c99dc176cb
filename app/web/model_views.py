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
from app.figures.model_heads import head_grids, mini_maps
from app.inputs.errors import FieldError
from app.inputs.fields import printable
from app.inputs.limits import Cost
from app.inputs.model_text import MAX_TEXT_CHARS, attention_cost, head_cost
from app.models import head_state, registry, summaries
from app.models import text as text_rule
from app.models.base import Model, ModelSpec, Trace
from app.models.errors import ModelInputError

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


def load(model_id: str) -> Model:
    """The model (loaded once per worker by the registry)."""
    return registry.get(model_id)


def head_body(model_id: str, text: str, layer: int, head: int) -> dict[str, Any]:
    """A body for ``POST /api/v1/attention`` whose weights are that head's (0-based)."""
    return head_state.head_body(model_id, text, layer, head)


def summarise(model: Model, trace: Trace) -> list[list[dict[str, Any]]]:
    """``[layer][head]`` of {"pattern", "entropy", "scores"} (``app.models.summaries``)."""
    return summaries.of_trace(model.spec, trace)


def listed() -> list[Listed]:
    """Every model of the registry, with whether it is installed here."""
    out = []
    for model_id, entry in registry.MODELS.items():
        ready = registry.installed(model_id)
        out.append(Listed(entry.spec, ready, None if ready else entry.install))
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
    found = summarise(model, trace)
    attentions = np.asarray(trace.attentions)
    sinks = summaries.sink(attentions, model.spec.causal)
    return {
        "model": model.spec.id,
        "text": text,
        "tokens": tokens,
        "special": special,
        "causal": model.spec.causal,
        "hide_special": hide_special and any(_grey(model, traced)),
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
