"""Figures 4, 8 and 9: projections, A × V = Z, and one output row as a blend."""

from __future__ import annotations

import numpy as np
from figures_support import big, cross, figs, no_nan, stages, validate


def test_figure_4_projection_derivations() -> None:
    fig = figs(stages())["figures"]["4"]
    validate(fig)
    q_index = next(k for k, v in fig["derivations"].items() if v[0][0].startswith("q₁₁"))
    q = fig["derivations"][q_index]
    assert q[0][0] == "q₁₁ = 0·0 + 0·0 + 1·1 + 1·1 = 2"
    assert fig["data"][int(q_index)]["text"] == [
        ["2", "1", "0", "0"],
        ["1", "2", "0", "1"],
        ["1", "0", "1", "2"],
    ]
    # one subplot per row: X, W, result heatmaps, then a text trace naming them
    assert [t["type"] for t in fig["data"]] == ["heatmap", "heatmap", "heatmap", "scatter"] * 3
    names = [s for t in fig["data"] if t["type"] == "scatter" for s in t["text"] if "×" in s]
    assert sum(s.endswith("3 × 4") for s in names) == 6
    assert names.count("×") == 3
    assert fig["derivations"]["6"][0][1] == "k₁₂ = 0·(-1) + 0·1 + 1·(-1) + 1·1 = 0"


def test_figure_4_cross_attention_uses_the_source() -> None:
    fig = figs(cross())["figures"]["4"]
    validate(fig)
    names = [s for t in fig["data"] if t["type"] == "scatter" for s in t["text"]]
    assert "<b>S</b>  4 × 4" in names
    assert "<b>X</b>  2 × 4" in names
    assert "<b>K</b>  4 × 4" in names


def test_figure_8_row_2_of_z() -> None:
    s = stages()
    fig = figs(s)["figures"]["8"]
    validate(fig)
    assert fig["data"][2]["text"][1] == ["1.63", "0.14", "0.23", "0.63"]
    np.testing.assert_array_equal(np.asarray(fig["data"][2]["z"]), s.head.output)
    assert fig["readout"][0].endswith("z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63")
    outlined = [sh for sh in fig["layout"]["shapes"] if sh["type"] == "rect"]
    assert [(sh["y0"], sh["y1"]) for sh in outlined] == [(0.5, 1.5), (0.5, 1.5)]


def test_figure_8_focus_moves_the_outline() -> None:
    fig = figs(stages(), focus=0)["figures"]["8"]
    assert fig["layout"]["shapes"][0]["y0"] == -0.5
    assert fig["readout"][1] == "Row 1 of Z (I): 1.21, 0.58, 0.21, 0.21."


def test_figure_9_blend_and_bounds() -> None:
    fig = figs(stages())["figures"]["9"]
    validate(fig)
    assert fig["readout"][0] == (
        "z(love) = 0.14·v(I) + 0.63·v(love) + 0.23·v(LLMs) = (1.63, 0.14, 0.23, 0.63)"
    )
    assert "63 % of its own value" in fig["readout"][2]
    assert "37 %" in fig["readout"][2]
    assert fig["tables"][0]["cells"][0] == ["1", "1.63", "2"]
    assert "All 4 entries lie between" in fig["readout"][3]


def test_figure_9_cross_and_causal() -> None:
    f9 = figs(cross())["figures"]["9"]
    assert f9["readout"][0].endswith("= (1.73, 0.10, 0.44, 0.73)")
    assert not any("own value" in line for line in f9["readout"])
    causal = figs(stages(mask="causal"), focus=1)["figures"]["9"]
    assert causal["readout"][0].startswith("z(love) = 0.18·v(I) + 0.82·v(love) + 0·v(LLMs)")


def test_rows_figures_at_64_tokens_and_two_heads() -> None:
    for s, view in ((big(), {"focus": 63}), (stages(heads=2), {"head": 1})):
        out = figs(s, **view)
        for n in ("4", "8", "9"):
            validate(out["figures"][n])
            no_nan(out["figures"][n])
    two = figs(stages(heads=2), head=1)["figures"]
    assert "head 2 of 2" in two["8"]["title"]
    assert "head 2 of 2" in two["4"]["caption"]
