"""Small builders of lesson JSON for the lesson tests (tests/unit and tests/http)."""

from __future__ import annotations

import copy
from typing import Any

from app import presets
from app.inputs.link import encode_body


def running(**changes: Any) -> dict[str, Any]:
    """The running example's body with ``changes``."""
    body = copy.deepcopy(presets.get_preset("i-love-llms"))["body"]  # type: ignore[index]
    body.update(changes)
    return dict(body)


def query(**changes: Any) -> str:
    """The main-page query of the running example with ``changes`` (s=…)."""
    return "s=" + encode_body(running(**changes))


def step(question: dict[str, Any] | None = None, q: str = "preset=i-love-llms") -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": "A step",
        "text": "Some text.",
        "state": {"page": "main", "query": q, "figures": [6]},
    }
    if question is not None:
        out["question"] = {"prompt": "Your prediction?", **question}
    return out


def lesson(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"version": 1, "title": "A lesson", "steps": list(steps) or [step()]}


def asking(question: dict[str, Any], q: str = "preset=i-love-llms") -> dict[str, Any]:
    """A one-step lesson asking ``question`` on the state ``q``."""
    return lesson(step(question, q))
