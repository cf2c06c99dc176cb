"""The export files the page's and the labs' buttons download: /api/v1/export/figures.html,
/api/v1/export/figure.svg, /api/v1/labs/{id}/export.html and export.svg. One copy of
plotly.js per file (none without a chart), grids as SVG, errors naming the parameter."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from fastapi.testclient import TestClient

from app.figures.registry import FIGURES

PLOTLY = "plotly.js (cartesian - minified)"


def sections(html: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', html)


def test_one_figure_is_one_file_with_its_svg_and_no_plotly(client: TestClient) -> None:
    r = client.get("/api/v1/export/figures.html?preset=causal&figures=7&theme=dark")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert 'filename="attention-lab-causal-fig7.html"' in r.headers["content-disposition"]
    assert sections(r.text) == ["fig-7"]
    assert PLOTLY not in r.text
    assert "<script" not in r.text
    assert r.text.count("<svg") == 1
    assert "#1b1b1b" in r.text
    assert "/?preset=causal&amp;theme=dark#fig-7" in r.text  # how to reopen it


def test_every_figure_shares_one_plotly(client: TestClient) -> None:
    r = client.get("/api/v1/export/figures.html?preset=i-love-llms")
    assert r.status_code == 200
    assert sections(r.text) == [f"fig-{n}" for n in range(1, 14)]
    assert r.text.count(PLOTLY) == 1
    assert r.text.count('class="plot"') == 4  # Figures 5, 10, 12, 13
    assert "showSendToCloud" in r.text
    assert '"showSendToCloud":false' in r.text
    assert "every pair at once" in r.text  # Figure 1's own drawing
    # every chart with a phone variant keeps it (the registry's list: 5, 10, 12, 13)
    assert r.text.count('"narrow":{') == sum(1 for f in FIGURES if f.narrow)


def test_a_grid_figure_as_svg(client: TestClient) -> None:
    r = client.get("/api/v1/export/figure.svg?preset=i-love-llms&figure=9")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(r.text)
    assert float(root.get("width", 0)) > 0
    assert float(root.get("height", 0)) > 0
    assert "1.63" in r.text
    assert "smallest in V" in r.text


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/export/figure.svg?preset=causal&figure=12", "figure"),
        ("/api/v1/export/figure.svg?preset=causal&figure=1", "figure"),
        ("/api/v1/export/figure.svg?preset=causal&figure=3,7", "figure"),
        ("/api/v1/export/figure.svg?preset=nope&figure=7", "preset"),
        ("/api/v1/export/figures.html?preset=causal&figures=0", "figures"),
        ("/api/v1/export/figures.html?preset=causal&focus=9", "focus"),
        ("/api/v1/labs/masks/export.html?figures=nope", "figures"),
        ("/api/v1/labs/masks/export.html?bogus=1", "bogus"),
        ("/api/v1/labs/why-scale/export.svg?figures=flat-line", "figures"),
        ("/api/v1/labs/masks/export.svg", "figures"),
    ],
)
def test_bad_requests_name_the_parameter(client: TestClient, url: str, field: str) -> None:
    r = client.get(url)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field


def test_an_unknown_lab_is_404(client: TestClient) -> None:
    r = client.get("/api/v1/labs/alchemy/export.html")
    assert r.status_code == 404
    assert r.json()["detail"][0]["field"] == "lab_id"


def test_a_lab_in_one_file_and_one_section(client: TestClient) -> None:
    whole = client.get("/api/v1/labs/masks/export.html")
    assert whole.status_code == 200
    assert sections(whole.text) == ["mask-kinds", "mask-order", "empty-row"]
    assert whole.text.count(PLOTLY) == 1
    one = client.get("/api/v1/labs/masks/export.html?figures=mask-kinds&theme=dark")
    assert sections(one.text) == ["mask-kinds"]
    assert PLOTLY not in one.text
    assert 'filename="attention-lab-masks-mask-kinds.html"' in one.headers["content-disposition"]
    svg = client.get("/api/v1/labs/masks/export.svg?figures=mask-kinds")
    assert svg.status_code == 200
    assert svg.text.startswith("<svg")
    assert "D1. Kinds of mask" in svg.text
