"""A lab section's own question through HTTP: POST /api/v1/lessons/answers has the lab
build the section and answers with its computed question (``asks``, with the section's
numbers), a section that asks nothing is a 422 naming the question's kind, and the
offline file and the SCORM package carry the answer."""

from __future__ import annotations

from typing import Any

from api_helpers import assert_error, strict_json
from fastapi.testclient import TestClient

ANSWERS = "/api/v1/lessons/answers"


def asking(section: str = "alignment", lab: str = "one-query", query: str = "") -> dict[str, Any]:
    return {"version": 1, "title": "The lab asks", "steps": [{
        "title": "A2", "text": "",
        "state": {"page": "lab", "lab": lab, "section": section, "query": query},
        "question": {"kind": "section_question", "prompt": "Decide first."}}]}  # fmt: skip


def test_the_lab_answers_its_own_question(client: TestClient) -> None:
    r = client.post(ANSWERS, json=asking(query="alignment.q=0,-2"))
    assert r.status_code == 200, r.text
    [answer] = strict_json(r.text)["steps"]
    assert answer["kind"] == "section_question"
    assert answer["asks"].startswith("With q = (0, −2)")
    # q = (0, −2): the scores are 0, −2 and 0, so k_1 and k_3 tie for the largest.
    assert answer["accept"] == {"choice": "tie"}


def test_a_section_that_asks_nothing_is_a_422(client: TestClient) -> None:
    detail = assert_error(client.post(ANSWERS, json=asking("empty-row", "masks")),
                          "steps[0].question.kind")  # fmt: skip
    assert "one-query/alignment" in detail[0]["msg"]


def test_a_bad_control_is_a_422_naming_the_query(client: TestClient) -> None:
    assert_error(client.post(ANSWERS, json=asking(query="alignment.q=9,9,9")),
                 "steps[0].state.query")  # fmt: skip


def test_the_exports_carry_the_labs_answer(client: TestClient) -> None:
    for fmt in ("html", "scorm12"):
        r = client.post(
            f"/api/v1/lessons/export?format={fmt}", json=asking(query="alignment.q=1,0")
        )
        assert r.status_code == 200, r.text[:300]
    html = client.post("/api/v1/lessons/export", json=asking(query="alignment.q=1,0")).text
    assert '"accept":{"choice":"k_1"}' in html
    assert '"asks":"With q = (1, 0)' in html
