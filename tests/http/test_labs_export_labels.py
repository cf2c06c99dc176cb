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
from app.figures.to_plotly import convert, plain, with_export
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


def test_every_chart_text_meets_plotly_once_with_its_notation_set() -> None:
    """plotly_texts, the one place a chart's text becomes Plotly markup: names, cell and
    hover text, categories, axis titles, ticks and annotations get the notation as
    <sub>/<sup>; markup a label holds is escaped; the description's own tags stay."""
    chart = {
        "data": [{"type": "bar", "name": "crossover N = 2·d_model", "x": ["q_1", 2],
                  "y": [0.5, 1.0], "text": [["e^1.5"]], "customdata": ["W^Q & <a href='x'>"],
                  "hovertemplate": "%{customdata}<br>√d_k<extra>W^O</extra>"}],
        "layout": {"xaxis": {"title": {"text": "d_k"}, "ticktext": ["k_1"]},
                   "legend": {"title": {"text": "p_max"}},
                   "annotations": [{"text": "<b>masked</b>: e^−∞ = 0", "x": 0}]},
    }  # fmt: skip
    fig = with_export({"plot": chart, "grids": []}, "light")
    data, layout = fig["plot"]["data"][0], fig["plot"]["layout"]
    assert data["name"] == "crossover N = 2·d<sub>model</sub>"
    assert data["x"] == ["q<sub>1</sub>", 2]
    assert data["y"] == [0.5, 1.0]
    assert data["text"] == [["e<sup>1.5</sup>"]]
    assert data["customdata"] == ["W<sup>Q</sup> &amp; &lt;a href='x'&gt;"]
    assert data["hovertemplate"] == "%{customdata}<br>√d<sub>k</sub><extra>W<sup>O</sup></extra>"
    assert layout["xaxis"] == {"title": {"text": "d<sub>k</sub>"}, "ticktext": ["k<sub>1</sub>"]}
    assert layout["legend"]["title"]["text"] == "p<sub>max</sub>"
    assert layout["annotations"][0]["text"] == "<b>masked</b>: e<sup>−∞</sup> = 0"
    assert chart["data"][0]["name"] == "crossover N = 2·d_model"  # the description: untouched
    go.Figure(data=fig["plot"]["data"], layout=layout)  # still a valid Plotly figure


def test_a_main_chart_and_a_grid_name_get_their_notation_in_plotly() -> None:
    narrow = {"data": [{"name": "d_k"}], "layout": {}}
    drawn = convert({"data": [{"name": "W^Q"}], "layout": {}, "narrow": narrow}, "light")
    assert drawn["data"][0]["name"] == "W<sup>Q</sup>"
    assert drawn["narrow"]["data"][0]["name"] == "d<sub>k</sub>"  # the phone's variant too
    g = grid("w_q", "W^Q", [[1.0]], rows=["a"], cols=["b"], theme="light")
    panels = convert({"panels": [[{"grid": g}]]}, "light")
    assert panels["layout"]["annotations"][0]["text"].startswith("<b>W<sup>Q</sup></b>")
    assert panels["data"][0]["hovertemplate"].endswith("<extra>W<sup>Q</sup></extra>")
