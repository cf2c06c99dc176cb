"""Head summaries on attention matrices built by hand: each pattern is recognised, a
spread-out head is "broad", and entropy is in nats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.models.summaries import THRESHOLD, label, probes, summarise, word_ids

TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]"]
SPECIAL = [True, False, False, False, True]
N = len(TOKENS)


def one_hot(keys: list[int]) -> np.ndarray:
    """Query i puts all its weight on key keys[i]."""
    a = np.zeros((len(keys), len(keys)))
    a[np.arange(len(keys)), keys] = 1.0
    return a


def summary(a: np.ndarray, tokens: list[str] = TOKENS, special: list[bool] = SPECIAL) -> dict:
    return summarise(a, tokens, special, word_ids(tokens, wordpiece=True))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("keys", "pattern"),
    [
        ([0, 0, 1, 2, 3], "previous"),  # query 0 has no previous token: it does not count
        ([1, 2, 3, 4, 4], "next"),
        ([0, 1, 2, 3, 4], "self"),
        ([0, 4, 4, 4, 4], "special"),  # [CLS] and [SEP] are both special
    ],
)
def test_one_hot_heads_get_their_pattern(keys: list[int], pattern: str) -> None:
    s = summary(one_hot(keys))
    assert s["pattern"] == pattern
    assert s["scores"][pattern] == 1.0
    assert s["entropy"] == 0.0


def test_first_and_last_without_special_tokens() -> None:
    plain = [False] * N
    assert summary(one_hot([0] * N), special=plain)["pattern"] == "first"
    assert summary(one_hot([N - 1] * N), special=plain)["pattern"] == "last"
    assert "special" not in summary(one_hot([0] * N), special=plain)["scores"]


def test_a_uniform_head_is_broad_with_entropy_log_n() -> None:
    s = summary(np.full((N, N), 1 / N))
    assert s["pattern"] == "broad"
    assert s["entropy"] == pytest.approx(math.log(N), abs=1e-6)
    assert all(v < THRESHOLD for v in s["scores"].values())


def test_an_induction_head_attends_after_the_earlier_occurrence() -> None:
    tokens = ["a", "b", "c", "d", "a", "b", "c", "d"]
    # query 4 ("a" again) looks at key 1 (after the first "a"), query 5 at 2, …
    keys = [0, 0, 1, 2, 1, 2, 3, 4]
    s = summarise(one_hot(keys), tokens, [False] * 8, word_ids(tokens, wordpiece=False))
    assert s["pattern"] == "induction"
    assert s["scores"]["induction"] == 1.0
    assert s["scores"]["previous"] == pytest.approx(3 / 7, abs=1e-6)
    assert "induction" not in summary(one_hot([0] * N))["scores"]  # no token repeats


def test_same_word_counts_the_other_pieces_of_the_word() -> None:
    tokens = ["[CLS]", "un", "##aff", "##able", "[SEP]"]
    assert word_ids(tokens, wordpiece=True) == [0, 1, 1, 1, 2]
    assert word_ids(tokens, wordpiece=False) == [0, 1, 2, 3, 4]
    a = one_hot([0, 2, 3, 1, 4])
    s = summarise(a, tokens, SPECIAL, word_ids(tokens, wordpiece=True))
    assert s["scores"]["same_word"] == 1.0
    assert s["pattern"] == "same_word"


def test_masked_cells_count_as_zero_and_every_layer_and_head_is_summarised() -> None:
    causal = np.tril(np.ones((N, N)))
    a = causal / causal.sum(1, keepdims=True)
    stacked = np.stack([np.stack([a, one_hot([0, 0, 1, 2, 3])])] * 3)  # (3, 2, n, n)
    out = summary(stacked)
    assert len(out) == 3
    assert [h["pattern"] for h in out[1]] == ["broad", "previous"]
    expected = np.mean([math.log(i + 1) for i in range(N)])
    assert out[2][0]["entropy"] == pytest.approx(expected, abs=1e-6)
    assert out[0][0]["scores"]["next"] == 0.0


def test_ties_go_to_the_more_specific_pattern_and_a_missing_score_is_skipped() -> None:
    assert summary(np.ones((1, 1)), ["x"], [False])["pattern"] == "self"
    assert label({"first": 0.6, "special": 0.6}) == "first"
    assert label({}) == "broad"
    assert set(probes(["x"], [False], [0])) == {"self", "first", "last"}


def test_a_causal_first_query_says_nothing_about_the_head() -> None:
    # Uniform over what each query sees: row 0 has only itself, so it is all "self" and all
    # "first" whatever the head does; counted, it made this head a self head (0.61).
    a = np.array([[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]])
    tokens, special, words = ["a", "b", "c"], [False] * 3, [0, 1, 2]
    counted = summarise(a, tokens, special, words)
    assert counted["pattern"] == "self"
    causal = summarise(a, tokens, special, words, causal=True)
    assert causal["pattern"] == "broad"
    assert causal["scores"]["self"] == pytest.approx((0.5 + 1 / 3) / 2, abs=1e-6)
    assert causal["scores"]["first"] == pytest.approx((0.5 + 1 / 3) / 2, abs=1e-6)
    assert causal["entropy"] == pytest.approx((np.log(2) + np.log(3)) / 2, abs=1e-6)
    # one token: nothing else to say than its only row
    one = summarise(np.ones((1, 1)), ["a"], [False], [0], causal=True)
    assert (one["pattern"], one["entropy"]) == ("self", 0.0)
