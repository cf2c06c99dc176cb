"""Lab figures that read the page's state (A5 two maps, B2 per position) with a token
label that is markup: their Plotly export (``export``, by the one converter
app.figures.to_plotly) carries no live markup, while their number grids keep the label
exactly (the grid renderer writes it as text)."""

from __future__ import annotations

import json
from typing import Any

import plotly.graph_objects as go
import pytest
from fastapi.testclient import TestClient

from app.figures.grid import grid
from app.figures.to_plotly import convert, plain
from app.inputs.link import encode_body
from app.presets import RUNNING_EXAMPLE

LINK = '<a href="x">t</a>'


def grid_labels(fig: dict[str, Any]) -> set[str]:
    return {label for g in fig["grids"] for label in g["desc"]["rows"] + g["desc"]["cols"]}


@pytest.mark.parametrize(
    ("lab", "figure"), [("one-query", "two-maps"), ("step-by-step", "per-position")]
)
def test_a_markup_label_is_plain_in_the_export_and_exact_in_the_grids(
    client: TestClient, lab: str, figure: str
) -> None:
    body = {**RUNNING_EXAMPLE, "tokens": [LINK, "love", "LLMs"]}
    r = client.get(f"/labs/{lab}/figures.json?figures={figure}&s={encode_body(body)}")
    assert r.status_code == 200, r.text
    fig = r.json()["figures"][figure]
    assert LINK in grid_labels(fig)  # the grid shows the label exactly
    export = fig["export"]
    text = json.dumps(export, ensure_ascii=False)
    assert "<a" not in text
    # the look-alike, so the label still reads the same
    assert json.dumps(plain(LINK), ensure_ascii=False)[1:-1] in text
    assert plain(LINK) == '‹a href="x"›t‹/a›'
    go.Figure(data=export["data"], layout=export["layout"])  # a valid Plotly figure


def test_the_converter_makes_ticks_text_and_hover_plain() -> None:
    g = grid("a", "A", [[1.0]], rows=[LINK], cols=["k&0"], theme="light",
             text=[["<b>1</b>"]], hover=[["<i>h</i>"]])  # fmt: skip
    drawn = convert({"panels": [[{"grid": g}]]}, "light")
    text = json.dumps({"data": drawn["data"], "layout": drawn["layout"]}, ensure_ascii=False)
    for raw in ("<a", "<b>1", "<i>", "k&0"):
        assert raw not in text, raw
    assert g["rows"] == [LINK]  # the description itself is untouched
    assert plain([["<", 1.5, None]]) == [["‹", 1.5, None]]
