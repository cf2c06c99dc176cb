"""Greyed-out tokens set aside in the head summaries (issue 30 item 6): each head named
for what it does with the other tokens, on matrices built by hand and on MiniLM."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from models_support import needs_minilm

from app.models import registry, summaries
from app.models.base import Trace
from app.web import model_views

TOKENS = ("[CLS]", "the", "cat", "sat", "[SEP]")
SPECIAL = [True, False, False, False, True]


def test_set_aside_keeps_the_other_rows_and_columns_each_row_rescaled_to_one() -> None:
    rng = np.random.default_rng(3)
    a = rng.random((2, 3, 5, 5))
    a /= a.sum(axis=-1, keepdims=True)
    out = summaries.set_aside(a, SPECIAL)
    assert out.shape == (2, 3, 3, 3)
    kept = a[:, :, 1:4, 1:4]
    np.testing.assert_allclose(out, kept / kept.sum(axis=-1, keepdims=True), rtol=0, atol=1e-15)
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_a_row_with_no_weight_left_stays_zero() -> None:
    a = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    out = summaries.set_aside(a, [True, False, False])
    np.testing.assert_allclose(out, [[0.0, 0.0], [0.375, 0.625]], rtol=0, atol=1e-15)


def _trace(attentions: np.ndarray) -> Trace:
    return Trace(TOKENS, (), attentions, None)


def test_a_head_mostly_on_cls_is_named_for_the_rest_once_it_is_set_aside() -> None:
    # Each word puts 0.7 on [CLS] and 0.3 on the token before it.
    a = np.zeros((5, 5))
    a[0, 0] = a[4, 4] = 1.0
    for i in (1, 2, 3):
        a[i, 0], a[i, i - 1] = 0.7, a[i, i - 1] + 0.3
    spec = registry.MODELS["minilm"].spec
    raw = summaries.of_trace(spec, _trace(a[None, None]))[0][0]
    aside = summaries.of_trace(spec, _trace(a[None, None]), SPECIAL)[0][0]
    assert raw["pattern"] == "special"
    # Among "the cat sat": "cat" and "sat" put all of what is left on the word before
    # them; "the" (first of the three) has no word before it and does not count.
    assert aside["pattern"] == "previous"
    assert aside["scores"]["previous"] == 1.0
    assert "special" not in aside["scores"]


def test_setting_aside_nothing_or_everything_changes_nothing() -> None:
    a = np.full((1, 1, 5, 5), 0.2)
    spec = registry.MODELS["minilm"].spec
    raw = summaries.of_trace(spec, _trace(a))
    assert summaries.of_trace(spec, _trace(a), [False] * 5) == raw
    assert summaries.of_trace(spec, _trace(a), [True] * 5) == raw


TEXTS = [
    "I love LLMs",
    "The animal didn't cross the street because it was too tired",
    "Paris is the capital of France.",
]


@needs_minilm
@pytest.mark.parametrize("text", TEXTS)
def test_minilm_heads_greyed_are_named_without_the_special_tokens(text: str) -> None:
    model = registry.get("minilm")
    shown = model_views.heads_answer(model, text, "light", hide_special=False)
    greyed = model_views.heads_answer(model, text, "light", hide_special=True)
    before = Counter(h["pattern"] for row in shown["summaries"] for h in row)
    after = Counter(h["pattern"] for row in greyed["summaries"] for h in row)
    assert before["special"] >= 30  # most heads' weight is on [CLS] and [SEP] (of 72)
    assert after["special"] == 0
    assert sum(after.values()) == 72
    assert greyed["hide_special"] is True
    # The grids keep the model's own weights: only the words change.
    assert greyed["selected"]["grid"]["values"] == shown["selected"]["grid"]["values"]
    assert greyed["summaries"][0][0]["sink"] == shown["summaries"][0][0]["sink"]


@needs_minilm
def test_layer_4_head_2_puts_most_of_its_weight_from_it_on_animal() -> None:
    """The issue's example: with the special tokens set aside, this head's row for "it"
    is mostly "animal", and its summary no longer calls it a special-token head."""
    text = TEXTS[1]
    trace = registry.trace("minilm", text)
    tokens = list(trace.tokens)
    row = np.asarray(trace.attentions)[3, 1, tokens.index("it")]
    assert tokens[int(np.argmax(row))] == "animal"
    assert row.max() > 0.6
    spec = registry.MODELS["minilm"].spec
    special = [t in spec.special_tokens for t in tokens]
    assert summaries.of_trace(spec, trace, special)[3][1]["pattern"] != "special"
