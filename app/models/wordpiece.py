"""BERT's uncased tokenizer in pure Python: basic splitting, then WordPiece over a vocabulary.

The same steps as the model was trained with, in this order:

1. **clean**: drop NUL, U+FFFD and control characters; every kind of space becomes " ";
2. **CJK**: each CJK ideograph becomes a word of its own (spaces around it);
3. **accents** off (NFD, then combining marks dropped) and **lower case**;
4. **split** on spaces, and around each punctuation character (ASCII symbols count);
5. **WordPiece**: each word is cut greedily into the longest pieces in the vocabulary,
   pieces after the first written with "##"; a word that cannot be cut, or longer than
   ``MAX_WORD_CHARS``, is one "[UNK]".

``[CLS]`` and ``[SEP]`` go around the result; there is no padding (padding tokens would
take attention of their own and mean nothing).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

CLS, SEP, UNK = "[CLS]", "[SEP]", "[UNK]"
CONTINUATION = "##"
MAX_WORD_CHARS = 100  # the model's tokenizer config: longer words are one [UNK]

# The CJK ideograph blocks BERT's tokenizer isolates (Unified Ideographs, Extensions A–E,
# Compatibility Ideographs and their Supplement); Hangul and kana are not among them.
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK)


def is_space(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) == "Zs"


def is_control(ch: str) -> bool:
    """Control and format characters, which are dropped; tab and newlines are spaces."""
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf", "Cn", "Co")


def is_punctuation(ch: str) -> bool:
    """Unicode punctuation, and every ASCII symbol ("$", "+", "^", "`" are not P* in Unicode)."""
    return (ch.isascii() and not ch.isalnum() and ch.isprintable() and ch != " ") or (
        unicodedata.category(ch).startswith("P")
    )


def normalise(text: str) -> str:
    """Steps 1–3: cleaned, CJK spaced out, accents stripped, lower case."""
    out: list[str] = []
    for ch in text:
        if ch in ("\0", "\ufffd") or is_control(ch):
            continue
        if is_space(ch):
            out.append(" ")
        elif is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").lower()


def words(text: str) -> list[str]:
    """Step 4: the normalised text split on spaces and around punctuation."""
    found: list[str] = []
    for chunk in normalise(text).split():
        current = ""
        for ch in chunk:
            if is_punctuation(ch):
                if current:
                    found.append(current)
                found.append(ch)
                current = ""
            else:
                current += ch
        if current:
            found.append(current)
    return found


class WordPiece:
    """The tokenizer of one vocabulary (one token a line, ids are line numbers)."""

    def __init__(self, vocabulary: Iterable[str]) -> None:
        self.vocab = {token: i for i, token in enumerate(vocabulary)}
        for needed in (CLS, SEP, UNK):
            if needed not in self.vocab:
                raise ValueError(f"the vocabulary has no {needed}")

    def pieces(self, word: str) -> list[str]:
        """Step 5 for one word: longest pieces first, or ["[UNK]"]."""
        if len(word) > MAX_WORD_CHARS:
            return [UNK]
        out: list[str] = []
        start = 0
        while start < len(word):
            prefix = CONTINUATION if start else ""
            for end in range(len(word), start, -1):
                piece = prefix + word[start:end]
                if piece in self.vocab:
                    out.append(piece)
                    start = end
                    break
            else:  # no piece of the vocabulary starts here: the whole word is unknown
                return [UNK]
        return out

    def tokenize(self, text: str) -> list[str]:
        """[CLS], the pieces of every word, [SEP]."""
        return [CLS, *(p for w in words(text) for p in self.pieces(w)), SEP]

    def ids(self, tokens: Iterable[str]) -> list[int]:
        return [self.vocab[t] for t in tokens]
