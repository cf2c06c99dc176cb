"""The ``l=`` form of a lesson in a URL: the lesson JSON encoded exactly as ``s=`` encodes a
state (``app.inputs.link``: base64url of compact UTF-8 JSON), so one codec serves both
and the page's ``state.js`` encoder writes the same text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.inputs.errors import FieldError
from app.inputs.link import decode_body, encode_body
from app.lessons.format import MAX_LESSON_BYTES, Lesson, LessonError, lesson_json, parse_lesson

MAX_LINK_CHARS = 100_000  # the l= parameter


def encode_lesson(lesson: Lesson | Mapping[str, Any]) -> str:
    """The ``l=`` text of a lesson (a ``Lesson`` or its JSON, written as given)."""
    return encode_body(lesson_json(lesson) if isinstance(lesson, Lesson) else lesson)


def decode_lesson(text: str) -> Lesson:
    """The lesson an ``l=`` text holds, validated; ``LessonError`` naming ``l`` when the
    text is not a lesson's encoding, else the lesson field at fault."""
    if len(text) > MAX_LINK_CHARS:
        raise LessonError("l", f"the lesson link is longer than {MAX_LINK_CHARS:,} characters")
    if len(text) * 3 // 4 > MAX_LESSON_BYTES:  # base64: 4 characters hold 3 bytes
        raise LessonError("l", f"the lesson is larger than {MAX_LESSON_BYTES:,} bytes of JSON")
    try:
        raw = decode_body(text)
    except FieldError as exc:
        raise LessonError("l", exc.message.replace("state", "lesson")) from None
    return parse_lesson(raw)
