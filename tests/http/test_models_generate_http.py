"""POST /api/v1/models/{id}/generate: SmolLM2 adding tokens one at a time (real model,
nothing faked; skipped when it is not installed). What it predicts, that a seed repeats,
that each step's weights are the last row of recomputing the whole causal sequence, the
cache's bytes, the price, every refusal (422 naming the field, 404 for a model that is not
there) and thirty clients at once on one heavy slot."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx2 as httpx
import numpy as np
import pytest
from api_helpers import JSON, MakeClient
from fastapi.testclient import TestClient
from models_support import needs_smollm2

from app.api.models import ModelGenerateResponse
from app.api.models_api import shape_of
from app.inputs.model_text import MAX_TEXT_CHARS, ModelGenerate, generate_cost, plan_generate
from app.models import generation, registry, smollm
from app.settings import Settings

URL = "/api/v1/models/smollm2/generate"
PROMPT = "The capital of France is"


def model() -> smollm.SmolLM2:
    found = registry.get("smollm2")
    assert isinstance(found, smollm.SmolLM2)
    return found


def listed(client: TestClient) -> dict[str, Any]:
    return {m["id"]: m for m in client.get("/api/v1/models").json()["models"]}["smollm2"]


@pytest.mark.slow
@needs_smollm2
def test_greedy_one_step_completes_the_capital_of_france(client: TestClient) -> None:
    r = client.post(URL, json={"text": PROMPT, "steps": 1})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["tokens"] == ["The", " capital", " of", " France", " is"]
    assert out["text"] == " Paris"
    assert (out["greedy"], out["seed"]) == (True, None)
    (step,) = out["steps"]
    assert (step["token"], step["position"]) == (" Paris", 5)
    assert step["id"] == model().ids(" Paris")[0]
    weights = np.array(step["weights"])
    assert weights.shape == (30, 9, 6)  # every layer and head, over the 6 keys so far
    np.testing.assert_allclose(weights.sum(-1), 1, atol=1e-5)
    # The cache: 2 (k and v) × layers × kv_heads × d_k × 4 bytes (float32) a token.
    info = listed(client)
    per_token = 2 * info["layers"] * info["kv_heads"] * info["d_k"] * 4
    assert out["bytes_per_token"] == per_token == 46_080
    assert out["prompt_cache_bytes"] == 5 * per_token
    assert step["cache_bytes"] == 6 * per_token
    ModelGenerateResponse.model_validate(out)  # the documented shape
    same = client.post(URL, json={"text": PROMPT, "steps": 1.0, "seed": None})  # 1.0 is 1
    assert same.content == r.content


@pytest.mark.slow
@needs_smollm2
def test_an_integral_float_seed_is_the_same_seed(client: TestClient) -> None:
    body = {"text": "Hi", "steps": 1, "seed": 3}
    assert (
        client.post(URL, json=body).content == client.post(URL, json={**body, "seed": 3.0}).content
    )


@pytest.mark.slow
@needs_smollm2
def test_cached_steps_equal_recomputing_the_whole_causal_sequence(client: TestClient) -> None:
    out = client.post(URL, json={"text": PROMPT, "steps": 4}).json()
    ids = model().ids(PROMPT) + [s["id"] for s in out["steps"]]
    _, full = model().run(ids)  # no cache: all positions at once, causal mask
    for i, step in enumerate(out["steps"]):
        assert step["position"] == len(ids) - 4 + i
        assert step["cache_bytes"] == out["bytes_per_token"] * (step["position"] + 1)
        p = step["position"]
        recomputed = np.stack([w[:, p, : p + 1] for w in full["weights"]])
        # 6 decimals on the wire (≤ 5e-7) plus float32 rounding of a 1-row forward against
        # an n-row one through 30 layers (measured ≤ 2.7e-6).
        assert np.abs(np.array(step["weights"]) - recomputed).max() <= 4e-6
    last = out["steps"][-1]
    last_row = np.stack([w[:, -1, :] for w in full["weights"]])  # the full forward's last row
    assert np.abs(np.array(last["weights"]) - last_row).max() <= 4e-6
    assert out["text"] == model().bpe.decode(ids[5:])


@pytest.mark.slow  # a forward pass of SmolLM2 or more: seconds alone
@needs_smollm2
def test_a_seeded_sample_repeats_and_is_the_models_own(make_client: MakeClient) -> None:
    client = make_client(answer_cache_bytes=0)  # computed twice, not shared
    body = {"text": "Once upon a time", "steps": 3, "seed": 7}
    first, second = client.post(URL, json=body), client.post(URL, json=body)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    out = first.json()
    assert (out["greedy"], out["seed"]) == (False, 7)
    drawn = generation.generate(model(), body["text"], 3, seed=7)
    assert [s["id"] for s in out["steps"]] == [s.token for s in drawn]
    texts = {
        client.post(URL, json={**body, "steps": 2, "seed": s}).json()["text"] for s in (1, 2, 3)
    }
    assert len(texts) > 1  # the seed matters


@needs_smollm2
def test_the_price_grows_with_steps_and_bounds_the_answer(client: TestClient) -> None:
    shape = shape_of("smollm2")
    costs = [plan_generate(ModelGenerate(text=PROMPT, steps=s), shape).cost for s in (1, 2, 8)]
    assert costs[0].cells < costs[1].cells < costs[2].cells
    assert costs[0].response_bytes < costs[1].response_bytes < costs[2].response_bytes
    for steps in (1, 4):
        r = client.post(URL, json={"text": PROMPT, "steps": steps})
        priced = plan_generate(ModelGenerate(text=PROMPT, steps=steps), shape).cost
        assert len(r.content) <= priced.response_bytes
    # the cache at the end is counted: 2 × 30 × 3 × 64 numbers a position
    more = generate_cost(5, 1, shape).cells - generate_cost(4, 1, shape).cells
    assert more >= 2 * 30 * 3 * 64


def largest_text(steps: int) -> int:
    """The most characters the price admits with ``steps`` (the default budget)."""
    shape, budget = shape_of("smollm2"), Settings().max_cells
    fits = [
        c
        for c in range(1, MAX_TEXT_CHARS + 1)
        if plan_generate(ModelGenerate(text="x" * c, steps=steps), shape).cost.cells <= budget
    ]
    return max(fits)


@needs_smollm2
@pytest.mark.slow
def test_the_largest_admissible_body_runs_and_one_more_character_is_refused(
    client: TestClient,
) -> None:
    chars = largest_text(generation.MAX_STEPS)
    assert chars >= 40  # a sentence and 32 tokens fit
    text = ("The river runs past the old mill and " * 5)[:chars]
    r = client.post(URL, json={"text": text, "steps": generation.MAX_STEPS})
    assert r.status_code == 200, r.text[:300]
    assert len(r.json()["steps"]) == generation.MAX_STEPS
    r = client.post(URL, json={"text": text + "x", "steps": generation.MAX_STEPS})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "text"
    assert "reduce text or steps" in r.json()["detail"][0]["msg"]


HOSTILE = [
    ({"steps": 0}, "steps", "greater than or equal to 1"),
    ({"steps": -3}, "steps", "greater than or equal to 1"),
    ({"steps": 33}, "steps", "ask for 1 to 32 steps; got 33"),
    ({"steps": 10**30}, "steps", "ask for 1 to 32 steps"),
    ({"steps": 1.5}, "steps", "integer"),
    ({"steps": "3"}, "steps", "integer"),
    ({"steps": True}, "steps", "integer"),
    ({"steps": None}, "steps", "integer"),
    ({"steps": [1]}, "steps", "integer"),
    ({"seed": -1}, "seed", "greater than or equal to 0"),
    ({"seed": 2**64}, "seed", "less than or equal to"),
    ({"seed": 0.5}, "seed", "integer"),
    ({"seed": "7"}, "seed", "integer"),
    ({"seed": False}, "seed", "integer"),
    ({"text": ""}, "text", "at least 1 character"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "text", f"at most {MAX_TEXT_CHARS} characters"),
    ({"text": "word " * 100}, "text", "reduce text or steps"),  # priced over the budget
    ({"text": 3}, "text", "string"),
    ({"text": None}, "text", "string"),
    ({"temperature": 2}, "temperature", "unknown field"),
]


@pytest.mark.parametrize(("change", "field", "words"), HOSTILE, ids=lambda v: str(v)[:40])
def test_a_hostile_body_is_a_422_naming_the_field(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, change: dict, field: str, words: str
) -> None:
    monkeypatch.setattr(registry, "installed", lambda model_id: True)  # refused before loading
    r = client.post(URL, json={"text": "Hi", "steps": 2, **change})
    assert r.status_code == 422, r.text
    item = r.json()["detail"][0]
    assert item["field"] == field
    assert words in item["msg"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_a_422_naming_the_field(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, literal: str
) -> None:
    monkeypatch.setattr(registry, "installed", lambda model_id: True)
    for field in ("steps", "seed"):
        other = '"steps": 1, ' if field == "seed" else ""
        raw = f'{{"text": "Hi", {other}"{field}": {literal}}}'
        r = client.post(URL, content=raw, headers=JSON)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["field"] == field


@needs_smollm2
def test_steps_past_the_models_length_are_a_422_naming_steps(make_client: MakeClient) -> None:
    client = make_client(max_cells=50_000_000)  # the price would refuse the text first
    text = "1" * 120  # each digit is a token of its own: 120 tokens
    r = client.post(URL, json={"text": text, "steps": 10})
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["field"] == "steps"
    assert "the text is 120 tokens" in item["msg"]
    assert "at most 8 more" in item["msg"]


@pytest.mark.parametrize("model_id", ["minilm", "tiny-decoder"])
def test_a_model_that_does_not_generate_is_a_422_naming_model_id(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, model_id: str
) -> None:
    monkeypatch.setattr(registry, "installed", lambda model_id: True)
    r = client.post(f"/api/v1/models/{model_id}/generate", json={"text": "ab", "steps": 1})
    assert r.status_code == 422
    (item,) = r.json()["detail"]
    assert (item["field"], item["loc"]) == ("model_id", ["path", "model_id"])
    assert item["msg"].endswith("does not generate text; models that do: smollm2")


def test_an_unknown_or_uninstalled_model_is_a_404(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = client.post("/api/v1/models/gpt-9/generate", json={"text": "Hi", "steps": 1})
    assert r.status_code == 404
    assert r.json()["detail"][0]["type"] == "not_found"
    monkeypatch.setattr(registry, "installed", lambda model_id: False)
    r = client.post(URL, json={"text": "Hi", "steps": 1})
    assert r.status_code == 404
    assert r.json()["install"] == "attention-lab models install smollm2"
    assert r.json()["detail"][0]["type"] == "not_installed"


def _concurrently(
    run_async: Callable[..., Any], app: Any, bodies: list[dict[str, Any]]
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as c:
            return list(await asyncio.gather(*(c.post(URL, json=b) for b in bodies)))

    return run_async(run)


@pytest.mark.slow
@needs_smollm2
def test_thirty_clients_wait_for_one_heavy_slot(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    app = make_client(max_heavy=1, queue_seconds=60).app
    bodies = [{"text": "Hello", "steps": 1, "seed": i % 3} for i in range(30)]
    answers = _concurrently(run_async, app, bodies)
    assert [a.status_code for a in answers] == [200] * 30  # none refused, none crashed
    by_seed: dict[int, set[bytes]] = {}
    for body, answer in zip(bodies, answers, strict=True):
        by_seed.setdefault(body["seed"], set()).add(answer.content)
    assert all(len(contents) == 1 for contents in by_seed.values())  # identical work shared
    assert app.state.gate.peak == 1  # type: ignore[attr-defined]
    assert app.state.gate.running == 0  # type: ignore[attr-defined]


@pytest.mark.slow
@needs_smollm2
def test_thirty_distinct_clients_past_the_queue_get_503_with_retry_after(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    app = make_client(max_heavy=1, queue_seconds=0).app
    answers = _concurrently(
        run_async, app, [{"text": "Hi", "steps": 1, "seed": i} for i in range(30)]
    )
    codes = [a.status_code for a in answers]
    assert set(codes) == {200, 503}  # some served, the rest told when to come back
    for answer in answers:
        if answer.status_code == 503:
            assert int(answer.headers["retry-after"]) >= 1
            assert answer.json()["detail"][0]["type"] == "busy"
    assert app.state.gate.running == 0  # type: ignore[attr-defined]
