"""Figures 4, 8 and 9: projections, A × V = Z, and one output row as a blend."""

from __future__ import annotations

import numpy as np
from figures_support import big, cross, figs, grids, no_nan, stages, validate


def test_figure_4_projection_derivations() -> None:
    fig = figs(stages())["figures"]["4"]
    validate(fig)
    rows = fig["panels"]
    # three products: X × W = result
    assert [[i["grid"]["grid"] for i in row if "grid" in i] for row in rows] == [
        ["x", "w_q", "q"], ["x", "w_k", "k"], ["x", "w_v", "v"],
    ]  # fmt: skip
    assert [[i.get("op") for i in row if "op" in i] for row in rows] == [["×", "="]] * 3
    q = grids(fig)["q"]
    assert q["hover"][0][0] == "q₁₁ = 0·0 + 0·0 + 1·1 + 1·1 = 2"
    assert q["text"] == [["2", "1", "0", "0"], ["1", "2", "0", "1"], ["1", "0", "1", "2"]]
    assert q["uses"] == [{"grid": "x", "row": "i", "col": None},
                         {"grid": "w_q", "row": None, "col": "j"}]  # fmt: skip
    assert grids(fig)["k"]["hover"][0][1] == "k₁₂ = 0·(−1) + 0·1 + 1·(−1) + 1·1 = 0"
    w_q = grids(fig)["w_q"]
    assert w_q["label"] == "W^Q"
    # −1 and 1 sit at opposite ends of one diverging scale centred on 0
    assert w_q["domain"] == [-1, 1]
    heat = [t for t in fig["data"] if t["type"] == "heatmap"]
    assert len(heat) == 9


def test_figure_4_cross_attention_uses_the_source() -> None:
    fig = figs(cross())["figures"]["4"]
    validate(fig)
    names = [[i["grid"]["grid"] for i in row if "grid" in i] for row in fig["panels"]]
    assert names == [["x", "w_q", "q"], ["source_x", "w_k", "k"], ["source_x", "w_v", "v"]]
    assert grids(fig)["source_x"]["shape"] == [4, 4]
    assert grids(fig)["x"]["shape"] == [2, 4]
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert "<b>S</b>  4 × 4" in titles
    assert "<b>K</b>  4 × 4" in titles


def test_figure_8_row_2_of_z() -> None:
    s = stages()
    fig = figs(s)["figures"]["8"]
    validate(fig)
    z = grids(fig)["output"]
    assert z["text"][1] == ["1.63", "0.14", "0.23", "0.63"]
    np.testing.assert_array_equal(np.asarray(z["values"]), s.head.output)
    assert fig["readout"][0].endswith("z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63")
    assert z["outline"] == {"rows": [1]}
    assert grids(fig)["weights"]["outline"] == {"rows": [1]}
    # Z's colours: a scale centred on 0, so 0 is the neutral middle colour
    assert z["domain"][0] == -z["domain"][1]
    outlined = [sh for sh in fig["layout"]["shapes"] if sh["type"] == "rect"]
    assert [(sh["y0"], sh["y1"]) for sh in outlined] == [(0.5, 1.5), (0.5, 1.5)]


def test_figure_8_focus_moves_the_outline() -> None:
    fig = figs(stages(), focus=0)["figures"]["8"]
    assert grids(fig)["output"]["outline"] == {"rows": [0]}
    assert fig["readout"][1] == "z_1 (I): 1.21, 0.58, 0.21, 0.21."


def test_figure_9_blend_and_bounds() -> None:
    fig = figs(stages())["figures"]["9"]
    validate(fig)
    assert fig["readout"][0] == (
        "z_2 (love) = 0.14·v_1 (I) + 0.63·v_2 (love) + 0.23·v_3 (LLMs) = (1.63, 0.14, 0.23, 0.63)"
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
    assert causal["readout"][0].startswith(
        "z_2 (love) = 0.18·v_1 (I) + 0.82·v_2 (love) + 0·v_3 (LLMs)"
    )


def test_rows_figures_at_64_tokens_and_two_heads() -> None:
    for s, view in ((big(), {"focus": 63}), (stages(heads=2), {"head": 1})):
        out = figs(s, **view)
        for n in ("4", "8", "9"):
            validate(out["figures"][n])
            no_nan(out["figures"][n])
    two = figs(stages(heads=2), head=1)["figures"]
    assert "head 2 of 2" in two["8"]["title"]
    assert "head 2 of 2" in two["4"]["caption"]


def test_figure_11_shows_a_concrete_cross_attention_beside_self_attention() -> None:
    fig = figs(stages())["figures"]["11"]
    validate(fig)
    g = grids(fig)
    assert g["weights"]["shape"] == [3, 3]
    cross_w = g["cross.weights"]
    assert cross_w["shape"] == [3, 4]
    # FIGURES.md's suggested source (the rows of X plus (1, 1, 0, 1)), now a sequence of
    # its own, a translation's French source with its own rows S; rows 1-2 are its numbers
    assert cross_w["text"][:2] == [["0.51", "0.19", "0.19", "0.11"],
                                   ["0.10", "0.46", "0.17", "0.28"]]  # fmt: skip
    assert cross_w["cols"] == ["J'", "aime", "les", "LLM"]
    assert g["cross.source_x"]["rows"] == ["J'", "aime", "les", "LLM"]
    assert g["cross.source_x"]["values"][3] == [1, 1, 0, 1]
    readout = fig["readout"][0]
    assert "the French source J'aime les LLM (4 tokens, its own rows S)" in readout
    assert "3 × 4 (not square)" in readout
    assert readout not in fig["caption"]  # the caption is not repeated as a bullet
    now_cross = figs(cross())["figures"]["11"]
    g2 = grids(now_cross)
    assert g2["weights"]["shape"] == [2, 4]
    assert g2["self.weights"]["shape"] == [2, 2]


def test_figure_8_shows_heads_concat_w_o_and_the_final_output() -> None:
    w_o = [[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, -1, 1], [1, 0, 0, 0]]
    s = stages(heads=2, w_o=np.array(w_o, dtype=float))
    fig = figs(s)["figures"]["8"]
    validate(fig)
    g = grids(fig)
    assert {"heads.0.weights", "heads.1.weights", "concat", "w_o", "final"} <= set(g)
    np.testing.assert_allclose(np.asarray(g["final"]["values"]), s.output)
    np.testing.assert_allclose(np.asarray(g["concat"]["values"]), s.concat)
    assert g["final"]["hover"][0][0].startswith("o₁₁ = ")
    assert g["concat"]["hover"][0][2].startswith("head 2's z₁₁")
    assert any("2 heads" in line and "W^O" in line for line in fig["readout"])
    assert "concat" not in grids(figs(stages())["figures"]["8"])  # one head: nothing extra
