"""The built-in lessons: one JSON file each beside this module, in ``ORDER``, read and
validated by the same parser as any lesson (``tests/unit/test_lesson_builtins.py`` also
plans every state and computes every answer)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from app.lessons.format import Lesson, parse_lesson

HERE = Path(__file__).resolve().parent
ORDER = ("attention-by-hand", "why-scale", "masks-and-order", "attention-today")


@cache
def _load(lesson_id: str) -> tuple[dict[str, Any], Lesson]:
    raw = json.loads((HERE / f"{lesson_id}.json").read_text(encoding="utf-8"))
    lesson = parse_lesson(raw)
    assert lesson.id == lesson_id, f"{lesson_id}.json holds the id {lesson.id!r}"
    return raw, lesson


def builtin_ids() -> tuple[str, ...]:
    return ORDER


def get_builtin(lesson_id: str) -> Lesson | None:
    """The built-in lesson ``lesson_id``, or None."""
    return _load(lesson_id)[1] if lesson_id in ORDER else None


def builtin_json(lesson_id: str) -> dict[str, Any] | None:
    """The built-in lesson's JSON as written in its file (a fresh copy), or None."""
    return json.loads(json.dumps(_load(lesson_id)[0])) if lesson_id in ORDER else None


def summaries() -> list[dict[str, Any]]:
    """id, title, summary and the counts of steps and questions of every built-in."""
    out = []
    for lesson_id in ORDER:
        lesson = _load(lesson_id)[1]
        out.append({"id": lesson_id, "title": lesson.title, "summary": lesson.summary or "",
                    "steps": len(lesson.steps), "questions": lesson.questions})  # fmt: skip
    return out
