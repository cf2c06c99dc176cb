"""Our byte-level BPE agrees with the ``tokenizers`` library (the oracle, tests only).

The oracle is built here from the same parts the GGUF file names (``pre = smollm``): a
``Digits(individual_digits=True)`` split, then GPT-2's ``ByteLevel`` pattern (no prefix
space), then BPE over the file's own vocabulary and merges. The split is checked on any
text (Hypothesis; no model needed); the tokens on hard cases and on random texts of
tricky characters when SmolLM2 is installed.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models_support import needs_smollm2, smollm2_file

from app.models import bpe, gguf_file

tokenizers = pytest.importorskip("tokenizers")

HARD = [
    "The capital of France is",
    "  leading, trailing  ",
    "a\tb\n\nc \n d",
    "café naïve Ångström Ça",
    "東京は日本の首都です。",
    "emoji 🙂👍🏽 and a family 👨‍👩‍👧",
    "12345 and 3.14159, 1,000,000 ٣٤ ² ½ Ⅻ",
    "def f(x):\n    return x**2  # square\n",
    "control\x00\x01\x07\x1b\x1c\x1f\x7f\x85 end",
    "it's they're we've I'm you'll he'd IT'S",
    "\u00a0nbsp\u2003em\u3000ideographic\u200bzero-width",
    "!!! ??? ... --- http://example.com/a?b=c&d=e",
    "   ",
    "x" * 60,
]
# Characters this Python's Unicode tables know (unassigned ones, Cn, are left out: a
# character assigned in a later Unicode version, e.g. U+31350 of Unicode 15 under Python
# 3.11's Unicode 14, is a letter to the oracle and unknown to unicodedata).
# Lone surrogates (Cs) are not text: UTF-8 cannot hold them (the model refuses them).
ASSIGNED = st.characters(exclude_categories=("Cn", "Cs"))
TRICKY = "ab c\t\n\r'sSdé東🙂1٣\x00\x1c\x85\u00a0\u2003!.-_ "


def oracle_split() -> Any:
    pre = tokenizers.pre_tokenizers
    return pre.Sequence(
        [pre.Digits(individual_digits=True), pre.ByteLevel(add_prefix_space=False, use_regex=True)]
    )


def ours_split(text: str) -> list[str]:
    table = bpe.byte_characters()
    return ["".join(table[b] for b in p.encode("utf-8")) for p in bpe.pre_tokenize(text)]


@settings(max_examples=300, deadline=None)
@given(st.text(ASSIGNED, max_size=40) | st.text(alphabet=TRICKY, max_size=40))
def test_the_split_is_the_oracles_on_any_text(text: str) -> None:
    assert ours_split(text) == [p for p, _ in oracle_split().pre_tokenize_str(text)]
    assert "".join(bpe.pre_tokenize(text)) == text


@pytest.mark.parametrize("text", HARD)
def test_the_split_of_hard_cases(text: str) -> None:
    assert ours_split(text) == [p for p, _ in oracle_split().pre_tokenize_str(text)]


def test_the_byte_table_is_gpt2s() -> None:
    table = bpe.byte_characters()
    assert len(set(table)) == 256
    assert (table[ord(" ")], table[ord("\n")], table[ord("A")]) == ("Ġ", "Ċ", "A")


@functools.cache
def both() -> tuple[bpe.ByteLevelBPE, Any]:
    meta = gguf_file.read(smollm2_file()).metadata
    tokens, merges = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.merges"]
    oracle = tokenizers.Tokenizer(
        tokenizers.models.BPE({t: i for i, t in enumerate(tokens)},
                              [tuple(m.split(" ", 1)) for m in merges])
    )  # fmt: skip
    oracle.pre_tokenizer = oracle_split()
    return bpe.ByteLevelBPE(tokens, merges), oracle


@needs_smollm2
@pytest.mark.parametrize("text", HARD)
def test_the_tokens_of_hard_cases_are_the_oracles(text: str) -> None:
    ours, oracle = both()
    ids = ours.encode(text)
    assert ids == oracle.encode(text).ids
    assert ours.decode(ids) == text


@needs_smollm2
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=TRICKY, min_size=1, max_size=30))
def test_the_tokens_of_random_texts_are_the_oracles(text: str) -> None:
    ours, oracle = both()
    assert ours.encode(text) == oracle.encode(text).ids


@needs_smollm2
def test_tokens_read_as_text() -> None:
    ours, _ = both()
    assert ours.tokenize("The capital of France is") == ["The", " capital", " of", " France", " is"]
    assert ours.tokenize("2024") == ["2", "0", "2", "4"]
    pieces = ours.tokenize("🙂")  # one character, maybe several byte tokens
    assert "".join(pieces) == "🙂" or "\ufffd" in "".join(pieces)
