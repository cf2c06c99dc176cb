"""The figure descriptions of the masks, order, heads and cost labs for their default states
and edited ones: every Plotly chart builds as a plotly.graph_objects.Figure (a misspelt
attribute fails), every grid has labels for each row and column, and nothing is NaN."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import orjson
import plotly.graph_objects as go
import pytest

from app.figures.labs import get_lab
from app.figures.labs.base import FigureContext
from app.figures.style import theme
from app.inputs.body import AttentionRequest
from app.inputs.lab_controls import figure_values, read_values
from app.wire import encode

STATES = {
    "masks": [{}, {"pad": "0", "window": "2", "form": "allowed", "order": "after",
                   "case": "pad-key0", "large": "0", "L": "7"}],
    "order": [{}, {"perm": "3,0,4,1,2", "shuffle.positional": "1", "d": "64", "T": "40",
                   "reverse": "1", "reversed.positional": "1"}],
    "heads": [{}, {"head": "2", "stack": "tensor", "split-concat.heads": "4", "wo_identity": "1",
                   "d_model": "1024", "head-width.heads": "64"}],
    "cost": [{}, {"flops.n": "65536", "x2": "1", "biases": "1", "x4": "1", "all": "1",
                  "growth.n": "131072"}],
}  # fmt: skip


def _attention(body: dict[str, Any]) -> Any:
    from app.attention import run

    return run(AttentionRequest.model_validate(body).to_input())


def _finite(value: Any) -> None:
    if isinstance(value, float):
        assert math.isfinite(value)
    elif isinstance(value, dict):
        for v in value.values():
            _finite(v)
    elif isinstance(value, list):
        for v in value:
            _finite(v)
    elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
        # Large grids travel as arrays (orjson writes them); they must be finite too.
        assert np.isfinite(value).all()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("lab_id", "n"), [(lab, i) for lab in STATES for i in range(2)])
def test_figures_build_valid_charts_and_grids(lab_id: str, n: int, scheme: str) -> None:
    lab = get_lab(lab_id)
    assert lab is not None
    assert lab.status == "ready"
    for fig in lab.figures:
        state = STATES[lab_id][n]
        others = read_values(lab, fig, state)
        ctx = FigureContext(theme=theme(scheme), run={"attention": _attention}, others=others)
        spec = fig.build(figure_values(lab, fig, state), ctx)
        assert spec["name"] == fig.name
        assert spec["caption"]
        assert spec["alt"]
        _finite(spec)
        # What goes on the wire is what the app's encoder writes: orjson, arrays as lists.
        assert orjson.loads(encode(spec))["name"] == fig.name
        if spec["plot"] is not None:
            go.Figure(data=spec["plot"]["data"], layout=spec["plot"]["layout"])
        for item in spec.get("grids", []):
            desc = item["desc"]
            rows, cols = desc["shape"]
            assert len(desc["rows"]) == rows
            assert len(desc["cols"]) == cols
            assert item["heading"]
