"""The notebook widget's Python side (attention_lab): the figure it syncs to the front end
is the project's own description, with the running example's numbers (the chapter's, in
``data/running-example.json``); edits recompute it; its HTML fallback needs no script."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from attention_lab.state import GRID_FIGURES, figure_description
from attention_lab.widget import Figure

SPEC: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "running-example.json").read_text(encoding="utf-8")
)
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _text(fig: Figure, name: str) -> list[list[str]]:
    for row in fig.spec["panels"]:
        for item in row:
            if item.get("grid", {}).get("grid") == name:
                text: list[list[str]] = item["grid"]["text"]
                return text
    raise AssertionError(f"no grid {name!r} in Figure {fig.number}")


def _printed(weights: list[list[float]]) -> list[list[str]]:
    return [[f"{w:.2f}" for w in row] for row in weights]


def test_figure_6_shows_the_running_example_weights() -> None:
    fig = Figure(6)
    assert _text(fig, "weights") == _printed(SPEC["expected"]["weights_2dp"])
    assert fig.spec["number"] == 6
    assert fig.error == ""


def test_setting_a_trait_recomputes_the_figure() -> None:
    fig = Figure(6)
    fig.scale = False
    assert _text(fig, "weights") == _printed(SPEC["toggles_2dp"]["unscaled"]["weights"])
    fig.scale = True
    fig.x = [[2 * v for v in row] for row in SPEC["x"]]
    assert _text(fig, "weights") != _printed(SPEC["expected"]["weights_2dp"])


def test_update_changes_several_fields_at_once() -> None:
    fig = Figure(6)
    # d_model 4 -> 2: x and the three weights must change together to stay a valid state.
    fig.update(x=[[1, 0], [0, 1]], w_q=[[1, 0], [0, 1]], w_k=[[1, 0], [0, 1]],
               w_v=[[1, 0], [0, 1]], tokens=["a", "b"])  # fmt: skip
    assert len(_text(fig, "weights")) == 2


def test_a_bad_state_names_the_field_and_keeps_the_figure() -> None:
    fig = Figure(6)
    before = fig.spec
    with pytest.raises(ValueError, match="w_q"):
        fig.x = [[1, 2]]
    assert "w_q" in fig.error
    assert fig.spec == before


def test_only_grid_figures_are_widgets() -> None:
    assert GRID_FIGURES == (3, 4, 6, 7, 8, 9, 11)
    with pytest.raises(ValueError, match="Figure 12 is not a grid figure"):
        figure_description({"x": SPEC["x"]}, 12)


def test_mimebundle_has_the_widget_and_a_script_free_html_figure() -> None:
    data, _meta = Figure(6)._repr_mimebundle_()
    assert WIDGET_MIME in data
    html = data["text/html"]
    assert "<svg" in html
    assert "<script" not in html.lower()
    printed = re.findall(r">([0-9.]+)</text>", html)
    for w in (w for row in _printed(SPEC["expected"]["weights_2dp"]) for w in row):
        assert w in printed


@pytest.mark.parametrize("number", GRID_FIGURES)
def test_every_grid_figure_draws_in_both_themes(number: int) -> None:
    for theme in ("light", "dark"):
        fig = Figure(number, theme=theme)
        assert fig.spec["panels"]
        assert "<svg" in fig._repr_html_()


def test_the_package_is_not_named_app() -> None:
    import attention_lab

    assert attention_lab.__name__ == "attention_lab"
    assert attention_lab.__version__


def test_a_users_own_app_module_is_named_not_used(tmp_path: Path) -> None:
    """A notebook folder with its own app.py: ``import attention_lab`` says what shadows
    our ``app`` instead of computing with the user's module."""
    import subprocess
    import sys

    (tmp_path / "app.py").write_text("raise SystemExit('the user app ran')\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", "import attention_lab"], cwd=tmp_path,
                          env={"PYTHONPATH": str(root)}, capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 1
    assert "shadows it" in done.stderr
    assert str(tmp_path / "app.py") in done.stderr
