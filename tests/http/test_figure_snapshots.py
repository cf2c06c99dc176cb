"""Whole-figure snapshots: every figure of the running example as POST /api/v1/figures
answers it, and each lab page's figures for its default state (GET
/labs/{id}/figures.json), stored as pretty JSON under tests/snapshots/ with numbers rounded
to 6 significant digits. A change to any figure (a number, a caption, a colour, a Plotly
attribute) fails here with a diff, and lands as a reviewed diff of those files:

    pytest tests/http/test_figure_snapshots.py --update-snapshots   # or UPDATE_SNAPSHOTS=1
    git diff tests/snapshots
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.figures import BUILDERS
from app.figures.labs import LABS
from app.presets import RUNNING_EXAMPLE

Snapshot = Callable[[str, Any], None]


@pytest.fixture(scope="module")
def running_example(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/v1/figures", json=RUNNING_EXAMPLE)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize("number", sorted(BUILDERS))
def test_running_example_figure(
    running_example: dict[str, Any], snapshot: Snapshot, number: int
) -> None:
    snapshot(f"running-example/figure-{number}", running_example["figures"][str(number)])


def test_running_example_response_around_the_figures(
    running_example: dict[str, Any], snapshot: Snapshot
) -> None:
    assert sorted(running_example["figures"], key=int) == [str(n) for n in sorted(BUILDERS)]
    rest = {key: value for key, value in running_example.items() if key != "figures"}
    snapshot("running-example/response", rest)


@pytest.mark.parametrize("lab", [lab.id for lab in LABS if lab.status == "ready"])
def test_lab_default_figures(client: TestClient, snapshot: Snapshot, lab: str) -> None:
    r = client.get(f"/labs/{lab}/figures.json")
    assert r.status_code == 200, r.text
    snapshot(f"labs/{lab}", r.json())
