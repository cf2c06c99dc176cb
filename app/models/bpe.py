"""Byte-level BPE (GPT-2's scheme) from a vocabulary and merges, in pure Python.

SmolLM2's tokenizer, as its GGUF file describes it (``tokenizer.ggml.model = gpt2``,
``pre = smollm``): the text is first split into pieces, then each piece's UTF-8 bytes
are written as printable characters (GPT-2's byte-to-character table: a space is ``Ġ``),
and the merges are applied lowest rank first until no ranked pair is left; each
resulting symbol is a token of the vocabulary.

The split, in order: every numeric character (Unicode N*) is a piece of its own; the rest
is cut as GPT-2's pattern ``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|
\\s+(?!\\S)|\\s+`` would, written here as a scanner over Unicode categories (Python's
``re`` has no ``\\p{L}``). ``\\s`` is Unicode's White_Space, which is not ``str.isspace``
(that also counts U+001C–U+001F). Tested against the ``tokenizers`` library.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Sequence

# Unicode's White_Space property (what \s means to the tokenizers library's regex).
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def byte_characters() -> list[str]:
    """GPT-2's table: byte b → a printable character (printable Latin-1 bytes stand for
    themselves; the others, in order, for U+0100 onwards)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(0x100 + extra)
            extra += 1
    return [table[b] for b in range(256)]


def _kind(c: str) -> str:
    """Its kind: "s" (white space), "L" (letter), "N" (number) or "o" (anything else)."""
    if c in WHITE_SPACE:
        return "s"
    category = unicodedata.category(c)[0]
    return category if category in "LN" else "o"


def _run(text: str, at: int, kind: str) -> int:
    """The end of the run of characters of ``kind`` starting at ``at``."""
    end = at
    while end < len(text) and _kind(text[end]) == kind:
        end += 1
    return end


def _match(text: str, at: int) -> int:
    """The end of GPT-2's pattern's match at ``at`` (alternatives tried in order)."""
    for c in CONTRACTIONS:
        if text.startswith(c, at):
            return at + len(c)
    start = at + 1 if text[at] == " " and at + 1 < len(text) else at
    kind = _kind(text[start])
    if kind != "s":  # ` ?\p{L}+`, ` ?\p{N}+` or ` ?[^\s\p{L}\p{N}]+`
        return _run(text, start, kind)
    end = _run(text, at, "s")  # white space: all of it before the end of the text, or
    if end == len(text) or end - at == 1:  # \s+(?!\S) leaves the last one to the word
        return end
    return end - 1


def pre_tokenize(text: str) -> list[str]:
    """The pieces BPE works on, in order (their concatenation is ``text``)."""
    pieces: list[str] = []
    at = 0
    while at < len(text):
        if _kind(text[at]) == "N":  # the Digits split: each number character alone
            pieces.append(text[at])
            at += 1
            continue
        end = _segment_end(text, at)
        part = text[at:end]
        i = 0
        while i < len(part):
            j = _match(part, i)
            pieces.append(part[i:j])
            i = j
        at = end
    return pieces


def _segment_end(text: str, at: int) -> int:
    """The end of the stretch without number characters starting at ``at``."""
    end = at
    while end < len(text) and _kind(text[end]) != "N":
        end += 1
    return end


class ByteLevelBPE:
    """A vocabulary (id → token) and its merges ("a b", by rank), and the encoder."""

    def __init__(self, tokens: Sequence[str], merges: Sequence[str]) -> None:
        self.tokens = list(tokens)
        self.ids_of = {t: i for i, t in enumerate(self.tokens)}
        self.ranks = {tuple(m.split(" ", 1)): r for r, m in enumerate(merges)}
        self.byte_chars = byte_characters()
        self.char_bytes = {c: b for b, c in enumerate(self.byte_chars)}
        self._word = functools.lru_cache(maxsize=16384)(self._merge)

    def _merge(self, word: str) -> tuple[str, ...]:
        """One piece (in byte characters) → its symbols after every ranked merge."""
        symbols = list(word)
        while len(symbols) > 1:
            ranked = [(self.ranks[p], p) for p in itertools.pairwise(symbols) if p in self.ranks]
            if not ranked:
                break
            first, second = min(ranked)[1]  # the lowest rank (one pair has each rank)
            merged, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
                    merged.append(first + second)
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            symbols = merged
        return tuple(symbols)

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (no BOS: SmolLM2's file adds none)."""
        ids: list[int] = []
        for piece in pre_tokenize(text):
            word = "".join(self.byte_chars[b] for b in piece.encode("utf-8"))
            ids.extend(self.ids_of[s] for s in self._word(word))
        return ids

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text`` as readable text (a token's bytes decoded; a token that
        holds part of a character shows the replacement character)."""
        return self.token_texts(self.encode(text))

    def token_texts(self, ids: Sequence[int]) -> list[str]:
        return [self.decode([i]) for i in ids]

    def decode(self, ids: Sequence[int]) -> str:
        """The text of the tokens ``ids`` (their bytes, decoded as UTF-8)."""
        data = bytes(self.char_bytes[c] for i in ids for c in self.tokens[i])
        return data.decode("utf-8", errors="replace")
