"""The lesson JSON, version 1: parsed and validated into a ``Lesson``, or a ``LessonError``
naming the field path (``steps[2].question.row``) and what was expected.

The tables at the top (limits, keys) and the kinds' declaration (``app.lessons.kinds``: their
keys, stages, choices) are the one description of the format:
this validator reads them, and ``app.lessons.schema`` builds the JSON Schema from them, so
the two cannot drift (``tests/unit/test_lesson_schema.py`` also runs both on the same
lessons). Text (titles, texts, prompts) is plain text: it is kept exactly as written,
``<script>`` included, and every page prints it as text; only control characters are
refused (a line break is allowed in a step's text, nowhere else). What a state *means*
(that its query resolves, its rows exist, its price fits) is checked by
``app.lessons.states``, which needs the settings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl

from app.figures.registry import ALL_FIGURES
from app.figures.view_fields import VIEW_FIELDS
from app.inputs.errors import FieldError
from app.inputs.fields import CONTROL_CLASS
from app.lessons.kinds import (
    CHOICES_RANGE,
    KIND_KEYS,
    KINDS,
    MAX_CHOICE,
    MAX_TOLERANCE,
    MAX_WHY,
    QUANTITIES,
    STAGES,
    WHICH,
    Kind,
)

VERSION = 1
MAX_LESSON_BYTES = 64 * 1024  # the whole lesson JSON, UTF-8
MAX_STEPS = 40
MAX_TITLE = 120
MAX_SUMMARY = 400
MAX_TEXT = 2000
MAX_PROMPT = 300
MAX_QUERY = 20_000  # a state's query: an s= body of a few hundred numbers fits
MAX_FIGURES = 6
MAX_INDEX = 4096  # rows, columns and heads count from 1; the state bounds them next
ID_PATTERN = "^[a-z0-9-]{1,40}$"
# One line of plain text (titles, prompts) and a text that may break lines (a step's text).
LINE_PATTERN = f"^[^{CONTROL_CLASS}]*$"
TEXT_PATTERN = "^[^" + CONTROL_CLASS.replace(r"\x00-\x1f", r"\x00-\x09\x0b-\x1f") + "]*$"
# A teacher's choice: one line that starts and ends with something other than a space
# (so it is never blank, and "Yes" and "Yes " are not two choices that read alike).
CHOICE_PATTERN = f"^[^\\s{CONTROL_CLASS}](?:[^{CONTROL_CLASS}]*[^\\s{CONTROL_CLASS}])?$"

PAGE_WORDS = {"main": "main-page state", "lab": "lab section"}
LESSON_KEYS = {"version": True, "id": False, "title": True, "summary": False, "steps": True}
STEP_KEYS = {"title": True, "text": False, "state": True, "question": False}
MAIN_STATE_KEYS = {"page": True, "query": True, "figures": True}
LAB_STATE_KEYS = {"page": True, "lab": True, "section": True, "query": False}
# The main page's query keys: the state (preset or s) and the view, or a real model's
# head (model, text, layer and head: app.lessons.model_state) and the view.
MODEL_KEYS = ("model", "text", "layer")
MAIN_QUERY_KEYS = ("preset", "s", *(f.name for f in VIEW_FIELDS), *MODEL_KEYS)
# A direction question's changed state on a real model's head switches the head's scaling
# or mask in its own link (scale=0|1, mask=none|causal: app.lessons.model_state), so the
# change stays the model's exact numbers in a few bytes (as s= it is the whole state).
CHANGE_SWITCHES = ("scale", "mask")
CHANGE_QUERY_KEYS = (*MAIN_QUERY_KEYS, *CHANGE_SWITCHES)


class LessonError(FieldError):
    """A lesson that cannot be used; ``field`` is the path to fix (``steps[2].title``)."""


@dataclass(frozen=True)
class MainState:
    """A main-page state: the query after "?" and the figures the step shows."""

    query: str
    figures: tuple[int, ...]
    page: Literal["main"] = "main"


@dataclass(frozen=True)
class LabState:
    """A lab section: the lab id, the section (a figure of the lab) and its controls."""

    lab: str
    section: str
    query: str = ""
    page: Literal["lab"] = "lab"


@dataclass(frozen=True)
class Question:
    """A question; rows, columns and the head count from 1 as the page does."""

    kind: Kind
    prompt: str
    head: int = 1
    row: int | None = None
    col: int | None = None
    stage: str | None = None
    tolerance: float | None = None
    which: str | None = None
    quantity: str | None = None
    change: str | None = None
    choices: tuple[str, ...] | None = None
    right: int | None = None
    why: str | None = None


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    state: MainState | LabState
    question: Question | None = None


@dataclass(frozen=True)
class Lesson:
    title: str
    steps: tuple[Step, ...]
    id: str | None = None
    summary: str | None = None
    version: int = VERSION

    @property
    def questions(self) -> int:
        return sum(step.question is not None for step in self.steps)


# ---- small readers: each names its path


def _object(value: Any, path: str, keys: Mapping[str, bool]) -> Mapping[str, Any]:
    """``value`` as an object with only ``keys`` (True: required)."""
    if not isinstance(value, dict):
        raise LessonError(path or "body", "must be a JSON object")
    for key in value:
        if key not in keys:
            known = ", ".join(keys)
            raise LessonError(_at(path, str(key)), f"unknown field; expected one of {known}")
    for key, required in keys.items():
        if required and key not in value:
            raise LessonError(_at(path, key), "is required")
    return value


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _text(value: Any, path: str, least: int, most: int, lines: bool = False) -> str:
    if not isinstance(value, str):
        raise LessonError(path, "must be a string (plain text)")
    if not least <= len(value) <= most:
        raise LessonError(path, f"must have {least} to {most} characters, not {len(value)}")
    if not re.fullmatch(TEXT_PATTERN if lines else LINE_PATTERN, value):
        allowed = "line breaks are the only control characters allowed" if lines else (
            "one line of plain text: no control characters"
        )  # fmt: skip
        raise LessonError(path, allowed)
    return value


def _index(value: Any, path: str, most: int = MAX_INDEX) -> int:
    """A whole number from 1 (``2.0`` reads as 2, as JSON Schema's integer allows)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise LessonError(path, f"must be a whole number from 1 to {most} (counting from 1)")
    return value


def _choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    if value not in choices or not isinstance(value, str):
        raise LessonError(path, f"must be one of {', '.join(choices)}")
    return value


def query_params(query: str, path: str, keys: tuple[str, ...] | set[str]) -> dict[str, str]:
    """A state's query as parameters (its length is already checked): each key once,
    every key known."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise LessonError(path, "is not a query string (key=value pairs joined by &)") from None
    params: dict[str, str] = {}
    for key, value in pairs:
        if key not in keys:
            known = ", ".join(sorted(keys)) or "none"
            raise LessonError(path, f"unknown parameter {key[:40]!r}; expected {known}")
        if key in params:
            raise LessonError(path, f"the parameter {key!r} is given twice")
        params[key] = value
    return params


# ---- the format


def _main_state(raw: Mapping[str, Any], path: str) -> MainState:
    _object(raw, path, MAIN_STATE_KEYS)
    query = _text(raw["query"], _at(path, "query"), 0, MAX_QUERY)
    query_params(query, _at(path, "query"), MAIN_QUERY_KEYS)
    figures = raw["figures"]
    fpath = _at(path, "figures")
    if not isinstance(figures, list) or not 1 <= len(figures) <= MAX_FIGURES:
        raise LessonError(fpath, f"must be a list of 1 to {MAX_FIGURES} figure numbers")
    numbers = tuple(_index(n, f"{fpath}[{i}]", max(ALL_FIGURES)) for i, n in enumerate(figures))
    if len(set(numbers)) != len(numbers):
        raise LessonError(fpath, "lists a figure twice")
    return MainState(query, numbers)


def _lab_state(raw: Mapping[str, Any], path: str) -> LabState:
    _object(raw, path, LAB_STATE_KEYS)
    lab = _text(raw["lab"], _at(path, "lab"), 1, 40)
    section = _text(raw["section"], _at(path, "section"), 1, 40)
    query = _text(raw.get("query", ""), _at(path, "query"), 0, MAX_QUERY)
    return LabState(lab, section, query)


def _state(raw: Any, path: str) -> MainState | LabState:
    if not isinstance(raw, dict):
        raise LessonError(path, "must be a JSON object")
    page = raw.get("page")
    if page == "main":
        return _main_state(raw, path)
    if page == "lab":
        return _lab_state(raw, path)
    raise LessonError(_at(path, "page"), "must be main or lab")


def _question(raw: Any, path: str) -> Question:
    if not isinstance(raw, dict):
        raise LessonError(path, "must be a JSON object")
    kind = _choice(raw.get("kind"), _at(path, "kind"), tuple(KIND_KEYS))
    _object(raw, path, KINDS[kind].all_keys)
    fields: dict[str, Any] = {
        "prompt": _text(raw["prompt"], _at(path, "prompt"), 1, MAX_PROMPT),
        "head": _index(raw.get("head", 1), _at(path, "head")),
    }
    if "choices" in raw:
        fields["choices"] = _choices(raw["choices"], _at(path, "choices"))
        fields["right"] = _index(raw["right"], _at(path, "right"), len(fields["choices"]))
    if "why" in raw:
        fields["why"] = _text(raw["why"], _at(path, "why"), 0, MAX_WHY)
    for key in ("row", "col"):
        if key in raw:
            fields[key] = _index(raw[key], _at(path, key))
    if "stage" in raw:
        fields["stage"] = _choice(raw["stage"], _at(path, "stage"), STAGES)
    if "which" in raw:
        fields["which"] = _choice(raw["which"], _at(path, "which"), WHICH)
    if "quantity" in raw:
        fields["quantity"] = _choice(raw["quantity"], _at(path, "quantity"), QUANTITIES)
    if "tolerance" in raw:
        fields["tolerance"] = _tolerance(raw["tolerance"], _at(path, "tolerance"))
    if "change" in raw:
        fields["change"] = _text(raw["change"], _at(path, "change"), 0, MAX_QUERY)
        query_params(fields["change"], _at(path, "change"), CHANGE_QUERY_KEYS)
    for key, (other, value) in KINDS[kind].only_when.items():
        if (fields.get(other) == value) != (key in raw):
            raise LessonError(
                _at(path, key), f"is required for the {other} {value}, and only there"
            )
    return Question(kind=kind, **fields)  # type: ignore[arg-type]


def _choices(value: Any, path: str) -> tuple[str, ...]:
    """A teacher's 2 to 6 choices: each one line, not blank, no two the same."""
    least, most = CHOICES_RANGE
    if not isinstance(value, list) or not least <= len(value) <= most:
        raise LessonError(path, f"must be a list of {least} to {most} choices (plain text)")
    out = tuple(_text(c, f"{path}[{i}]", 1, MAX_CHOICE) for i, c in enumerate(value))
    for i, choice in enumerate(out):
        if not re.fullmatch(CHOICE_PATTERN, choice):
            raise LessonError(f"{path}[{i}]", "must not be blank, nor start or end with a space")
        if choice in out[:i]:
            raise LessonError(
                f"{path}[{i}]", f"is the same as choice {out.index(choice) + 1}: "
                "each choice must differ from the others"
            )  # fmt: skip
    return out


def _tolerance(value: Any, path: str) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not 0 < value <= MAX_TOLERANCE:
        raise LessonError(path, f"must be a number above 0 and at most {MAX_TOLERANCE:g}")
    return float(value)


def _step(raw: Any, path: str) -> Step:
    _object(raw, path, STEP_KEYS)
    state = _state(raw["state"], _at(path, "state"))
    question = None
    if raw.get("question") is not None:
        question = _question(raw["question"], _at(path, "question"))
        if state.page not in KINDS[question.kind].states:
            asks = ", ".join(k for k, v in KINDS.items() if state.page in v.states)
            where = PAGE_WORDS[state.page]
            raise LessonError(_at(path, "question"), f"a {question.kind} question does not "
                              f"go on a {where}; a {where} may ask {asks}")  # fmt: skip
    return Step(
        title=_text(raw["title"], _at(path, "title"), 1, MAX_TITLE),
        text=_text(raw.get("text", ""), _at(path, "text"), 0, MAX_TEXT, lines=True),
        state=state,
        question=question,
    )


def parse_lesson(raw: Any) -> Lesson:
    """A ``Lesson`` from decoded lesson JSON, or ``LessonError`` naming the first bad field."""
    _object(raw, "", LESSON_KEYS)
    if raw["version"] != VERSION or isinstance(raw["version"], bool):
        raise LessonError("version", f"must be {VERSION} (the only version so far)")
    lesson_id = raw.get("id")  # absent, or a string: null is not an id
    if "id" in raw and (not isinstance(lesson_id, str) or not re.fullmatch(ID_PATTERN, lesson_id)):
        raise LessonError("id", "must be 1 to 40 characters of a-z, 0-9 and -")
    summary = _text(raw["summary"], "summary", 0, MAX_SUMMARY) if "summary" in raw else None
    steps = raw["steps"]
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        raise LessonError("steps", f"must be a list of 1 to {MAX_STEPS} steps")
    return Lesson(
        title=_text(raw["title"], "title", 1, MAX_TITLE),
        steps=tuple(_step(s, f"steps[{i}]") for i, s in enumerate(steps)),
        id=lesson_id,
        summary=summary,
    )


def lesson_json(lesson: Lesson) -> dict[str, Any]:
    """The lesson as JSON again (``parse_lesson(lesson_json(x)) == x``)."""
    out: dict[str, Any] = {"version": lesson.version}
    if lesson.id is not None:
        out["id"] = lesson.id
    out["title"] = lesson.title
    if lesson.summary is not None:
        out["summary"] = lesson.summary
    out["steps"] = [_step_json(s) for s in lesson.steps]
    return out


def _step_json(step: Step) -> dict[str, Any]:
    state: dict[str, Any]
    if isinstance(step.state, MainState):
        state = {"page": "main", "query": step.state.query, "figures": list(step.state.figures)}
    else:
        state = {"page": "lab", "lab": step.state.lab, "section": step.state.section}
        if step.state.query:
            state["query"] = step.state.query
    out: dict[str, Any] = {"title": step.title, "text": step.text, "state": state}
    if step.question is not None:
        q = step.question
        keys = ["kind", "prompt", *KIND_KEYS[q.kind]]
        question = {k: getattr(q, k) for k in keys if getattr(q, k) is not None}
        if q.choices is not None:
            question["choices"] = list(q.choices)
        if q.head != 1:
            question["head"] = q.head
        out["question"] = question
    return out
