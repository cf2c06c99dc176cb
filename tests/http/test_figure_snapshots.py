"""Whole-figure snapshots a reviewer can read: every figure of the running example as the
page draws it (POST /api/v1/figures?draw=grids), the grids they share, a digest of the
Plotly answer (what exports and embeds draw), and each lab's figures for its default state
(GET /labs/{id}/figures.json), stored as pretty JSON under tests/snapshots/.

Grids are stored as grids (aligned rows of values to 6 significant digits and of the
printed text), charts as their data and layout; the machine parts (Plotly versions of grid
figures, toolbar settings, long sample lists) as a summary and a sha256: see
tests/http/snapshot_views.py. A change to any figure (a number, a caption, a colour, a
Plotly attribute) fails here with a diff, and lands as a reviewed diff of those files:

    pytest --update-snapshots tests/http/test_figure_snapshots.py   # or UPDATE_SNAPSHOTS=1
    git diff tests/snapshots
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from snapshot_views import SAME, digest, readable

from app.figures import BUILDERS
from app.figures.labs import LABS
from app.presets import RUNNING_EXAMPLE

Snapshot = Callable[[str, Any], None]
SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots"
READY_LABS = [lab.id for lab in LABS if lab.status == "ready"]
BUDGET = 500_000  # bytes of tests/snapshots in all: a reviewer reads the diffs (ten labs)


@pytest.fixture(scope="module")
def running_example(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/v1/figures?draw=grids", json=RUNNING_EXAMPLE)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize("number", sorted(BUILDERS))
def test_running_example_figure(
    running_example: dict[str, Any], snapshot: Snapshot, number: int
) -> None:
    snapshot(f"running-example/figure-{number}", readable(running_example["figures"][str(number)]))


def test_running_example_grids(running_example: dict[str, Any], snapshot: Snapshot) -> None:
    assert {"x", "q", "weights", "output"} <= running_example["grids"].keys()
    snapshot("running-example/grids", readable(running_example["grids"]))


def test_running_example_response_around_the_figures(
    running_example: dict[str, Any], snapshot: Snapshot
) -> None:
    assert sorted(running_example["figures"], key=int) == [str(n) for n in sorted(BUILDERS)]
    rest = {k: v for k, v in running_example.items() if k not in ("figures", "grids")}
    snapshot("running-example/response", readable(rest))


def test_running_example_as_plotly(client: TestClient, snapshot: Snapshot) -> None:
    # The converter's output (exports, embeds): each figure's traces, frames and sha256.
    r = client.post("/api/v1/figures?draw=plotly", json=RUNNING_EXAMPLE)
    assert r.status_code == 200, r.text
    figures = r.json()["figures"]
    assert len(figures["3"]["frames"]) > 1  # Figure 3 plays its steps as Plotly frames
    snapshot("running-example/plotly", {n: digest(fig) for n, fig in figures.items()})


@pytest.mark.parametrize("lab", READY_LABS)
def test_lab_default_figures(client: TestClient, snapshot: Snapshot, lab: str) -> None:
    r = client.get(f"/labs/{lab}/figures.json")
    assert r.status_code == 200, r.text
    snapshot(f"labs/{lab}", readable(r.json()))


def test_no_stale_snapshot_and_all_within_budget() -> None:
    expected = {f"running-example/figure-{n}" for n in BUILDERS}
    expected |= {"running-example/grids", "running-example/response", "running-example/plotly"}
    expected |= {f"labs/{lab}" for lab in READY_LABS}
    stored = {
        p.relative_to(SNAPSHOTS).with_suffix("").as_posix() for p in SNAPSHOTS.rglob("*.json")
    }
    assert stored - expected == set(), "snapshots no test writes: delete them"
    size = sum(p.stat().st_size for p in SNAPSHOTS.rglob("*.json"))
    assert size <= BUDGET, f"tests/snapshots holds {size} bytes; keep it under {BUDGET}"


# ---- the views themselves: a changed number must change the stored text


def _grid() -> dict[str, Any]:
    return {
        "grid": "a", "label": "A", "shape": [2, 2], "rows": ["I", "love"], "cols": ["I", "love"],
        "values": [[0.25, 0.75], [0.5, None]], "text": [["0.25", "0.75"], ["0.5", "−∞"]],
        "color": [[0, 1], [1, -1]], "hover": [["h", None], [None, "blocked"]],
    }  # fmt: skip


def test_a_grid_is_stored_as_aligned_rows() -> None:
    view = readable({"grids": [{"desc": _grid()}]})["grids"][0]["desc"]
    assert view["values"] == ["         I  love", "I     0.25  0.75", "love   0.5  -inf"]
    assert view["text"] == ["         I  love", "I     0.25  0.75", "love   0.5    −∞"]
    assert view["color"] == ["0 1", "1 -1"]
    assert view["hover"] == ["0,0: h", "1,1: blocked"]
    assert "rows" not in view
    assert view["label"] == "A"


def test_text_printed_as_the_values_read_is_not_stored_twice() -> None:
    grid = _grid() | {"values": [[1, 2], [3, 4]], "text": [["1", "2"], ["3", "4"]]}
    assert readable(grid)["text"] == SAME


@pytest.mark.parametrize(
    "change",
    [
        lambda g: g["values"][0].__setitem__(1, 0.750001),  # the sixth digit
        lambda g: g["text"][1].__setitem__(0, "0.50"),
        lambda g: g["color"][0].__setitem__(0, 1),
        lambda g: g["hover"][0].__setitem__(0, "h2"),
    ],
)
def test_any_changed_cell_changes_the_view(change: Callable[[dict[str, Any]], None]) -> None:
    grid = _grid()
    before = readable(grid)
    change(grid)
    assert readable(grid) != before


def test_long_lists_and_machine_parts_are_hashed_so_a_change_still_shows() -> None:
    chart = {"x": [float(i) for i in range(100)], "export": {"data": [{"type": "heatmap"}]}}
    view = readable(chart)
    assert (view["x"]["n"], view["x"]["min"], view["x"]["max"]) == (100, 0.0, 99.0)
    assert view["export"]["traces"] == ["heatmap"]
    changed = copy.deepcopy(chart)
    changed["x"][57] = 57.001
    assert readable(changed)["x"]["sha256"] != view["x"]["sha256"]
    changed["export"]["data"][0]["zmax"] = 1
    assert readable(changed)["export"]["sha256"] != view["export"]["sha256"]
