"""The lesson JSON Schema (draft 2020-12), built from ``app.lessons.format``'s own tables
(keys, limits, patterns) and the kinds' declaration (``app.lessons.kinds``), so the
published schema and the validator say the same thing; ``tests/unit/test_lesson_schema.py``
runs both on the same lessons.

The schema checks the form. What only a run can tell (a query that resolves, a row
within the state, a price within the budget) is checked by ``POST /api/v1/lessons/answers``.
"""

from __future__ import annotations

from typing import Any

from app.figures.registry import ALL_FIGURES
from app.lessons import format as f
from app.lessons import kinds

SCHEMA_ID = "https://attention-lab.invalid/api/v1/lessons/schema.json"


def _text(least: int, most: int, pattern: str = f.LINE_PATTERN) -> dict[str, Any]:
    return {"type": "string", "minLength": least, "maxLength": most, "pattern": pattern}


def _index(most: int = f.MAX_INDEX) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": most}


def _object(keys: dict[str, bool], properties: dict[str, Any]) -> dict[str, Any]:
    assert set(properties) == set(keys), "every key of the format is in the schema"
    return {
        "type": "object",
        "properties": properties,
        "required": [k for k, required in keys.items() if required],
        "additionalProperties": False,
    }


TARGETS: dict[str, dict[str, Any]] = {
    "prompt": _text(1, f.MAX_PROMPT) | {"description": "The question, plain text."},
    "head": _index() | {"description": "The head asked about, from 1 (default 1)."},
    "row": _index() | {"description": "A query row of the state, from 1 like the page."},
    "col": _index() | {"description": "A column of the stage (a key for grids), from 1."},
    "stage": {"enum": list(kinds.STAGES)},
    "tolerance": {"type": "number", "exclusiveMinimum": 0, "maximum": kinds.MAX_TOLERANCE},
    "which": {"enum": list(kinds.WHICH)},
    "quantity": {"enum": list(kinds.QUANTITIES)},
    "change": _text(0, f.MAX_QUERY) | {"description": "The changed main-page query."},
    "choices": {
        "type": "array", "minItems": kinds.CHOICES_RANGE[0], "maxItems": kinds.CHOICES_RANGE[1],
        "uniqueItems": True, "items": _text(1, kinds.MAX_CHOICE, f.CHOICE_PATTERN),
        "description": "The teacher's choices, plain text, in the order shown.",
    },
    "right": _index(kinds.CHOICES_RANGE[1]) | {
        "description": "The right choice, from 1 (at most the number of choices)."},
    "why": _text(0, kinds.MAX_WHY) | {"description": "Shown with the answer, plain text."},
}  # fmt: skip


def question_schema(kind: str) -> dict[str, Any]:
    keys = kinds.KINDS[kind].all_keys
    props = {"kind": {"const": kind}} | {k: TARGETS[k] for k in keys if k != "kind"}
    out = _object(keys, props)
    for key, (other, value) in kinds.KINDS[kind].only_when.items():  # one such key a kind
        out["if"] = {"properties": {other: {"const": value}}}
        out["then"] = {"required": [key]}
        out["else"] = {"not": {"required": [key]}}
    return out


def lesson_schema() -> dict[str, Any]:
    """The JSON Schema of a version-1 lesson."""
    main = _object(f.MAIN_STATE_KEYS, {
        "page": {"const": "main"},
        "query": _text(0, f.MAX_QUERY) | {"description": "What follows ? on the main page: "
                                          f"the keys {', '.join(f.MAIN_QUERY_KEYS)} (with "
                                          "model, text and layer, head is the model's head, "
                                          "counted from 1, as in /?model=…&layer=…&head=…)."},
        "figures": {"type": "array", "minItems": 1, "maxItems": f.MAX_FIGURES,
                    "uniqueItems": True, "items": _index(max(ALL_FIGURES))},
    })  # fmt: skip
    lab = _object(f.LAB_STATE_KEYS, {
        "page": {"const": "lab"},
        "lab": _text(1, 40) | {"description": "A lab id, as in /labs/{id}."},
        "section": _text(1, 40) | {"description": "One of the lab's section (figure) ids."},
        "query": _text(0, f.MAX_QUERY) | {"description": "That section's controls."},
    })  # fmt: skip
    question = {"oneOf": [question_schema(kind) for kind in kinds.KIND_KEYS]}
    step = _object(f.STEP_KEYS, {
        "title": _text(1, f.MAX_TITLE),
        "text": _text(0, f.MAX_TEXT, f.TEXT_PATTERN) | {
            "description": "Plain text (never markup); may use the notation's ASCII forms."},
        "state": {"oneOf": [main, lab]},
        "question": {"oneOf": [question, {"type": "null"}]},
    })  # fmt: skip

    # Each page asks only its kinds (a lab section: those that read no main-page stage).
    def asked_on(page: str) -> dict[str, Any]:
        names = [name for name, kind in kinds.KINDS.items() if page in kind.states]
        only = {"properties": {"kind": {"enum": names}}}
        return {"properties": {"question": {"anyOf": [{"type": "null"}, only]}}}

    step["if"] = {"properties": {"state": {"properties": {"page": {"const": "lab"}}}}}
    step["then"] = asked_on("lab")
    step["else"] = asked_on("main")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Attention Lab lesson",
        "description": "A lesson: ordered steps, each a state of the product, a short text "
        "and optionally a question whose answer the product computes. At most "
        f"{f.MAX_LESSON_BYTES:,} bytes of UTF-8 JSON.",
        **_object(f.LESSON_KEYS, {
            "version": {"const": f.VERSION},
            "id": {"type": "string", "pattern": f.ID_PATTERN},
            "title": _text(1, f.MAX_TITLE),
            "summary": _text(0, f.MAX_SUMMARY),
            "steps": {"type": "array", "minItems": 1, "maxItems": f.MAX_STEPS, "items": step},
        }),
    }  # fmt: skip
