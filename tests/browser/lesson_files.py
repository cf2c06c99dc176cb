"""The offline lesson file as a learner opens it: written from a built-in lesson to a
temporary folder and opened from disk, with every request the page makes recorded (it
must make none but file:// and inline data: ones). Shared by the lesson browser tests."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

from app.export.lesson_document import lesson_html
from app.http.lesson_labs import lab_figure
from app.lessons.builtin import get_builtin
from app.lessons.format import Lesson
from app.settings import Settings


def open_offline(page: Page, folder: Path, lesson_id: str) -> tuple[Lesson, list[str]]:
    """Write built-in ``lesson_id`` as its offline HTML file in ``folder``, open it in
    ``page`` and return the lesson and the list the page's requests are appended to."""
    settings = Settings()
    lesson = get_builtin(lesson_id)
    assert lesson is not None, lesson_id
    path = folder / f"{lesson_id}.html"
    path.write_text(lesson_html(lesson, settings=settings, lab_figure=lab_figure(settings)))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    return lesson, requests
