"""The labs' shared words: the five sources named by title (each linked to
``/sources#<id>``), and the product's one numbering of tokens and vectors. PURE.

Numbering (the product's convention, docs: common notes): what a person reads counts from
1, and a token's number never appears without its name: "love (row 2)", "k_1 (I)",
"q_2·k_2", "column 1 of d_v". URL controls, the API and NumPy scripts keep counting from 0
(``focus=2`` is row 3).

Sources: a quotation names its source by title, e.g. the course module “Attention”, and
links the title to the sources page. Prose written as data (a figure's intro) marks a
source with ``{course-module}``; ``prose_parts`` splits it into (text, href) pieces the
template turns into links, and ``plain`` gives the same words without links.
"""

from __future__ import annotations

import re
from typing import Any

# id -> the words that name the source in a sentence (its kind, then its title).
SOURCES = {
    "tutorial": "the tutorial “Self-Attention” by Hao Ma",
    "course-module": "the course module “Attention”",
    "qkv-notes": "the notes “Queries, keys and values”",
    "per-position-notes": "the notes “Inside Transformers, Part 3: Scaled dot-product attention”",
    "textbook": "the textbook chapter “Self-Attention and the Transformer” (Chapter 16)",
}
SOURCES_PAGE = "/sources"
_MARK = re.compile(r"\{(" + "|".join(map(re.escape, SOURCES)) + r")\}")


def source_href(source_id: str) -> str:
    """The sources page's entry for ``source_id`` (a KeyError for an unknown source)."""
    SOURCES[source_id]
    return f"{SOURCES_PAGE}#{source_id}"


def source_of(source_id: str, lead: str = "") -> dict[str, str]:
    """The ``source`` and ``href`` of a quotation from ``source_id`` (see ``cite``)."""
    name = SOURCES[source_id]
    return {
        "source": name[0].upper() + name[1:] + (f" {lead}" if lead else ""),
        "href": source_href(source_id),
    }


def cite(source_id: str, text: str, *, lead: str = "") -> dict[str, Any]:
    """A quotation (a lab figure's ``quotes`` entry) attributed to a source by title:
    ``source`` is what the page prints in bold, linked to ``href``. ``lead`` is a verb
    after the title ("measured", "printed")."""
    name = SOURCES[source_id]
    return {
        "source": name[0].upper() + name[1:] + (f" {lead}" if lead else ""),
        "href": source_href(source_id),
        "text": text,
    }


def prose_parts(text: str) -> list[tuple[str, str]]:
    """``text`` as (words, href) pieces: a ``{source-id}`` mark becomes that source's
    name with its link, everything else has href "". A mark at the start of a sentence
    is capitalised."""
    parts: list[tuple[str, str]] = []
    at = 0
    for m in _MARK.finditer(text):
        if m.start() > at:
            parts.append((text[at : m.start()], ""))
        name = SOURCES[m.group(1)]
        before = text[: m.start()].rstrip()
        if not before or before.endswith((".", "!", "?")):
            name = name[0].upper() + name[1:]
        parts.append((name, source_href(m.group(1))))
        at = m.end()
    if at < len(text):
        parts.append((text[at:], ""))
    return parts


def plain(text: str) -> str:
    """``text`` with each source mark written out as the source's name (no link)."""
    return "".join(words for words, _ in prose_parts(text))


def row(token: str, i: int) -> str:
    """Token ``i`` (0-based) as a person reads it: 'love (row 2)'."""
    return f"{token} (row {i + 1})"


def vec(letter: str, i: int, token: str | None = None) -> str:
    """Vector ``letter`` of row ``i`` (0-based): 'k_1', or with its token 'k_1 (I)'."""
    name = f"{letter}_{i + 1}"
    return f"{name} ({token})" if token is not None else name


def column(size: str, c: int) -> str:
    """Column ``c`` (0-based) of a width: 'column 1 of d_v'."""
    return f"column {c + 1} of {size}"
