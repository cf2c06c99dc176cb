"""What the grid renderer's legend and hatching read from a grid description
(app/figures/grid.py): ``masked`` per cell, ``scale_colors`` at the scale's ends, and one
colour role per stage (a lab's per-head weights take the weights' hue); and the page's
figures mark the cells a causal mask removed."""

from __future__ import annotations

import numpy as np
import pytest
from figures_support import figs, stages

from app.figures import grid as g
from app.figures.palette import SCALES

ROWS, COLS = ["a", "b"], ["1", "2"]


def test_masked_cells_are_marked_and_blocked_cells_always_are() -> None:
    d = g.grid("weights", "A", [[1, 0], [0.5, 0.5]], rows=ROWS, cols=COLS,
               masked=[[False, True], [False, False]])  # fmt: skip
    assert d["masked"] == [[False, True], [False, False]]
    blocked = g.grid("masked", "S", [[1, -np.inf], [0.5, 0.5]], rows=ROWS, cols=COLS)
    assert blocked["masked"] == [[False, True], [False, False]]
    # a given mask and a blocked cell add up
    both = g.grid("masked", "S", [[-np.inf, 1], [0.5, 0.5]], rows=ROWS, cols=COLS,
                  masked=[[False, False], [True, False]])  # fmt: skip
    assert both["masked"] == [[True, False], [True, False]]


def test_nothing_masked_is_null() -> None:
    d = g.grid("x", "X", [[1, 2], [3, 4]], rows=ROWS, cols=COLS, masked=np.zeros((2, 2)))
    assert d["masked"] is None


def test_a_mask_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="masked has shape"):
        g.grid("weights", "A", [[1, 0], [0, 1]], rows=ROWS, cols=COLS, masked=[[True]])


def test_large_grids_keep_the_mask_as_an_array() -> None:
    big = np.zeros((30, 30))
    mask = np.triu(np.ones((30, 30), dtype=bool), 1)
    d = g.grid("weights", "A", big, rows=[str(i) for i in range(30)],
               cols=[str(i) for i in range(30)], masked=mask)  # fmt: skip
    assert d["text"] is None
    assert np.array_equal(d["masked"], mask)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("role", sorted(SCALES["light"]))
def test_scale_colors_are_the_scales_low_middle_and_high(theme: str, role: str) -> None:
    d = g.grid(role, "M", [[0.0]], rows=["a"], cols=["1"], theme=theme, role=role)
    assert d["scale_colors"] == list(SCALES[theme][role])


@pytest.mark.parametrize(
    ("name", "role"),
    [("weights-h2", "weights"), ("weights-reversed", "weights"), ("output-shuffled", "z"),
     ("scores-reversed", "scores"), ("mask-1", "x"), ("w_q", "q")],
)  # fmt: skip
def test_a_suffixed_stage_name_keeps_its_stages_colour(name: str, role: str) -> None:
    assert g.grid(name, "M", [[0.5]], rows=["a"], cols=["1"])["scale"] == role


def _weights(figures: dict[str, object]) -> dict[str, object]:
    """The shared weights grid of a build (grids travel once, keyed by stage)."""
    found = [d for d in _grids(figures) if d.get("grid") == "weights"]
    assert found, "no weights grid"
    return found[0]


def _grids(obj: object) -> list[dict[str, object]]:
    if isinstance(obj, dict):
        own = [obj] if "palette" in obj and "grid" in obj else []
        return own + [d for v in obj.values() for d in _grids(v)]
    if isinstance(obj, list):
        return [d for v in obj for d in _grids(v)]
    return []


def test_the_causal_mask_hatches_the_weights_it_zeroes() -> None:
    weights = _weights(figs(stages(mask="causal")))
    assert weights["masked"] == [[j > i for j in range(3)] for i in range(3)]
    values = weights["values"]
    assert isinstance(values, list)
    assert all(values[i][j] == 0 for i in range(3) for j in range(3) if j > i)


def test_without_a_mask_no_weight_is_hatched() -> None:
    assert _weights(figs(stages()))["masked"] is None
