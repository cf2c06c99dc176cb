"""A teacher's own multiple-choice question through HTTP: POST /api/v1/lessons/answers
answers it (on a main-page step and a lab section), refuses every bad field with a 422
naming it (hostile values too, never a 500), takes the largest lesson the body limit
admits and 30 clients at once; the offline file and both SCORM packages carry it, the
adapter reporting it as a cmi.interactions "choice"; the lesson page plays it."""

from __future__ import annotations

import asyncio
import copy
import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

import httpx2 as httpx
import pytest
from api_helpers import MakeClient, assert_error, strict_json
from fastapi.testclient import TestClient

from app.lessons.format import MAX_LESSON_BYTES, parse_lesson
from app.lessons.link import encode_lesson

ANSWERS = "/api/v1/lessons/answers"
EXPORT = "/api/v1/lessons/export"
OWN = {"kind": "multiple_choice", "prompt": "Which pattern does this section show?",
       "choices": ["The last row has no key", "Every row sums to 2"], "right": 1,
       "why": "The mask blocks every key of that row."}  # fmt: skip


def lesson(question: dict[str, Any] | None = None, *, lab: bool = False) -> dict[str, Any]:
    state = ({"page": "lab", "lab": "masks", "section": "empty-row"} if lab else
             {"page": "main", "query": "preset=i-love-llms", "figures": [6]})  # fmt: skip
    return {"version": 1, "title": "Your own question", "steps": [
        {"title": "Ask", "text": "", "state": state, "question": question or OWN}]}  # fmt: skip


@pytest.mark.parametrize("lab", [False, True])
def test_the_answers_route_answers_it(client: TestClient, lab: bool) -> None:
    r = client.post(ANSWERS, json=lesson(lab=lab))
    assert r.status_code == 200, r.text
    [answer] = strict_json(r.text)["steps"]
    assert answer["kind"] == "multiple_choice"
    assert answer["accept"] == {"choice": "c1"}
    assert answer["answer"] == "The last row has no key"
    assert answer["why"] == "The mask blocks every key of that row."
    assert [c["id"] for c in answer["choices"]] == ["c1", "c2"]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"choices": ["Yes", ""]}, "choices[1]"),
        ({"choices": ["Yes", "Yes"]}, "choices[1]"),
        ({"choices": ["Yes", "x" * 121]}, "choices[1]"),
        ({"choices": ["Yes"]}, "choices"),
        ({"choices": None}, "choices"),
        ({"choices": [None, "No"]}, "choices[0]"),
        ({"choices": [["nested"], "No"]}, "choices[0]"),
        ({"right": 3}, "right"),
        ({"right": -1}, "right"),
        ({"right": 2**70}, "right"),
        ({"right": 1e308}, "right"),
        ({"right": 1.5}, "right"),
        ({"right": "1"}, "right"),
        ({"right": None}, "right"),
        ({"why": "x" * 601}, "why"),
        ({"why": 7}, "why"),
        ({"prompt": "x" * 301}, "prompt"),
        ({"head": 1}, "head"),
    ],
)
def test_a_bad_field_is_a_422_naming_it(
    client: TestClient, changes: dict[str, Any], field: str
) -> None:
    question = copy.deepcopy(OWN) | changes
    assert_error(client.post(ANSWERS, json=lesson(question)), f"steps[0].question.{field}")


def test_non_finite_numbers_are_refused_not_a_500(client: TestClient) -> None:
    for raw in ("NaN", "Infinity", "-Infinity"):
        body = json.dumps(lesson()).replace('"right": 1', f'"right": {raw}')
        r = client.post(ANSWERS, content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, (raw, r.status_code)


def test_a_computed_kind_on_a_lab_section_is_a_422(client: TestClient) -> None:
    asked = lesson({"kind": "attends_most", "prompt": "?", "row": 1}, lab=True)
    detail = assert_error(client.post(ANSWERS, json=asked), "steps[0].question")
    assert "a lab section may ask multiple_choice" in detail[0]["msg"]


def largest() -> dict[str, Any]:
    """As many steps of six 120-character choices as the 64 KiB body limit admits."""
    question = {"kind": "multiple_choice", "prompt": "p" * 300, "right": 6, "why": "w" * 600}
    out: dict[str, Any] = {"version": 1, "title": "t" * 120, "steps": []}
    while len(out["steps"]) < 40:
        n = len(out["steps"])
        choices = [f"{n}-{c}-" + "c" * 110 for c in range(6)]
        state = {"page": "lab", "lab": "masks", "section": "empty-row"}
        out["steps"].append(
            {"title": "s", "state": state, "question": question | {"choices": choices}}
        )
        if len(json.dumps(out).encode()) > MAX_LESSON_BYTES:
            out["steps"].pop()
            break
    return out


def test_the_largest_admissible_lesson_is_answered(client: TestClient) -> None:
    body = largest()
    assert len(body["steps"]) >= 20
    r = client.post(ANSWERS, content=json.dumps(body), headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text[:300]
    answers = strict_json(r.text)["steps"]
    assert [a["accept"] for a in answers] == [{"choice": "c6"}] * len(body["steps"])


@pytest.mark.slow
def test_thirty_clients_at_once_all_get_the_answer(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    app = make_client().app

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            bodies = [lesson(OWN | {"right": 1 + n % 2}) for n in range(30)]
            return list(await asyncio.gather(*(c.post(ANSWERS, json=b) for b in bodies)))

    answers = run_async(run)
    assert [a.status_code for a in answers] == [200] * 30
    got = [a.json()["steps"][0]["accept"]["choice"] for a in answers]
    assert got == [f"c{1 + n % 2}" for n in range(30)]  # each client its own answer


def unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_offline_file_carries_it(client: TestClient) -> None:
    r = client.post(EXPORT, json=lesson(lab=True))
    assert r.status_code == 200, r.text[:300]
    html = r.text
    assert '"accept":{"choice":"c1"}' in html  # the answer, inlined for file://
    assert "The last row has no key" in html


@pytest.mark.parametrize("fmt", ["scorm12", "scorm2004"])
def test_scorm_reports_it_as_a_choice_interaction(client: TestClient, fmt: str) -> None:
    r = client.post(f"{EXPORT}?format={fmt}", json=lesson())
    assert r.status_code == 200, r.text[:300]
    sco = unzip(r.content)["index.html"].decode()
    assert '"accept":{"choice":"c1"}' in sco
    assert 'multiple_choice: "choice"' in sco  # the adapter's interaction type


def test_the_lesson_page_plays_it(client: TestClient) -> None:
    link = encode_lesson(parse_lesson(lesson(lab=True)))
    r = client.get(f"/lessons/play?l={link}")
    assert r.status_code == 200
    assert "Which pattern does this section show?" in r.text  # the lesson, inlined as JSON
