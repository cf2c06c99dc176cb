"""A lab section as a lesson's offline document needs it: ``lab_figure(settings)`` is the
builder ``app.export.lesson_document.lesson_html`` takes (export may not import ``http``,
where lab sections are checked, priced and built: ``app.http.lab_answer.Ask``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.http.lab_answer import Ask
from app.http.lab_export import lab_named
from app.settings import Settings


def lab_figure(settings: Settings) -> Callable[[str, str, Mapping[str, str], str], dict[str, Any]]:
    """(lab id, section, the section's query, theme) -> the section's figure, as the lab
    API answers it (checked and priced first: ``ControlError`` naming the key)."""

    def build(lab_id: str, section: str, params: Mapping[str, str], theme: str) -> dict[str, Any]:
        query = {**params, "figures": section, "theme": theme}
        ask = Ask(lab_named(lab_id), None, query=query, settings=settings)
        ask.price()
        figure: dict[str, Any] = ask.answer()["figures"][section]
        return figure

    return build
