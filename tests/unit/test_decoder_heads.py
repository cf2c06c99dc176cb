"""The tiny decoder's heads do what the registry says they do (KNOWN_HEADS).

Fresh random repeated sequences ([BOS] + s + s, s of 4 to 20 distinct letters, a seed the
training never used) go through the shipped model; app.models.summaries scores and names
every head on each. A head's label is its summary's pattern on the mean scores over the
sequences, and it must be KNOWN_HEADS' label, on most single sequences too. The named
heads must also clear a bar: a previous-token head puts at least 0.75 of its weight on the
previous token, an induction head at least 0.7 on the token after the previous occurrence
of the current one (measured: training/README.md).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from app.models import decoder, registry, summaries

SEQUENCES = 60
BARS = {"previous": 0.75, "induction": 0.7}


def repeated(rng: np.random.Generator) -> str:
    length = int(rng.integers(4, 21))
    letters = "".join(rng.permutation(list(decoder.ALPHABET))[:length])
    return letters + " " + letters


@pytest.fixture(scope="module")
def measured() -> tuple[
    dict[tuple[int, int], dict[str, float]], dict[tuple[int, int], Counter[str]]
]:
    """Per head (0-based): mean score of every pattern, and the labels of single sequences."""
    model = registry.get("tiny-decoder")
    rng = np.random.default_rng(20261201)
    totals: dict[tuple[int, int], dict[str, list[float]]] = {}
    labels: dict[tuple[int, int], Counter[str]] = {}
    for _ in range(SEQUENCES):
        trace = model.trace(repeated(rng))
        special = [t in decoder.SPEC.special_tokens for t in trace.tokens]
        words = summaries.word_ids(trace.tokens, wordpiece=False)
        for layer, row in enumerate(
            summaries.summarise(trace.attentions, trace.tokens, special, words)
        ):
            for head, summary in enumerate(row):
                for pattern, score in summary["scores"].items():
                    totals.setdefault((layer, head), {}).setdefault(pattern, []).append(score)
                labels.setdefault((layer, head), Counter())[summary["pattern"]] += 1
    means = {
        key: {p: float(np.mean(v)) for p, v in scores.items()} for key, scores in totals.items()
    }
    return means, labels


def test_every_head_has_a_known_label() -> None:
    s = decoder.SPEC
    assert len(decoder.KNOWN_HEADS) == s.layers
    assert all(len(row) == s.heads for row in decoder.KNOWN_HEADS)
    assert {p for row in decoder.KNOWN_HEADS for p in row} <= {*summaries.PATTERNS, summaries.BROAD}
    assert registry.entry("tiny-decoder").known_heads == decoder.KNOWN_HEADS
    # The task's two-step circuit is there: a previous-token head before an induction head.
    layer_of = {p: i for i, row in enumerate(decoder.KNOWN_HEADS) for p in row}
    assert layer_of["previous"] < layer_of["induction"]


@pytest.mark.parametrize(
    ("layer", "head"),
    [(layer, head) for layer in range(decoder.SPEC.layers) for head in range(decoder.SPEC.heads)],
    ids=lambda v: str(v + 1),
)
def test_the_head_does_what_the_registry_says(
    measured: tuple[dict[tuple[int, int], dict[str, float]], dict[tuple[int, int], Counter[str]]],
    layer: int,
    head: int,
) -> None:
    means, labels = measured
    expected = decoder.KNOWN_HEADS[layer][head]
    scores = means[(layer, head)]
    where = f"layer {layer + 1} head {head + 1}"
    assert summaries.label(scores) == expected, f"{where}: {scores}"
    assert labels[(layer, head)][expected] > SEQUENCES / 2, f"{where}: {labels[(layer, head)]}"
    if expected in BARS:
        assert scores[expected] >= BARS[expected], f"{where}: {expected} {scores[expected]:.3f}"
