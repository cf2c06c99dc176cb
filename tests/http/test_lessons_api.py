"""The lesson API: the built-ins, the schema, the computed answers; every refusal a 4xx
in the one error shape naming the field; the answers priced before any work."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from api_helpers import assert_error, strict_json
from fastapi.testclient import TestClient

ANSWERS = "/api/v1/lessons/answers"


def one_step(question: dict[str, Any], query: str = "preset=i-love-llms") -> dict[str, Any]:
    return {
        "version": 1,
        "title": "One step",
        "steps": [{
            "title": "The weights",
            "text": "<script>alert(1)</script> stays text.",
            "state": {"page": "main", "query": query, "figures": [6, 7]},
            "question": {"prompt": "Predict.", **question},
        }],
    }  # fmt: skip


def test_the_list_names_every_builtin_with_its_counts(client: TestClient) -> None:
    r = client.get("/api/v1/lessons")
    assert r.status_code == 200
    lessons = strict_json(r.text)["lessons"]
    ids = ["attention-by-hand", "why-scale", "masks-and-order", "attention-today"]
    assert [x["id"] for x in lessons] == ids
    for x in lessons:
        assert set(x) == {"id", "title", "summary", "steps", "questions"}
        one = client.get(f"/api/v1/lessons/{x['id']}").json()
        assert one["id"] == x["id"]
        assert one["version"] == 1
        assert len(one["steps"]) == x["steps"]
        assert sum(s.get("question") is not None for s in one["steps"]) == x["questions"]


def test_an_unknown_lesson_is_a_404_listing_the_ids(client: TestClient) -> None:
    r = client.get("/api/v1/lessons/nope")
    detail = assert_error(r, "lesson_id", 404)
    assert "attention-by-hand, why-scale, masks-and-order, attention-today" in detail[0]["msg"]


def test_the_schema_is_published(client: TestClient) -> None:
    r = client.get("/api/v1/lessons/schema.json")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/schema+json"
    schema = r.json()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "http://testserver/api/v1/lessons/schema.json"
    assert schema["required"] == ["version", "title", "steps"]


def test_a_builtin_posted_back_gets_every_answer(client: TestClient) -> None:
    lesson = client.get("/api/v1/lessons/attention-by-hand").json()
    r = client.post(ANSWERS, json=lesson)
    assert r.status_code == 200, r.text
    steps = strict_json(r.text)["steps"]
    assert len(steps) == len(lesson["steps"])
    for s, a in zip(lesson["steps"], steps, strict=True):
        assert (a is None) == (s.get("question") is None)
    weights = steps[5]
    assert weights["kind"] == "attends_most"
    assert weights["accept"] == {"choice": "k2"}


def test_every_kind_answers_through_the_api(client: TestClient) -> None:
    r = client.post(ANSWERS, json=one_step({"kind": "cell_value", "stage": "weights",
                                             "row": 2, "col": 2}))  # fmt: skip
    a = r.json()["steps"][0]
    assert a["answer"] == "0.63"
    assert a["accept"]["min"] < 0.6285 < a["accept"]["max"]
    assert a["misconception"]["answer"] == "0.84"
    r = client.post(ANSWERS, json=one_step({"kind": "click_cell", "stage": "weights",
                                             "which": "max"}))  # fmt: skip
    assert r.json()["steps"][0]["accept"] == {"cells": [[2, 2], [3, 3]]}
    r = client.post(ANSWERS, json=one_step({"kind": "order", "row": 3}))
    assert r.json()["steps"][0]["accept"] == {"sequence": ["k3", "k1", "k2"]}
    r = client.post(ANSWERS, json=one_step({"kind": "direction", "quantity": "max_weight",
                                             "row": 2, "change": "preset=causal"}))  # fmt: skip
    assert r.json()["steps"][0]["accept"] == {"choice": "up"}


def test_refusals_name_the_field(client: TestClient) -> None:
    bad_row = one_step({"kind": "attends_most", "row": 7})
    detail = assert_error(client.post(ANSWERS, json=bad_row), "steps[0].question.row")
    assert "at most 3" in detail[0]["msg"]
    unknown = one_step({"kind": "attends_most", "row": 2, "colour": "red"})
    assert_error(client.post(ANSWERS, json=unknown), "steps[0].question.colour")
    bad_query = one_step({"kind": "attends_most", "row": 2}, "preset=i-love-llms&scale=0")
    detail = assert_error(client.post(ANSWERS, json=bad_query), "steps[0].state.query")
    assert "unknown parameter 'scale'" in detail[0]["msg"]
    assert_error(client.post(ANSWERS, json=[1, 2]), "body")
    r = client.post(ANSWERS, content=b"{", headers={"content-type": "application/json"})
    assert_error(r, "body")


def test_a_lesson_over_64_kib_is_refused(client: TestClient) -> None:
    lesson = one_step({"kind": "attends_most", "row": 2})
    lesson["steps"] = lesson["steps"] * 40
    for s in lesson["steps"]:
        s["text"] = "x" * 2000
    r = client.post(
        ANSWERS, content=json.dumps(lesson), headers={"content-type": "application/json"}
    )
    detail = assert_error(r, "body", 413)
    assert "65,536 bytes" in detail[0]["msg"]


def test_the_answers_are_priced_and_refused_over_the_budget(
    make_client: Callable[..., TestClient],
) -> None:
    lesson = one_step({"kind": "attends_most", "row": 2})
    lesson["steps"] = lesson["steps"] * 40  # 454 cells each: the states priced as pages
    with make_client(max_cells=10_000) as small:
        gate = small.app.state.gate  # type: ignore[attr-defined]
        before = gate.priced
        detail = assert_error(small.post(ANSWERS, json=lesson), "steps")
        assert "reduce the steps or their states' sizes (costliest: steps[0]" in detail[0]["msg"]
        assert gate.priced == before  # refused before the pipeline admitted anything
        lesson["steps"] = lesson["steps"][:1]
        assert small.post(ANSWERS, json=lesson).status_code == 200
        assert gate.priced == before + 1


def test_the_post_routes_beside_a_lesson_id_are_not_lesson_ids(client: TestClient) -> None:
    r = client.get(ANSWERS)
    assert r.status_code == 405
    assert r.headers["allow"] == "POST"
    assert client.get("/api/v1/lessons/export").status_code in (404, 405)
    assert_error(client.get("/api/v1/lessons/Answers"), "lesson_id", 404)
