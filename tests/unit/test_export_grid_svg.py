"""The SVG writer of exported grid figures (app/export/grid_svg.py): laid out from its
content, so no text box overlaps another or leaves the picture, in every grid figure and
lab grid figure, light and dark, small, masked, multi-head, cross, wide-label and big states.
The boxes are the writer's own estimates; tests/browser/test_export_text_boxes.py measures
the same pictures in Chromium."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest
from engine_spec import arr
from figures_support import big, cross, figs, stages

from app.attention import Stages
from app.export.grid_svg import Picture, figure_svg, lab_svg
from app.export.text_metrics import shorten, text_width, wrap
from app.figures.labs import LABS, FigureContext
from app.figures.style import theme as theme_named
from app.http.lab_export import ask_for
from app.http.lab_state import build_one
from app.presets import RUNNING_EXAMPLE as R
from app.settings import get_settings

GRID_FIGURES = (3, 4, 6, 7, 8, 9, 11)
SVG = "{http://www.w3.org/2000/svg}"


def wide_labels() -> Stages:
    """Long and East Asian token names: the widest headers a state can have."""
    return stages(tokens=("我喜欢大型语言模型", "supercalifragilistic", "LLMs"))


def masked() -> Stages:
    return stages(mask="causal")


STATES = {"running": lambda: stages(), "causal": masked, "cross": cross,
          "wide labels": wide_labels, "big": lambda: big(40, 12)}  # fmt: skip


def check(picture: Picture) -> None:
    """No two text boxes overlap; every box is inside the picture; the SVG parses."""
    boxes = picture.boxes
    for i, a in enumerate(boxes):
        assert min(a.x, a.y) >= 0, a
        assert a.x + a.w <= picture.width, a
        assert a.y + a.h <= picture.height, a
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), (a, b)
    root = ET.fromstring(picture.svg)
    assert root.tag == f"{SVG}svg"
    assert float(root.get("width", 0)) == pytest.approx(picture.width, abs=0.1)


@pytest.mark.slow  # every state's every grid drawn and measured: 35 s of the fast loop
@pytest.mark.parametrize("state", sorted(STATES))
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_grid_figures_have_no_overlapping_or_clipped_text(state: str, theme: str) -> None:
    s = STATES[state]()
    built = figs(s, theme=theme, figures=GRID_FIGURES)["figures"]
    for n in GRID_FIGURES:
        for framed in (True, False):
            check(figure_svg(built[str(n)], theme, framed=framed))


def texts(picture: Picture) -> list[str]:
    return [b.text for b in picture.boxes]


def test_figure_9_prints_every_number_and_label_whole() -> None:
    fig = figs(stages(), figures=(9,))["figures"]["9"]
    picture = figure_svg(fig, "light")
    shown = texts(picture)
    for label in ("1.63", "smallest in V", "largest in V", "0.63 · v₂ (love)", "z₂ (love)"):
        assert label in shown
    assert "Figure 9. One output row as a blend" in shown


def test_figure_7_draws_its_arrows_with_their_labels_and_hatches_blocked_cells() -> None:
    fig = figs(masked(), figures=(7,))["figures"]["7"]
    picture = figure_svg(fig, "light")
    arrows = [i["arrow"] for row in fig["panels"] for i in row if "arrow" in i]
    assert arrows
    assert all(a in texts(picture) for a in arrows)
    assert picture.svg.count("url(#fig-7-svg-hatch)") >= 4  # three blocked cells + legend
    assert "hatched: a blocked (masked) cell" in texts(picture)
    assert "−∞" in texts(picture)


def test_the_picture_follows_its_content() -> None:
    small = figure_svg(figs(stages(), figures=(6,))["figures"]["6"], "light")
    wide = figure_svg(figs(stages(), figures=(9,))["figures"]["9"], "light")
    assert small.width < wide.width  # no forced 1600 × 900
    assert (small.width, small.height) != (800, 450)
    long = figure_svg(figs(wide_labels(), figures=(6,))["figures"]["6"], "light", framed=False)
    short = figure_svg(figs(stages(), figures=(6,))["figures"]["6"], "light", framed=False)
    assert long.width > short.width  # wider headers, wider columns


def test_big_grids_are_blocks_with_thinned_headers() -> None:
    fig = figs(big(40, 12), figures=(6,))["figures"]["6"]
    picture = figure_svg(fig, "light")
    shown = texts(picture)
    assert "t0" in shown
    assert sum(t.startswith("t") and t[1:].isdigit() for t in shown) < 60
    assert len(re.findall(r"<rect ", picture.svg)) >= 40 * 40


def test_superscripts_and_escaping() -> None:
    fig = figs(stages(), figures=(4,))["figures"]["4"]
    fig["panels"][0][0]["grid"]["rows"][0] = "<b>&"  # a description's text is only text
    fig["title"] = 'Projections "of" <X>'
    picture = figure_svg(fig, "light")
    assert "<b>" not in picture.svg
    assert "&lt;b&gt;&amp;" in picture.svg
    assert "&lt;X&gt;" in picture.svg
    assert re.search(r"W<tspan dy=\"-[\d.]+\" font-size=\"[\d.]+\">Q</tspan>", picture.svg)
    ET.fromstring(picture.svg)


def lab_grid_figures(theme: str) -> list[dict[str, Any]]:
    """Every lab figure drawn with number grids, built as the lab API builds it."""
    out = []
    for lab in LABS:
        ask = ask_for(lab, query={"theme": theme}, settings=get_settings())
        for f in lab.figures:
            fig = build_one(lab, f, ask.state, theme, ask.settings)
            if fig.get("grids"):
                out.append(fig)
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_lab_grid_figures_have_no_overlapping_or_clipped_text(theme: str) -> None:
    figures = lab_grid_figures(theme)
    assert len(figures) >= 8
    for fig in figures:
        check(lab_svg(fig, theme))
        check(lab_svg(fig, theme, framed=False))


def test_text_metrics_wrap_and_shorten() -> None:
    assert text_width("W", 10) > text_width("i", 10) > 0
    assert text_width("语", 10) == pytest.approx(10 * 1.04)
    assert text_width("e\u0301", 10) == text_width("e", 10)  # a combining accent is free
    assert text_width("ab", 10, mono=True) == pytest.approx(2 * 6.02 * 1.04)
    lines = wrap("a b " + "x" * 80, 100, 12)
    assert lines[0] == "a b"
    assert all(text_width(x, 12) <= 100 for x in lines)
    assert shorten("a" * 200, 50, 12).endswith("…")
    assert shorten("abc", 50, 12) == "abc"
    assert FigureContext(theme=theme_named("light")).theme.name == "light"
    assert np.array_equal(arr(R["x"]), np.asarray(R["x"], dtype=float))


def test_the_caption_sets_its_notation_as_scripts_not_as_underscores() -> None:
    """Figure 9's caption names z_2 (love): the SVG draws z with a lowered, smaller 2."""
    fig = figs(stages(), figures=(9,))["figures"]["9"]
    assert "z_2 (love)" in fig["caption"]
    svg = figure_svg(fig, "light").svg
    drawn = re.findall(r"<text[^>]*>(.*?)</text>", svg)  # (the <desc> keeps the words)
    assert not [t for t in drawn if "z_2" in t]
    assert re.search(r'z<tspan dy="[\d.]+" font-size="[\d.]+">2</tspan>', svg)
