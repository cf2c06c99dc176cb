"""Lessons in other sites: the lesson embeds (/embed/lesson/{id}, /embed/lesson?l=…: the
lesson page's player in an embed frame), oEmbed for lesson URLs, the refusals naming the
field, and the "Use in a course" panel on the lesson pages."""

from __future__ import annotations

import json
import re
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


def lesson_state(html: str) -> Any:
    found = re.search(
        r'<script type="application/json" id="lesson-state">(.*?)</script>', html, re.S
    )
    assert found, "no #lesson-state"
    return json.loads(found.group(1))


def embed_data(html: str) -> Any:
    found = re.search(r'<script type="application/json" id="embed-data">(.*?)</script>', html, re.S)
    assert found, "no #embed-data"
    return json.loads(found.group(1))


def test_embed_of_a_builtin_is_the_player_in_an_embed_frame(client: TestClient) -> None:
    answer = client.get("/embed/lesson/why-scale?height=700")
    assert answer.status_code == 200
    html = answer.text
    assert 'class="embed"' in html  # embed_base's body: no site header or navigation
    assert "site-header" not in html
    assert 'id="lesson-player"' in html
    assert "js/lessons/page.js" in html
    assert "js/lesson_embed.js" in html
    state = lesson_state(html)
    page = lesson_state(client.get("/lessons/why-scale").text)
    assert state == page  # the very player of /lessons/why-scale
    assert embed_data(html) == {"lesson": "why-scale", "height": 700}
    assert 'href="/lessons/why-scale" target="_blank"' in html  # "Open in Attention Lab"
    assert re.search(r"<script>(?!</script>)", html) is None  # no inline script (CSP)
    assert 'rel="alternate" type="application/json+oembed"' in html


def test_embed_of_a_link_keeps_its_lesson_and_mode(client: TestClient) -> None:
    lesson = custom_lesson()
    link = encode_lesson(lesson)
    html = client.get(f"/embed/lesson?l={link}&mode=present").text
    state = lesson_state(html)
    assert state["lesson"]["title"] == lesson["title"]
    assert state["lesson_id"] is None
    assert state["mode"] == "present"
    assert embed_data(html) == {"lesson": None, "height": None}
    assert f"/lessons/play?l={link}&amp;mode=present" in html
    assert "<b>" not in html.replace("<body", "")  # the hostile title is text


@pytest.mark.parametrize(("url", "status", "field"), [
    ("/embed/lesson/no-such-lesson", 404, "id"),
    ("/embed/lesson", 400, "l"),
    ("/embed/lesson?l=%%%", 400, "l"),
    ("/embed/lesson/why-scale?mode=loud", 400, "mode"),
    ("/embed/lesson/why-scale?height=5", 400, "height"),
])  # fmt: skip
def test_embed_refusals_name_the_field(
    client: TestClient, url: str, status: int, field: str
) -> None:
    answer = client.get(url)
    assert answer.status_code == status
    assert f"<code>{field}</code>" in answer.text
    if status == 404:
        assert "No such lesson" in answer.text


def test_embed_of_a_bad_lesson_is_a_422_naming_its_field(client: TestClient) -> None:
    lesson = custom_lesson()
    lesson["steps"][1]["question"] = {"kind": "attends_most", "prompt": "?", "row": 0}
    answer = client.get(f"/embed/lesson?l={encode_lesson(lesson)}")
    assert answer.status_code == 422
    assert "<code>steps[1].question.row</code>" in answer.text


def test_lesson_pages_carry_the_course_panel(client: TestClient) -> None:
    html = client.get("/lessons/why-scale").text
    panel = html[html.index("data-course-panel") :]
    assert 'href="http://testserver/lessons/why-scale"' in panel
    assert "http://testserver/embed/lesson/why-scale" in panel
    for key in ("html", "mystmd", "myst", "sphinx", "quarto"):
        assert f'data-snippet="{key}"' in panel
    for fmt in ("html", "scorm12", "scorm2004"):
        assert f'data-export="{fmt}"' in panel
    link = encode_lesson(custom_lesson())
    played = client.get(f"/lessons/play?l={link}").text
    assert f"http://testserver/embed/lesson?l={link}" in played
    assert f'href="http://testserver/lessons/play?l={link}"' in played


@pytest.mark.parametrize(
    ("step", "embedded"),
    [("6", "?step=6"), ("8", "?step=8"), ("1", "?step=1"),  # the steps of why-scale: 1-8
     ("9", ""), ("0", ""), ("-1", ""), ("06", ""), ("2.5", ""), ("abc", ""), ("99999", "")],
)  # fmt: skip
def test_oembed_of_a_lesson_embeds_the_step_its_url_names(
    client: TestClient, step: str, embedded: str
) -> None:
    """A lesson address names its step (the player's ?step=N): oEmbed embeds that step, and
    leaves out one the lesson does not have, as the player ignores it."""
    for url in (f"{SITE}/lessons/why-scale?step={step}#player",
                f"{SITE}/embed/lesson/why-scale?mode=present&step={step}"):  # fmt: skip
        data = oembed(client, url).json()
        assert f'src="{SITE}/embed/lesson/why-scale{embedded}"' in data["html"], url
    link = encode_lesson(custom_lesson())
    data = oembed(client, f"{SITE}/lessons/play?l={link}&step={step}").json()
    amp = embedded.replace("?", "&amp;")
    assert f'src="{SITE}/embed/lesson?l={link}{amp}"' in data["html"]


@pytest.mark.parametrize("step", ["6", "0", "-1", "abc", "1e309", "9" * 400, "NaN", ""])
@pytest.mark.parametrize("path", ["/lessons/why-scale", "/embed/lesson/why-scale"])
def test_a_step_in_the_address_never_breaks_the_page(
    client: TestClient, path: str, step: str
) -> None:
    """step= is the player's (read in the browser): the server serves the lesson whatever
    it says, and its panel still offers each snippet with where its step goes."""
    answer = client.get(f"{path}?step={quote(step)}")
    assert answer.status_code == 200
    if path.startswith("/lessons/"):
        assert answer.text.count('data-step-join="?step="') == 5
        assert 'data-role="course-step"' in answer.text
    else:
        assert "data-step-link" in answer.text  # "Open in Attention Lab" follows the step
