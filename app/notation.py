"""The one notation parser: the product's closed vocabulary of ASCII notation (W^Q, d_k,
q_2, √d_k, e^−2, …) found in a text and turned into MathML trees.

The vocabulary is a table of patterns in ``static/js/notation-vocabulary.json``, read here
and by ``static/js/notation_core.js`` (the browser's ``setNotation``), so the server's
``math`` filter (``app.templating``) and the page's JavaScript convert exactly the same
strings in the same way (``tests/js/notation.test.mjs`` and ``tests/unit/test_notation.py``
check both against one case list). Everything outside the vocabulary stays text: a hyphen
before a number, ``^{…}`` or a misspelt name is never guessed at.

A token is ``("text", str)`` or ``("math", tree, source, spoken)``; a tree is a list
``[element, child, …]`` whose children are trees or text (MathML token elements ``mi``,
``mn`` hold one string); ``spoken`` is its accessible name ("d k", "square root of d k"),
written as the <math>'s aria-label because screen readers and axe read MathML's own text
unreliably when it is the whole name of a label or a button.

Two more readings of the same tokens: ``plotly_markup`` (Plotly's <sub>/<sup> text markup,
the twin of notation_core.js ``plotlyMarkup``: charts cannot hold MathML) and ``spoken``
(a whole text as a screen reader should say it, for an aria-label).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from app.paths import static_dir

VOCABULARY = "js/notation-vocabulary.json"

Tree = list[Any]
Token = tuple[str, str] | tuple[str, Tree, str, str]


@dataclass(frozen=True)
class Pattern:
    name: str
    regex: re.Pattern[str]
    tree: Tree
    spoken: str


@cache
def patterns() -> tuple[Pattern, ...]:
    """The vocabulary's patterns, in priority order (read once)."""
    table = json.loads((static_dir() / VOCABULARY).read_text(encoding="utf-8"))
    return tuple(
        Pattern(p["name"], re.compile(p["regex"]), p["tree"], p["spoken"])
        for p in table["patterns"]
    )


def _fill(tree: Any, match: re.Match[str]) -> Any:
    """The pattern's tree with "$1", "$2", … replaced by the match's groups."""
    if isinstance(tree, str):
        return re.sub(r"\$(\d)", lambda m: match.group(int(m.group(1))), tree)
    return [tree[0], *(_fill(child, match) for child in tree[1:])]


def _first(text: str, pos: int) -> tuple[re.Match[str], Pattern] | None:
    """The earliest match at or after ``pos``; a tie goes to the earlier pattern."""
    best: tuple[re.Match[str], Pattern] | None = None
    for pattern in patterns():
        match = pattern.regex.search(text, pos)
        if match and (best is None or match.start() < best[0].start()):
            best = (match, pattern)
    return best


def tokens(text: str) -> list[Token]:
    """``text`` split into text and notation: "W^Q has d_k columns" ->
    [("math", ["msup", ["mi", "W"], ["mi", "Q"]], "W^Q", "W Q"), ("text", " has "), …]."""
    out: list[Token] = []
    pos = 0
    while (found := _first(text, pos)) is not None:
        match, pattern = found
        if match.start() > pos:
            out.append(("text", text[pos : match.start()]))
        spoken = _fill(pattern.spoken, match)
        out.append(("math", _fill(pattern.tree, match), match.group(0), spoken))
        pos = match.end()
    if pos < len(text):
        out.append(("text", text[pos:]))
    return out


def script_runs(text: str) -> list[tuple[str, int]]:
    """``text`` as runs of (string, level) for a medium without MathML (an SVG ``<text>``):
    level 1 raised, −1 lowered, 0 on the line. "√d_k" -> [("√d", 0), ("k", −1)]."""
    out: list[tuple[str, int]] = []

    def walk(tree: Any, level: int) -> None:
        if isinstance(tree, str):
            if out and out[-1][1] == level:
                out[-1] = (out[-1][0] + tree, level)
            elif tree:
                out.append((tree, level))
            return
        element, *children = tree
        if element in ("msup", "msub"):
            walk(children[0], level)
            walk(children[1], 1 if element == "msup" else -1)
            return
        if element == "msqrt":
            walk("√", level)
        for child in children:
            walk(child, level)

    for token in tokens(text):
        walk(token[1], 0)
    return out


_PLOTLY_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _plotly_of(tree: Any) -> str:
    if isinstance(tree, str):
        return tree.translate(_PLOTLY_ESCAPES)
    element, *children = tree
    parts = [_plotly_of(child) for child in children]
    if element == "msup":
        return f"{parts[0]}<sup>{parts[1]}</sup>"
    if element == "msub":
        return f"{parts[0]}<sub>{parts[1]}</sub>"
    if element == "msqrt":
        return "√" + "".join(parts)
    return "".join(parts)  # mi, mn, mo, mrow: their text


@lru_cache(maxsize=8192)  # a chart's texts repeat edit after edit: tokens, sizes, labels
def plotly_markup(text: str) -> str:
    """``text`` in Plotly's own text markup, its notation as <sub>/<sup>, everything else
    escaped so a label stays text (the twin of notation_core.js ``plotlyMarkup``):
    "√d_k & W^Q" -> "√d<sub>k</sub> &amp; W<sup>Q</sup>"."""
    return "".join(_plotly_of(token[1]) for token in tokens(text))


def spoken(text: str) -> str:
    """``text`` with its notation in words, for an aria-label (the twin of notation_core.js
    ``spokenText``): "Download W^Q" -> "Download W Q"."""
    return "".join(str(token[-1]) for token in tokens(text))  # a text's string, a math's spoken
