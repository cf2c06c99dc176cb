"""Lessons in other sites: oEmbed for lesson URLs (a built-in's page or embed, any lesson's
l= link), the refusals naming ``url``, and the "Use in a course" panel's context."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.lessons.builtin import builtin_json
from app.lessons.link import encode_lesson

SITE = "http://testserver"


def oembed(client: TestClient, url: str, **extra: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in {"url": quote(url, safe=""), **extra}.items())
    return client.get(f"/oembed?{query}")


def custom_lesson() -> dict[str, Any]:
    lesson = builtin_json("why-scale")
    assert lesson is not None
    lesson.pop("id")
    lesson["title"] = 'My <b>"lesson"</b>'
    return lesson


@pytest.mark.parametrize(
    "url", [f"{SITE}/lessons/why-scale", f"{SITE}/embed/lesson/why-scale?mode=present"]
)
def test_oembed_of_a_builtin_lesson(client: TestClient, url: str) -> None:
    answer = oembed(client, url)
    assert answer.status_code == 200
    data = answer.json()
    assert data["type"] == "rich"
    assert data["version"] == "1.0"
    assert data["title"] == "Attention Lab lesson: Why divide by √d_k"
    assert f'src="{SITE}/embed/lesson/why-scale"' in data["html"]
    assert (data["width"], data["height"]) == (800, 900)


@pytest.mark.parametrize("path", ["/lessons/play", "/embed/lesson"])
def test_oembed_of_a_lesson_link_keeps_its_lesson(client: TestClient, path: str) -> None:
    link = encode_lesson(custom_lesson())
    data = oembed(client, f"{SITE}{path}?l={link}", maxwidth="500", maxheight="600").json()
    assert f'src="{SITE}/embed/lesson?l={link}"' in data["html"]
    assert data["title"] == 'Attention Lab lesson: My <b>"lesson"</b>'
    assert "<b>" not in data["html"]  # the title is escaped in the iframe
    assert (data["width"], data["height"]) == (500, 600)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (f"{SITE}/lessons/no-such-lesson", "no lesson 'no-such-lesson'"),
        (f"{SITE}/embed/lesson/no-such-lesson", "attention-by-hand"),
        (f"{SITE}/lessons/play", "needs its lesson as l="),
        (f"{SITE}/lessons/play?l=%%%", "the URL's lesson: l:"),
        ("http://elsewhere.example/lessons/why-scale", "only URLs of this site"),
    ],
)
def test_oembed_refuses_naming_url(client: TestClient, url: str, says: str) -> None:
    answer = oembed(client, url)
    assert answer.status_code == 404
    detail = answer.json()["detail"][0]
    assert detail["field"] == "url"
    assert says in detail["msg"]


def test_oembed_of_a_lesson_with_a_bad_step_names_the_field(client: TestClient) -> None:
    lesson = custom_lesson()
    lesson["steps"][1]["question"] = {"kind": "attends_most", "prompt": "?", "row": 0}
    detail = oembed(client, f"{SITE}/lessons/play?l={encode_lesson(lesson)}").json()["detail"][0]
    assert "steps[1].question.row" in detail["msg"]
