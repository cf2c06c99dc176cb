"""The built-in lessons as the pages link them (the main page, every lab, ``/lessons``):
``builtin_lessons()`` -> (id, title) pairs, in the order ``app.lessons.builtin`` lists them."""

from __future__ import annotations

from app.lessons.builtin import summaries


def builtin_lessons() -> list[tuple[str, str]]:
    return [(s["id"], s["title"]) for s in summaries()]
