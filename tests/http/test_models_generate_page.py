"""The model page's generation mode: ``GET /models/{id}/generate.json`` (SmolLM2, real
model, skipped when it is not installed) and the page that opens it from a link. Each new
query's row of one head equals the API's weights for that head and the last rows of
recomputing the whole causal sequence; the cache's bytes are the API's; the check's
number is the largest |cached − recomputed| weight, measured here independently; every
refusal is a 422 naming the parameter; thirty clients at once share one heavy slot."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import httpx2 as httpx
import numpy as np
import pytest
from api_helpers import MakeClient
from fastapi.testclient import TestClient
from models_support import needs_smollm2

from app.figures import fmt
from app.inputs.model_text import MAX_TEXT_CHARS
from app.models import generation, registry, smollm
from app.settings import Settings
from app.web import model_views

URL = "/models/smollm2/generate.json"
PROMPT = "The capital of France is"


def model() -> smollm.SmolLM2:
    found = registry.get("smollm2")
    assert isinstance(found, smollm.SmolLM2)
    return found


def initial(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="initial-state">(.*?)</script>', page)
    assert found
    return dict(json.loads(found.group(1)))


@pytest.mark.slow  # a forward pass of SmolLM2 or more: seconds alone
@needs_smollm2
def test_one_heads_rows_are_the_apis_weights_and_the_causal_sequences_last_rows(
    client: TestClient,
) -> None:
    steps, layer, head = 4, 29, 4
    q = {"text": PROMPT, "steps": steps, "layer": layer, "head": head, "theme": "dark"}
    out = client.get(URL, params=q).json()
    api = client.post("/api/v1/models/smollm2/generate", json={"text": PROMPT, "steps": steps})
    api_steps = api.json()["steps"]
    assert out["prompt"] == ["The", " capital", " of", " France", " is"]
    assert out["added"] == [s["token"].replace("\n", "⏎") for s in api_steps]
    assert out["added"][0] == " Paris"
    grid = out["grid"]
    n = 5 + steps
    assert grid["shape"] == [steps, n]
    assert grid["cols"] == out["prompt"] + out["added"]
    assert grid["rows"] == out["added"]
    values = np.array(grid["values"])
    masked = np.array(grid["masked"])
    for s, step in enumerate(api_steps):
        p = step["position"]
        assert p == 5 + s
        np.testing.assert_allclose(values[s, : p + 1], step["weights"][layer][head], atol=1e-6)
        assert not masked[s, : p + 1].any()
        assert masked[s, p + 1 :].all()  # keys not added yet: the causal mask's cells
        assert (values[s, p + 1 :] == 0).all()
        assert grid["text"][s][: p + 1] == fmt.weight_grid(values[s : s + 1, : p + 1])[0]
    # the whole causal sequence, no cache: its last rows are the grid (float32 rounding)
    ids = model().ids(PROMPT) + [s["id"] for s in api_steps]
    _, full = model().run(ids)
    np.testing.assert_allclose(values, full["weights"][layer][head, 5:, :], atol=4e-6)
    # the cache's bytes, step by step, are the API's; 2 × 30 × 3 × 64 × 4 bytes a token
    assert [r["cache_bytes"] for r in out["rows"]] == [s["cache_bytes"] for s in api_steps]
    assert [r["keys"] for r in out["rows"]] == [6, 7, 8, 9]
    assert out["rows"][0]["cache_text"] == "276,480 bytes"
    assert "= 46,080 bytes" in out["cache_words"]
    assert "512 bytes per layer and key/value head" in out["cache_words"]
    assert "after step 4, 414,720 bytes" in out["cache_words"]
    assert out["head_words"].startswith("Layer 30, head 5 reads key/value head 2")
    assert "H4–H6 share" in out["head_words"]
    assert out["more"] == 5
    assert out["announce"].startswith("Added 4 tokens: “ Paris”, ")
    assert out["rows"][0]["announce"].startswith("Step 1: added “ Paris” as token 6; ")


@pytest.mark.slow  # a forward pass of SmolLM2 or more: seconds alone
@needs_smollm2
def test_the_check_is_the_largest_difference_from_recomputing_everything(
    client: TestClient,
) -> None:
    out = client.get(URL, params={"text": PROMPT, "steps": 3, "seed": 5}).json()
    assert (out["greedy"], out["seed"]) == (False, 5)
    drawn = generation.generate(model(), PROMPT, 3, seed=5)
    assert out["added"] == [s.text.replace("\n", "⏎") for s in drawn]
    ids = model().ids(PROMPT) + [s.token for s in drawn]
    _, full = model().run(ids)
    worst = max(
        float(
            np.abs(
                s.weights - np.stack([w[:, s.position, : s.position + 1] for w in full["weights"]])
            ).max()
        )
        for s in drawn
    )
    assert out["difference"] == pytest.approx(worst, rel=1e-6, abs=1e-12)
    assert 0 < out["difference"] <= 4e-6  # float32 through 30 layers: close, not equal
    assert f"to within {fmt.significant(worst, 2)} (the largest |difference|" in out["check"]
    assert "running all 8 tokens again in one forward" in out["check"]


@pytest.mark.slow
@needs_smollm2
def test_the_check_sees_a_wrong_cache() -> None:
    """A step whose weights are off by 0.01 in one cell is measured off by 0.01."""
    steps = generation.generate(model(), "Hi there", 2)
    assert generation.recompute_difference(model(), "Hi there", steps) <= 4e-6
    bad = steps[1].weights.copy()
    bad[7, 3, 0] += 0.01
    broken = [steps[0], generation.Step(steps[1].token, steps[1].text, steps[1].position, bad, 0)]
    assert generation.recompute_difference(model(), "Hi there", broken) == pytest.approx(
        0.01, abs=1e-5
    )
    assert generation.recompute_difference(model(), "Hi there", []) == 0.0


@pytest.mark.slow  # a forward pass of SmolLM2 or more: seconds alone
@needs_smollm2
def test_no_more_step_past_the_limit(client: TestClient) -> None:
    out = client.get(URL, params={"text": "Hi", "steps": generation.MAX_STEPS}).json()
    assert len(out["rows"]) == generation.MAX_STEPS
    assert out["more"] is None
    assert out["grid"]["text"] is None  # 33 keys: drawn as colour blocks, numbers on hover


@needs_smollm2
def test_a_link_opens_the_page_in_generation_mode(client: TestClient) -> None:
    page = client.get("/models/smollm2", params={"text": PROMPT, "steps": "6", "seed": "7"})
    assert page.status_code == 200
    state = initial(page.text)
    assert state["generate"] == {"steps": 6, "seed": 7}
    assert state["generates"] is True
    assert 'id="generation"' in page.text
    assert 'value="6"' in page.text
    plain = initial(client.get("/models/smollm2", params={"text": PROMPT}).text)
    assert plain["generate"] is None
    bad = client.get("/models/smollm2", params={"text": PROMPT, "steps": "x"})
    assert bad.status_code == 200
    assert initial(bad.text)["generate"] is None
    assert "The link's generation could not be used (steps: " in bad.text


def test_a_model_that_does_not_generate_has_no_generation_mode(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = client.get("/models/tiny-decoder", params={"steps": "3"})
    assert page.status_code == 200
    assert 'id="generation"' not in page.text
    assert initial(page.text)["generate"] is None
    r = client.get("/models/tiny-decoder/generate.json", params={"text": "ab", "steps": "1"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "model"
    monkeypatch.setattr(registry, "installed", lambda model_id: False)
    r = client.get(URL, params={"text": "Hi", "steps": "1"})
    assert r.status_code == 404


HOSTILE = [
    ({"steps": "0"}, "steps", "ask for 1 to 32 steps; got 0"),
    ({"steps": "33"}, "steps", "ask for 1 to 32 steps; got 33"),
    ({"steps": "-1"}, "steps", "whole number"),
    ({"steps": "1e3"}, "steps", "whole number"),
    ({"steps": "1.5"}, "steps", "whole number"),
    ({"steps": "NaN"}, "steps", "whole number"),
    ({"steps": "٣"}, "steps", "whole number"),
    ({"steps": "9" * 5000}, "steps", "whole number"),
    ({"steps": ""}, "steps", "whole number"),
    ({"seed": "-1"}, "seed", "whole number"),
    ({"seed": "1234567"}, "seed", "at most 6 digits"),
    ({"seed": "Infinity"}, "seed", "whole number"),
    ({"layer": "30"}, "layer", "layer must be from 0 to 29"),
    ({"layer": "-1"}, "layer", "whole number"),
    ({"head": "9"}, "head", "head must be from 0 to 8"),
    ({"theme": "sepia"}, "theme", "one of light, dark"),
    ({"text": ""}, "text", "it is empty"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "text", "characters"),
    ({"text": "1" * 120, "steps": "10"}, "steps", "at most 8 more"),
    ({"text": "word " * 100}, "text", "reduce text or steps"),
]


@needs_smollm2
@pytest.mark.parametrize(("change", "field", "words"), HOSTILE, ids=lambda v: str(v)[:30])
def test_a_hostile_query_is_a_422_naming_the_field(
    client: TestClient, change: dict[str, str], field: str, words: str
) -> None:
    r = client.get(URL, params={"text": "Hi", "steps": "2", **change})
    assert r.status_code == 422, r.text[:300]
    item = r.json()["detail"][0]
    assert item["field"] == field
    assert words in item["msg"]


def largest_text(steps: int) -> int:
    budget = Settings().max_cells
    spec = registry.entry("smollm2").spec
    fits = [
        n
        for n in range(1, spec.max_tokens - steps + 1)
        if model_views.generation_cost(spec, n, steps).cells <= budget
    ]
    return max(fits)


@needs_smollm2
@pytest.mark.slow
def test_the_largest_admissible_generation_runs_and_one_more_token_is_refused(
    client: TestClient,
) -> None:
    steps = generation.MAX_STEPS
    tokens = largest_text(steps)
    assert tokens >= 20  # a sentence and 32 tokens fit
    text = "1" * tokens  # one token a digit
    assert len(model().ids(text)) == tokens
    r = client.get(URL, params={"text": text, "steps": steps, "layer": 29, "head": 8})
    assert r.status_code == 200, r.text[:300]
    assert len(r.json()["rows"]) == steps
    r = client.get(URL, params={"text": text + "1", "steps": steps})
    assert r.status_code == 422
    assert "reduce text or steps" in r.json()["detail"][0]["msg"]


def _concurrently(
    run_async: Callable[..., Any], app: Any, queries: list[dict[str, Any]]
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as c:
            return list(await asyncio.gather(*(c.get(URL, params=q) for q in queries)))

    return run_async(run)


@pytest.mark.slow
@needs_smollm2
def test_thirty_clients_share_one_heavy_slot(
    make_client: MakeClient, run_async: Callable[..., Any]
) -> None:
    app = make_client(max_heavy=1, queue_seconds=60).app
    queries = [{"text": "Hello", "steps": 1, "head": i % 9} for i in range(30)]
    answers = _concurrently(run_async, app, queries)
    assert [a.status_code for a in answers] == [200] * 30
    assert {a.json()["added"][0] for a in answers} == {answers[0].json()["added"][0]}
    assert app.state.gate.peak == 1  # type: ignore[attr-defined]
    assert app.state.gate.running == 0  # type: ignore[attr-defined]
