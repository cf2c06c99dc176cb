"""The pure-Python WordPiece splits text as the ``tokenizers`` library does (the oracle),
on the model's own vocabulary; and each step on a small vocabulary of our own."""

from __future__ import annotations

import pytest
from models_support import minilm_folder, needs_minilm

from app.models.wordpiece import MAX_WORD_CHARS, WordPiece, normalise, words

CASES = [
    "I love LLMs",
    "Héllo, wörld! Naïve café, résumé, Ångström",
    "東京は日本の首都です。中文字符",
    "I ❤️ emoji 😀 ok🙂fine 👍🏽",
    "a+b=c; $5^2 `x` ~y @z #w (parens) [brackets] {braces} \"quotes\" 'single'",
    "don't can't it's ... -- — – …",
    "super" + "x" * 120,  # longer than MAX_WORD_CHARS: one [UNK]
    "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "Ｆｕｌｌ-width ＡＢＣ and İstanbul ß ﬁ",
    "tab\tnew\nline\u00a0nbsp\u200bzero-width\u2028separator",
    "한국어 텍스트 Ελληνικά κείμενο русский текст",
    "x\u0301y e\u0000f\ufffdg",
    "",
    "   ",
]


@needs_minilm
@pytest.mark.parametrize("text", CASES)
def test_the_tokens_equal_the_reference_tokenizer(text: str) -> None:
    tokenizers = pytest.importorskip("tokenizers", reason="the oracle: pip install tokenizers")
    folder = minilm_folder()
    oracle = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    oracle.no_padding()  # the shipped file pads to 128: padding means nothing here
    oracle.no_truncation()
    ours = WordPiece((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    expected = oracle.encode(text)
    assert ours.tokenize(text) == expected.tokens
    assert ours.ids(ours.tokenize(text)) == expected.ids


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "!", "a", "##b"]


def test_wordpiece_takes_the_longest_pieces_and_marks_continuations() -> None:
    wp = WordPiece(VOCAB)
    assert wp.tokenize("Unaffable!") == ["[CLS]", "un", "##aff", "##able", "!", "[SEP]"]
    assert wp.tokenize("") == ["[CLS]", "[SEP]"]  # no padding, ever
    assert wp.ids(["[CLS]", "un"]) == [2, 4]


def test_a_word_that_cannot_be_cut_or_is_too_long_is_one_unknown() -> None:
    wp = WordPiece([*VOCAB, "##" + "b"])
    assert wp.pieces("unz") == ["[UNK]"]  # "un" matches, "##z" does not: the whole word
    assert wp.pieces("a" + "b" * (MAX_WORD_CHARS - 1)) == ["a"] + ["##b"] * (MAX_WORD_CHARS - 1)
    assert wp.pieces("a" + "b" * MAX_WORD_CHARS) == ["[UNK]"]


def test_basic_splitting_cleans_lowers_strips_accents_and_isolates_cjk_and_punctuation() -> None:
    assert normalise("Ça\u0000\u200bVA\tbien") == "cava bien"
    assert words("Héllo,wörld!") == ["hello", ",", "world", "!"]
    assert words("日本語text") == ["日", "本", "語", "text"]
    assert words("$5^2") == ["$", "5", "^", "2"]  # ASCII symbols split like punctuation


def test_a_vocabulary_without_the_special_tokens_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\[UNK\]"):
        WordPiece(["[CLS]", "[SEP]", "a"])
