"""app.http.embed_height: the words it lays out are the page's, and its layout rules
behave (the real heights are checked in Chromium by tests/browser/test_embed_heights.py)."""

from __future__ import annotations

from pathlib import Path

from app.http.embed_height import (
    GRID_HINT,
    LAB_GRID_HINT,
    LINE,
    STEPPER_LABELS,
    figure_height,
    grid_box,
    lab_height,
    panels_height,
    text_height,
)

ROOT = Path(__file__).resolve().parents[2]


def _grid(rows: int, cols: int, text: bool = True) -> dict[str, object]:
    return {
        "shape": [rows, cols], "rows": [f"t{i}" for i in range(rows)],
        "cols": [f"t{j}" for j in range(cols)],
        "text": [["0.25"] * cols for _ in range(rows)] if text else None,
        "domain": [0, 1], "masked": None,
    }  # fmt: skip


def test_the_words_it_lays_out_are_the_scripts_and_templates() -> None:
    assert f'"{GRID_HINT}"' in (ROOT / "static/js/charts.js").read_text()
    assert f'"{LAB_GRID_HINT}"' in (ROOT / "static/js/labs/render.js").read_text()
    stepper = (ROOT / "templates/macros/stepper.html").read_text()
    for label in STEPPER_LABELS[:-1]:
        assert f">{label}</button>" in stepper


def test_text_wraps_into_more_lines_when_narrower() -> None:
    words = "The same grid at three stages, raw scores then scaled then weights. " * 3
    assert text_height("", 300) == 0
    assert text_height("one", 300) == LINE
    assert text_height(words, 300) > text_height(words, 900) >= 2 * LINE


def test_grids_grow_with_their_rows_and_stack_below_640_px() -> None:
    small, large = grid_box(_grid(3, 3), 700, False), grid_box(_grid(10, 10), 700, False)
    assert large[0] > small[0]
    assert large[1] > small[1]
    # a canvas (no printed numbers): its cells shrink to keep it about 720 px tall
    assert grid_box(_grid(200, 200, text=False), 700, False)[1] < 720 + 80
    row = [{"grid": _grid(3, 3)}, {"op": "×"}, {"grid": _grid(3, 3)}]
    side_by_side = panels_height([row], 1176)
    stacked = panels_height([row], 351)
    assert stacked > 2 * small[1] > side_by_side


def test_a_chart_is_as_tall_as_its_layout_and_the_text_around_it() -> None:
    spec = {"title": "Softmax saturation", "caption": "A caption. " * 20, "readout": ["one"],
            "layout": {"height": 340}}  # fmt: skip
    wide = figure_height(spec, 1200, open_text="Open in Attention Lab (I love LLMs)")
    narrow = figure_height(spec, 375, open_text="Open in Attention Lab (I love LLMs)")
    assert 340 + 4 * LINE < wide < narrow
    lab = {"title": "C2", "caption": "c", "readout": [], "plot": {"layout": {"height": 700}}}
    assert lab_height(lab, 720, entry="C2", badges=[], open_text="Open") > 700
