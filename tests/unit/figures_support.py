"""Shared helpers of the figure tests: engine runs for the spec's states, and validation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
from engine_spec import arr, run_example

from app.attention import AttentionInput, Stages, run
from app.figures import View, build_figures
from app.presets import RUNNING_EXAMPLE as R


def stages(**over: Any) -> Stages:
    """The running example with some inputs replaced (engine_spec's, one definition)."""
    return run_example(**over)


def cross() -> Stages:
    return stages(
        x=arr(R["x"][:2]),
        tokens=("I", "love"),
        source_x=arr([*R["x"], [1, 1, 0, 1]]),
        source_tokens=("I", "love", "LLMs", "!"),
    )


def big(n: int = 64, d: int = 32, seed: int = 0) -> Stages:
    rng = np.random.default_rng(seed)
    return run(
        AttentionInput(
            x=rng.integers(-2, 3, (n, d)).astype(float),
            w_q=rng.normal(size=(d, d)),
            w_k=rng.normal(size=(d, d)),
            w_v=rng.normal(size=(d, d)),
            tokens=tuple(f"t{i}" for i in range(n)),
        )
    )


def figs(s: Stages, **view: Any) -> dict[str, Any]:
    return build_figures(s, View(**view))


def validate(fig: dict[str, Any]) -> None:
    """Builds through plotly.graph_objects so a misspelt attribute fails."""
    go.Figure(data=fig["data"], layout=fig["layout"])
    for frame in fig.get("frames") or []:
        go.Figure(data=frame["data"], layout=frame["layout"])


def no_nan(obj: Any) -> None:
    """No NaN or infinity anywhere in a response-like structure."""
    if isinstance(obj, float):
        assert math.isfinite(obj), obj
    elif isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f":
            assert np.isfinite(obj).all()
    elif isinstance(obj, dict):
        for v in obj.values():
            no_nan(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            no_nan(v)


def grids(fig: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A grid figure's descriptions by API name (the first of each name, rows in order)."""
    found: dict[str, dict[str, Any]] = {}
    for row in fig["panels"] or []:
        for item in row:
            if "grid" in item:
                found.setdefault(item["grid"]["grid"], item["grid"])
    return found


def ops(fig: dict[str, Any]) -> list[str]:
    """The operators and arrow labels between a figure's grids, in reading order."""
    return [i.get("op") or i["arrow"] for row in fig["panels"] for i in row if "grid" not in i]
