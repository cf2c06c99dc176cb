"""The ONE declaration of the lesson question kinds: each kind's name in the editor and the
keys it reads (required or optional, and a key asked for only when another has one value),
and the choices of the keys that have choices, with the editor's words for them.

Everything else about the kinds is read from here:

- the validator (``app.lessons.format``: which keys a question of a kind may and must
  have, and the choices of ``stage``, ``which`` and ``quantity``);
- the JSON Schema (``app.lessons.schema``: one ``oneOf`` branch per kind);
- the lesson editor's menus (``static/js/lessons/edit.js`` reads ``editor_kinds()`` from
  ``<script id="lesson-kinds">`` on ``/lessons/edit``, written through the template global
  ``lesson_kinds`` as the view's declaration reaches the pages through ``view_fields``):
  which kinds it offers, which menus each shows, what a new question starts with.

What a kind *computes* is its answer module (``choice``, ``cells``, ``direction``, through
``app.lessons.answers``); how the player asks it is ``static/js/lessons/questions.js``.
One kind computes nothing: ``multiple_choice``, the teacher's own question (their prompt,
2 to 6 choices and the right one, ``app.lessons.own``), which may also ask about a lab
section (``states``), since it reads no stage. ``section_question`` asks a lab section's
own stop-and-try question, computed by the lab from its controls (``app.lessons.section``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal[
    "attends_most", "order", "cell_value", "click_cell", "direction", "multiple_choice",
    "section_question",
]  # fmt: skip

# The stages a cell question points at, as the lesson JSON names them.
STAGES = ("Q", "K", "V", "scores", "scaled", "weights", "Z")
# click_cell's ``which`` and direction's ``quantity``: each choice and the editor's words.
WHICH_WORDS = {"max": "the largest", "min": "the smallest"}
QUANTITY_WORDS = {"entropy": "entropy", "max_weight": "largest weight", "weight": "weight"}
WHICH = tuple(WHICH_WORDS)
QUANTITIES = tuple(QUANTITY_WORDS)
MAX_TOLERANCE = 1e6
# A teacher's own question: how many choices, how long each, and its optional "why".
CHOICES_RANGE = (2, 6)
MAX_CHOICE = 120
MAX_WHY = 600

# Every kind's keys besides its own: True when required.
COMMON_KEYS = {"kind": True, "prompt": True, "head": False}
# What a new question starts with in the editor, per key a kind fills in (``started``).
STARTS: dict[str, Any] = {"row": 1, "col": 1, "stage": "weights", "which": "max",
                          "quantity": "entropy", "choices": ["Yes", "No"], "right": 1}  # fmt: skip


@dataclass(frozen=True)
class QuestionKind:
    """One kind: the editor's name for it, its keys (True: required) and ``only_when``:
    key -> (other key, value), a key required when the other has that value and refused
    otherwise; ``states``: the pages a question of the kind may ask about (a kind that
    reads a stage needs a main-page state); ``heads``: whether it takes ``head``."""

    label: str
    keys: dict[str, bool]
    only_when: dict[str, tuple[str, str]] = field(default_factory=dict)
    states: tuple[str, ...] = ("main",)
    heads: bool = True

    @property
    def all_keys(self) -> dict[str, bool]:
        """Every key a question of this kind may have (True: required)."""
        common = {k: v for k, v in COMMON_KEYS.items() if self.heads or k != "head"}
        return common | self.keys

    @property
    def started(self) -> tuple[str, ...]:
        """The keys a new question fills in: the required ones and those ``only_when``
        may require (the editor drops these again while their condition is false)."""
        return tuple(k for k, needed in self.keys.items() if needed or k in self.only_when)


KINDS: dict[str, QuestionKind] = {
    "attends_most": QuestionKind("Which key does a row weigh most?", {"row": True}),
    "order": QuestionKind("Order a row's keys by weight", {"row": True}),
    "cell_value": QuestionKind(
        "The value of one cell", {"stage": True, "row": True, "col": True, "tolerance": False}
    ),
    "click_cell": QuestionKind(
        "Click the largest or smallest cell", {"stage": True, "which": True, "row": False}
    ),
    "direction": QuestionKind(
        "Which way does a quantity move?",
        {"quantity": True, "row": True, "col": False, "change": True},
        only_when={"col": ("quantity", "weight")},  # a column only about one weight
    ),
    "multiple_choice": QuestionKind(
        "Your own multiple choice",
        {"choices": True, "right": True, "why": False},
        states=("main", "lab"),
        heads=False,
    ),
    "section_question": QuestionKind(
        "The lab section's own question", {}, states=("lab",), heads=False
    ),
}
KIND_KEYS: dict[str, dict[str, bool]] = {name: kind.keys for name, kind in KINDS.items()}
# The kinds a lab section may ask (the others read a main-page state's stages).
LAB_KINDS = tuple(name for name, kind in KINDS.items() if "lab" in kind.states)


def editor_kinds() -> dict[str, Any]:
    """What the lesson editor's script reads (JSON): per kind its label, keys, ``only_when``,
    ``states`` (the pages it may ask about) and ``starts`` (what a new question is filled
    in with); the stages; the words of each ``which`` and ``quantity``; the bounds of a
    teacher's choices."""
    return {
        "kinds": {
            name: {
                "label": kind.label,
                "keys": kind.keys,
                "only_when": {k: list(v) for k, v in kind.only_when.items()},
                "starts": {k: STARTS[k] for k in kind.started if k in STARTS},
                "states": list(kind.states),
            }
            for name, kind in KINDS.items()
        },
        "stages": list(STAGES),
        "which": WHICH_WORDS,
        "quantities": QUANTITY_WORDS,
        "choices": {"least": CHOICES_RANGE[0], "most": CHOICES_RANGE[1], "chars": MAX_CHOICE,
                    "why_chars": MAX_WHY},
    }  # fmt: skip
