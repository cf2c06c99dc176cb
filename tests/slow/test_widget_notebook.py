"""The notebook widget in a real notebook, run headless (nbclient) and converted to HTML
(nbconvert) with no network: each output holds the widget view AND the text/html
fallback, and the fallback shows the running example's weights (the chapter's, from
tests/unit/data/running-example.json) before and after a cell sets ``fig.scale = False``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SPEC: dict[str, Any] = json.loads(
    (ROOT / "tests" / "unit" / "data" / "running-example.json").read_text(encoding="utf-8")
)
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
CELLS = [
    "from attention_lab.widget import Figure\nfig = Figure(6)\nfig",
    "fig.scale = False\nfig",
]


def _printed(weights: list[list[float]]) -> list[str]:
    return [f"{w:.2f}" for row in weights for w in row]


def _svg_numbers(html: str) -> list[str]:
    return re.findall(r">([0-9.]+)</text>", html)


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    here = tmp_path_factory.mktemp("notebook")
    # The kernel imports this checkout (as an editable install would), from an empty folder.
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), before) if p)
    # Saved without widget state, as JupyterLab saves by default: nbconvert then shows the
    # text/html fallback (with the state it would load the widget manager from a CDN).
    client = NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(here)}})  # fmt: skip
    try:
        client.execute()
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    return nb


def _output(nb: nbformat.NotebookNode, cell: int) -> dict[str, Any]:
    outputs = [o for o in nb.cells[cell].outputs if o.output_type == "execute_result"]
    assert len(outputs) == 1, nb.cells[cell].outputs
    data: dict[str, Any] = outputs[0]["data"]
    return data


def test_each_output_holds_the_widget_and_the_html_fallback(executed: Any) -> None:
    for cell, expected in ((0, SPEC["expected"]["weights_2dp"]),
                           (1, SPEC["toggles_2dp"]["unscaled"]["weights"])):  # fmt: skip
        data = _output(executed, cell)
        assert "model_id" in data[WIDGET_MIME]
        html = data["text/html"]
        assert "Figure 6. The attention weight matrix" in html
        assert "<script" not in html.lower()
        numbers = _svg_numbers(html)
        for w in _printed(expected):
            assert w in numbers, (cell, w)


def test_nbconvert_html_shows_the_fallback_offline(executed: Any) -> None:
    body, _ = HTMLExporter().from_notebook_node(executed)
    for expected in (SPEC["expected"]["weights_2dp"], SPEC["toggles_2dp"]["unscaled"]["weights"]):
        assert all(w in _svg_numbers(body) for w in _printed(expected))
    figures = re.findall(r'<figure class="attention-lab-figure".*?</figure>', body, re.DOTALL)
    assert len(figures) == 2
    for figure in figures:
        assert "<svg" in figure
        assert "http" not in figure.replace("http://www.w3.org/2000/svg", "")
