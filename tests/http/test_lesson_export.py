"""POST /api/v1/lessons/export: offline HTML and SCORM 1.2 / 2004 packages of a lesson, the
attachment's name from the title, the refusals naming `format`, `mastery`, the body or the
lesson's field, and the price (a lesson over the budget is refused before any work)."""

from __future__ import annotations

import io
import zipfile
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from fastapi.testclient import TestClient

from app.lessons.builtin import builtin_json
from tests.http.api_helpers import MakeClient

URL = "/api/v1/lessons/export"


def why_scale() -> dict[str, Any]:
    lesson = builtin_json("why-scale")
    assert lesson is not None
    return lesson


def unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_html_is_one_offline_file(client: TestClient) -> None:
    answer = client.post(URL, json=why_scale())
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert answer.headers["content-disposition"] == 'attachment; filename="why-divide-by-d-k.html"'
    html = answer.text
    assert html.startswith("<!doctype html>")
    assert "attention-lesson:progress" in html  # the player's events, for SCORM and embeds
    assert "data-scorm-version" not in html  # the adapter only goes into the packages
    assert 'src="/static' not in html
    assert '<link rel="stylesheet" href' not in html


@pytest.mark.parametrize(("fmt", "namespace", "version"), [
    ("scorm12", "http://www.imsproject.org/xsd/imscp_rootv1p1p2", "1.2"),
    ("scorm2004", "http://www.imsglobal.org/xsd/imscp_v1p1", "2004 4th Edition"),
])  # fmt: skip
def test_scorm_packages(client: TestClient, fmt: str, namespace: str, version: str) -> None:
    answer = client.post(f"{URL}?format={fmt}&mastery=70", json=why_scale())
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    name = f"why-divide-by-d-k-{fmt}.zip"
    assert answer.headers["content-disposition"] == f'attachment; filename="{name}"'
    files = unzip(answer.content)
    assert sorted(files) == ["imsmanifest.xml", "index.html"]
    root = ET.fromstring(files["imsmanifest.xml"])
    assert root.tag == f"{{{namespace}}}manifest"
    assert root.findtext(f"{{{namespace}}}metadata/{{{namespace}}}schemaversion") == version
    sco = files["index.html"].decode()
    short = "2004" if fmt == "scorm2004" else "1.2"
    assert f'<script data-scorm-version="{short}" data-mastery-score="70">' in sco
    assert sco.index("data-scorm-version") < sco.index("</head>")


def test_same_lesson_same_package(client: TestClient) -> None:
    first = client.post(f"{URL}?format=scorm12", json=why_scale()).content
    assert client.post(f"{URL}?format=scorm12", json=why_scale()).content == first


def test_a_title_without_letters_names_the_file_lesson(client: TestClient) -> None:
    lesson = {**why_scale(), "title": "注意"}
    answer = client.post(URL, json=lesson)
    assert answer.headers["content-disposition"] == 'attachment; filename="lesson.html"'


def field_of(answer: Any) -> str:
    return str(answer.json()["detail"][0]["field"])


@pytest.mark.parametrize(("query", "field"), [
    ("?format=pdf", "format"),
    ("?format=scorm12&mastery=101", "mastery"),
    ("?format=scorm12&mastery=eighty", "mastery"),
])  # fmt: skip
def test_bad_query_is_a_422_naming_it(client: TestClient, query: str, field: str) -> None:
    answer = client.post(URL + query, json=why_scale())
    assert answer.status_code == 422
    assert field_of(answer) == field


def test_bad_lesson_is_a_4xx_naming_its_field(client: TestClient) -> None:
    lesson = why_scale()
    lesson["steps"][1]["question"] = {"kind": "attends_most", "prompt": "?", "row": 0}
    answer = client.post(URL, json=lesson)
    assert answer.status_code == 422
    assert field_of(answer) == "steps[1].question.row"
    answer = client.post(URL, json={**why_scale(), "colour": "red"})
    assert (answer.status_code, field_of(answer)) == (422, "colour")
    bad_json = client.post(URL, content=b"{", headers={"content-type": "application/json"})
    assert (bad_json.status_code, field_of(bad_json)) == (422, "body")
    huge = b'{"title": "' + b"x" * 70_000 + b'"}'
    too_big = client.post(URL, content=huge, headers={"content-type": "application/json"})
    assert (too_big.status_code, field_of(too_big)) == (413, "body")


def test_hostile_text_stays_text(client: TestClient) -> None:
    lesson = why_scale()
    lesson["title"] = "</title><script>alert(1)</script>"
    lesson["steps"][0]["text"] = "<img src=x onerror=alert(1)>"
    html = client.post(URL, json=lesson).text
    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html
    manifest = unzip(client.post(f"{URL}?format=scorm2004", json=lesson).content)
    assert b"<script>" not in manifest["imsmanifest.xml"]


def test_over_the_budget_is_refused_naming_steps(make_client: MakeClient) -> None:
    with make_client(max_cells=2_000) as small:
        answer = small.post(URL, json=why_scale())
    assert answer.status_code in (413, 422)
    assert field_of(answer) == "steps"


def test_other_methods_are_a_405_allowing_post_only(client: TestClient) -> None:
    answer = client.request("PATCH", URL)
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"  # export is not a lesson id (GET /lessons/{id})
