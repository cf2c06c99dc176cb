"""Every route of the app joins the one request pipeline (``app.http.pipeline``) or is on a
short list of routes that compute nothing: a new route cannot skip pricing or admission.

Two checks: the walk over ``app.routes`` (every endpoint marked ``@computes``, or
allowlisted, and the allowlist has no stale entry), and a request to every marked route
(a sample per route: a new route must add one) that must be priced by the pipeline
(``Gate.priced`` counts it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, Mount, Route

from app.http.pipeline import is_marked
from app.http.runner import declaration
from app.lessons.builtin import builtin_json
from app.lessons.format import lesson_json, parse_lesson
from app.lessons.link import encode_lesson
from app.main import create_app
from app.models import registry
from app.store.short_links import content_digest, short_id

# (method, path) of the routes that compute nothing: probes, documents, data lookups,
# the lab index and redirects. Keep it short; everything else goes through the pipeline.
NOT_COMPUTING = {
    ("GET", "/healthz"),  # the liveness probe: a constant
    ("GET", "/metrics"),  # a few kB of counters, read on the event loop like /healthz
    ("GET", "/api/v1/openapi.json"),  # a document built once
    ("GET", "/api/v1/docs"),  # a static page
    ("GET", "/api/v1/presets"),  # named examples: data
    ("GET", "/api/v1/presets/{preset_id}"),
    ("GET", "/api/v1/models"),  # the model list: data and file checks, no weights read
    ("GET", "/labs"),  # the list of labs
    ("GET", "/models"),  # the list of models (registry data)
    ("GET", "/sources"),  # reference pages: data in a template
    ("GET", "/glossary"),
    ("GET", "/labs/"),  # redirects
    ("GET", "/labs/{lab_id}/figures.json"),
    ("GET", "/labs/{lab_id}/figures.ndjson"),
    ("GET", "/labs/{lab_id}/numpy/{figure}"),
}
BODY = {"x": [[1.0, 0.0], [0.0, 1.0]], "w_q": [[1.0, 0.0], [0.0, 1.0]],
        "w_k": [[1.0, 0.0], [0.0, 1.0]], "w_v": [[1.0, 0.0], [0.0, 1.0]]}  # fmt: skip
# One admissible request per computing route: (method, url, JSON body or None).
SAMPLES: dict[tuple[str, str], tuple[str, Any]] = {
    ("POST", "/api/v1/attention"): ("/api/v1/attention", BODY),
    ("POST", "/api/v1/softmax"): ("/api/v1/softmax", {"scores": [1, 2, 3]}),
    ("POST", "/api/v1/positional-encoding"): (
        "/api/v1/positional-encoding",
        {"positions": 3, "d_model": 4},
    ),
    ("POST", "/api/v1/cost"): ("/api/v1/cost", {}),
    ("POST", "/api/v1/kv-cache"): (
        "/api/v1/kv-cache",
        {"layers": 2, "heads": 4, "kv_heads": 2, "d_head": 8, "bytes_per_value": 2, "tokens": 5},
    ),
    ("GET", "/api/v1/kv-cache/presets"): ("/api/v1/kv-cache/presets", None),
    ("GET", "/api/v1/alibi"): ("/api/v1/alibi?heads=8", None),
    ("POST", "/api/v1/flash"): ("/api/v1/flash", {"n": 16, "d": 4, "sram": 64}),
    ("GET", "/api/v1/labs/{lab_id}/figures"): ("/api/v1/labs/order/figures", None),
    ("GET", "/api/v1/labs/{lab_id}/figures.ndjson"): (
        "/api/v1/labs/why-scale/figures.ndjson?figures=saturation&trials=100",
        None,
    ),
    ("GET", "/api/v1/labs/{lab_id}/numpy/{figure}"): (
        "/api/v1/labs/why-scale/numpy/saturation",
        None,
    ),
    ("POST", "/api/v1/experiments/score-variance"): (
        "/api/v1/experiments/score-variance",
        {"draws": 1000},
    ),
    ("POST", "/api/v1/experiments/saturation"): ("/api/v1/experiments/saturation", {}),
    ("POST", "/api/v1/experiments/scaling-table"): ("/api/v1/experiments/scaling-table", {}),
    ("POST", "/api/v1/experiments/score-variance/numpy"): (
        "/api/v1/experiments/score-variance/numpy",
        {},
    ),
    ("POST", "/api/v1/experiments/saturation/numpy"): ("/api/v1/experiments/saturation/numpy", {}),
    ("POST", "/api/v1/experiments/scaling-table/numpy"): (
        "/api/v1/experiments/scaling-table/numpy",
        {},
    ),
    ("POST", "/api/v1/figures"): ("/api/v1/figures", BODY),
    ("GET", "/api/v1/export"): ("/api/v1/export?preset=i-love-llms", None),
    ("POST", "/api/v1/export"): ("/api/v1/export", BODY),
    ("GET", "/api/v1/export/figures.html"): ("/api/v1/export/figures.html?figures=7", None),
    ("GET", "/api/v1/export/figure.svg"): ("/api/v1/export/figure.svg?figure=7", None),
    ("GET", "/api/v1/labs/{lab_id}/export.html"): ("/api/v1/labs/masks/export.html", None),
    ("GET", "/api/v1/labs/{lab_id}/export.svg"): (
        "/api/v1/labs/masks/export.svg?figures=mask-kinds",
        None,
    ),
    ("POST", "/api/v1/models/{model_id}/attention"): (
        "/api/v1/models/minilm/attention",
        {"text": "I love LLMs"},
    ),
    ("POST", "/api/v1/models/{model_id}/head"): (
        "/api/v1/models/minilm/head",
        {"text": "I love LLMs", "layer": 1, "head": 3},
    ),
    ("POST", "/api/v1/models/{model_id}/generate"): (
        "/api/v1/models/smollm2/generate",
        {"text": "Hi", "steps": 1},
    ),
    ("GET", "/lessons"): ("/lessons", None),
    ("GET", "/lessons/{lesson_id}"): ("/lessons/why-scale", None),
    ("GET", "/lessons/edit"): ("/lessons/edit", None),
    ("GET", "/lessons/play"): (
        "/lessons/play?l=" + encode_lesson(builtin_json("why-scale") or {}),
        None,
    ),
    ("GET", "/api/v1/lessons"): ("/api/v1/lessons", None),
    ("POST", "/api/v1/lessons/export"): (
        "/api/v1/lessons/export?format=scorm12",
        builtin_json("masks-and-order"),
    ),
    ("GET", "/embed/lesson/{lesson_id}"): ("/embed/lesson/why-scale", None),
    ("GET", "/embed/lesson"): (
        "/embed/lesson?l=" + encode_lesson(builtin_json("why-scale") or {}),
        None,
    ),
    ("GET", "/api/v1/lessons/schema.json"): ("/api/v1/lessons/schema.json", None),
    ("GET", "/api/v1/lessons/{lesson_id:lesson_id}"): ("/api/v1/lessons/why-scale", None),
    ("POST", "/api/v1/lessons/answers"): (
        "/api/v1/lessons/answers",
        {
            "version": 1,
            "title": "One step",
            "steps": [
                {
                    "title": "Weights",
                    "state": {"page": "main", "query": "", "figures": [6]},
                    "question": {"kind": "attends_most", "prompt": "Which key?", "row": 2},
                }
            ],
        },
    ),
    ("GET", "/"): ("/", None),
    ("GET", "/labs/{lab_id}"): ("/labs/order", None),
    ("GET", "/models/{model_id}"): ("/models/tiny-decoder?text=abab", None),
    ("GET", "/models/{model_id}/heads.json"): (
        "/models/tiny-decoder/heads.json?text=abab",
        None,
    ),
    ("GET", "/models/{model_id}/head.json"): (
        "/models/tiny-decoder/head.json?text=abab&layer=1&head=2",
        None,
    ),
    ("GET", "/models/{model_id}/generate.json"): (
        "/models/smollm2/generate.json?text=Hi&steps=1",
        None,
    ),
    ("GET", "/embed/labs/{lab_id}/{figure}"): ("/embed/labs/order/positional-encoding", None),
    ("GET", "/embed/{figure}"): ("/embed/6", None),
    ("GET", "/oembed"): ("/oembed?url=http%3A%2F%2Ftestserver%2Fembed%2F6", None),
    ("POST", "/api/v1/short-links"): ("/api/v1/short-links", {"state": "preset=causal&fig=7"}),
}
# Short links open what was stored first (STORED, made before the request and priced apart)
# and answer a redirect (302) to it; a creation answers 201.
_STATE = {"state": "preset=causal&fig=7"}
_STATE_ID = short_id(content_digest("s", "preset=causal&fig=7"))
_LESSON = builtin_json("why-scale") or {}
_LESSON_ID = short_id(
    content_digest("l", orjson.dumps(lesson_json(parse_lesson(_LESSON))).decode())
)
STORED: dict[tuple[str, str], Any] = {
    ("GET", "/s/{link_id}"): _STATE,
    ("GET", "/e/{link_id}"): _STATE,
    ("GET", "/api/v1/short-links/{link_id}"): _STATE,
    ("GET", "/l/{link_id}"): {"lesson": _LESSON},
}
SAMPLES.update({
    ("GET", "/s/{link_id}"): (f"/s/{_STATE_ID}", None),
    ("GET", "/e/{link_id}"): (f"/e/{_STATE_ID}", None),
    ("GET", "/api/v1/short-links/{link_id}"): (f"/api/v1/short-links/{_STATE_ID}", None),
    ("GET", "/l/{link_id}"): (f"/l/{_LESSON_ID}", None),
})  # fmt: skip
STATUS = {("POST", "/api/v1/short-links"): 201, ("GET", "/s/{link_id}"): 302,
          ("GET", "/e/{link_id}"): 302, ("GET", "/l/{link_id}"): 302}  # fmt: skip


def walk(routes: list[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route, included routers opened (FastAPI keeps them as one matcher each)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        yield from walk(inner.routes) if inner is not None else [route]


def endpoints() -> list[tuple[str, str, bool]]:
    """(method, path, marked) of every route of the app; mounts (static files) skipped."""
    out = []
    for route in walk(create_app().routes):
        if isinstance(route, Mount):
            assert route.path == "/static", f"a mount the walk does not know: {route.path}"
            continue
        assert isinstance(route, Route), f"a route the walk cannot read: {route!r}"
        for method in sorted((route.methods or set()) - {"HEAD"}):
            out.append((method, route.path, is_marked(route.endpoint)))
    return out


def test_every_route_goes_through_the_pipeline_or_computes_nothing() -> None:
    found = endpoints()
    skipping = [(m, p) for m, p, marked in found if not marked and (m, p) not in NOT_COMPUTING]
    assert skipping == [], "mark these @computes (app.http.pipeline) or allowlist them"
    stale = NOT_COMPUTING - {(m, p) for m, p, _ in found}
    assert stale == set()
    marked_allowlisted = [(m, p) for m, p, marked in found if marked and (m, p) in NOT_COMPUTING]
    assert marked_allowlisted == []


# Routes that still sequence the pipeline's steps themselves (``@computes``) rather than
# being declared to the runner (``app.http.runner.declare``). Shrink it; never grow it.
NOT_YET_DECLARED = {
    ("GET", "/api/v1/labs/{lab_id}/figures"),
    ("GET", "/api/v1/labs/{lab_id}/figures.ndjson"),
    ("GET", "/api/v1/labs/{lab_id}/numpy/{figure}"),
    ("POST", "/api/v1/experiments/score-variance"),
    ("POST", "/api/v1/experiments/saturation"),
    ("POST", "/api/v1/experiments/scaling-table"),
    ("GET", "/api/v1/labs/{lab_id}/export.html"),
    ("GET", "/api/v1/labs/{lab_id}/export.svg"),
    ("GET", "/lessons"),
    ("GET", "/lessons/edit"),
    ("GET", "/"),
    ("GET", "/labs/{lab_id}"),
    ("GET", "/embed/labs/{lab_id}/{figure}"),
    ("GET", "/embed/{figure}"),
    ("GET", "/oembed"),
}


def declared_routes() -> dict[tuple[str, str], Route]:
    """(method, path) -> route, of every route declared to the runner."""
    out = {}
    for route in walk(create_app().routes):
        if isinstance(route, Route) and declaration(route.endpoint) is not None:
            for method in sorted((route.methods or set()) - {"HEAD"}):
                out[(method, route.path)] = route
    return out


def test_every_computing_route_is_declared_to_the_runner() -> None:
    """A computing route is declared to the one runner, or is one of the routes still to
    convert (the list only shrinks: a new route must be declared)."""
    declared = set(declared_routes())
    marked = {(m, p) for m, p, is_ in endpoints() if is_}
    assert marked - declared - NOT_YET_DECLARED == set(), "declare these with app.http.runner"
    assert NOT_YET_DECLARED & declared == set(), "declared now: drop them from NOT_YET_DECLARED"
    assert marked >= NOT_YET_DECLARED, "stale entries in NOT_YET_DECLARED"


@pytest.mark.parametrize("route", sorted(declared_routes()), ids=lambda r: f"{r[0]} {r[1]}")
def test_a_declared_route_has_no_body_of_its_own(
    route: tuple[str, str], run_async: Callable[..., Any]
) -> None:
    """The endpoint under ``@declare`` documents the route; the runner does the work."""
    own = declared_routes()[route].endpoint.__wrapped__
    call = functools.partial(own, **dict.fromkeys(inspect.signature(own).parameters))
    with pytest.raises(NotImplementedError):
        run_async(call) if inspect.iscoroutinefunction(own) else call()


def test_every_computing_route_has_a_sample() -> None:
    marked = {(m, p) for m, p, is_ in endpoints() if is_}
    assert marked == set(SAMPLES)


@pytest.mark.parametrize("route", sorted(SAMPLES), ids=lambda r: f"{r[0]} {r[1]}")
def test_a_computing_route_is_priced_by_the_pipeline(route: tuple[str, str]) -> None:
    url, body = SAMPLES[route]
    if "{model_id}" in route[1] and not registry.installed("minilm"):
        pytest.skip("all-MiniLM-L6-v2 is not installed: attention-lab models install minilm")
    if "/models/smollm2/" in url and not registry.installed("smollm2"):
        pytest.skip("SmolLM2 is not installed: attention-lab models install smollm2")
    client = TestClient(create_app())
    gate = client.app.state.gate  # type: ignore[attr-defined]
    if route in STORED:
        assert client.post("/api/v1/short-links", json=STORED[route]).status_code == 201
    before = gate.priced
    r = client.request(route[0], url, json=body, follow_redirects=False)
    assert r.status_code == STATUS.get(route, 200), r.text[:300]
    assert gate.priced == before + 1
    assert gate.running == 0
