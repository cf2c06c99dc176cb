"""The tiny decoder's heads do what the registry says they do (KNOWN_HEADS).

Fresh random repeated sequences ([BOS] + s + s, s of 4 to 20 distinct letters, a seed the
training never used) go through the shipped model; app.models.summaries scores and names
every head on each. A head's label is its summary's pattern on the mean scores over the
sequences, and it must be KNOWN_HEADS' label, on most single sequences too. The named
heads must also clear a bar: a previous-token head puts at least 0.75 of its weight on the
previous token, a two-back head at least 0.6 two tokens back, an induction head at least
0.7 on the token after the previous occurrence of the current one (measured:
training/README.md). The page's sentences about the heads (app.web.model_views) are checked
against the same measurements, and the two-back head against texts that are not repeated
runs, where an induction reading would be a coincidence of the text.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from app.models import decoder, registry, summaries
from app.web.model_views import KNOWN_MEANINGS

SEQUENCES = 60
BARS = {"previous": 0.75, "two_back": 0.6, "induction": 0.7}
# Not repeated runs: period 3 (where the cells after earlier copies are two back), period 2,
# words, letters that never repeat.
OTHER_TEXTS = ("abcabcabcabc", "ababababab", "the cat sat on the mat", "qwertyuiopasdfgh",
               "attention is all you need")  # fmt: skip


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


def summary_of(text: str) -> list[list[dict[str, object]]]:
    model = registry.get("tiny-decoder")
    trace = model.trace(text)
    special = [t in decoder.SPEC.special_tokens for t in trace.tokens]
    words = summaries.word_ids(trace.tokens, wordpiece=False)
    return summaries.summarise(trace.attentions, trace.tokens, special, words)  # type: ignore[no-any-return]


@pytest.mark.parametrize("text", OTHER_TEXTS)
def test_layer_1_head_3_looks_two_letters_back_on_any_text(text: str) -> None:
    # It was called "spread out, with no single pattern", and an induction head on "abcabc".
    head = summary_of(text)[0][2]
    assert head["pattern"] == "two_back", head
    assert head["scores"]["two_back"] >= 0.6, head  # type: ignore[index]


def test_the_broad_head_sentence_is_what_it_does(
    measured: tuple[dict[tuple[int, int], dict[str, float]], dict[tuple[int, int], Counter[str]]],
) -> None:
    means, _ = measured
    scores = means[(0, 1)]
    assert decoder.KNOWN_HEADS[0][1] == "broad"
    sentence = KNOWN_MEANINGS["broad"]
    assert "about 0.4 of it is on the letter itself" in sentence
    assert 0.35 <= scores["self"] <= 0.55, scores
    assert "about a fifth on [BOS]" in sentence
    assert decoder.BOS == "[BOS]"
    assert 0.15 <= scores["first"] <= 0.25, scores  # key 0 is [BOS]


def test_a_fixed_offset_names_a_head_only_when_it_explains_the_weight() -> None:
    assert summaries.label({"induction": 0.82, "two_back": 0.83}) == "two_back"
    assert summaries.label({"induction": 0.85, "previous": 0.78}) == "previous"
    # the weight past the offset is on earlier copies: an induction head
    assert summaries.label({"induction": 0.9, "two_back": 0.55}) == "induction"
    assert summaries.label({"induction": 0.6, "previous": 0.45}) == "induction"
