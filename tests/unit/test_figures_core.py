"""Figures 6 and 7, the response shape, views out of range, exact number text (what app/figures
may import is tests/unit/test_layers.py's)."""

from __future__ import annotations

import numpy as np
import pytest
from figures_support import big, cross, figs, grids, no_nan, ops, stages, validate

from app.figures import View, build_figures
from app.figures.fmt import exact


def test_response_shape_and_every_figure_validates() -> None:
    out = figs(stages())
    assert set(out) == {"figures", "tokens", "key_tokens", "warnings", "announce"}
    assert out["announce"] == "Weights updated: love attends 0.63 to itself."
    for key, fig in out["figures"].items():
        assert fig["number"] == int(key)
        for field in (
            "title",
            "caption",
            "readout",
            "alt",
            "data",
            "layout",
            "config",
            "tables",
            "frames",
        ):
            assert field in fig, (key, field)
        assert fig["caption"]
        assert fig["alt"]
        validate(fig)
        no_nan(fig)


def test_figure_6_values_are_full_precision_weights_and_text_is_2dp() -> None:
    s = stages()
    fig = figs(s)["figures"]["6"]
    a = grids(fig)["weights"]
    np.testing.assert_array_equal(np.asarray(a["values"]), s.head.weights)
    assert a["text"] == [
        ["0.58", "0.21", "0.21"],
        ["0.14", "0.63", "0.23"],
        ["0.23", "0.14", "0.63"],
    ]
    assert a["domain"] == [0, 1]
    assert a["outline"] == {"rows": [1]}
    assert a["hover"][1] == [
        "e^1 / 19.382 = 2.718 / 19.382 = 0.14",
        "e^2.5 / 19.382 = 12.182 / 19.382 = 0.63",
        "e^1.5 / 19.382 = 4.482 / 19.382 = 0.23",
    ]
    assert fig["readout"][0] == (
        "love gives 0.63 of its attention to itself, 0.23 to LLMs, 0.14 to I."
    )
    assert fig["readout"][1] == (
        "Softmax of love (row 2): e^1 + e^2.5 + e^1.5 = 2.718 + 12.182 + 4.482 = 19.382."
    )
    diagonal = next(line for line in fig["readout"] if "diagonal" in line)
    assert "not a rule" in diagonal
    assert any("not symmetric" in line and "0.23" in line and "0.14" in line
               for line in fig["readout"])  # fmt: skip
    assert fig["tables"][0]["cells"][1] == ["0.14", "0.63", "0.23"]
    # the converter: the same numbers as a Plotly heatmap, outlined focus row
    trace = fig["data"][0]
    assert trace["type"] == "heatmap"
    assert trace["text"] == a["text"]
    assert (trace["zmin"], trace["zmax"]) == (0, 1)
    assert [(sh["y0"], sh["y1"]) for sh in fig["layout"]["shapes"]] == [(0.5, 1.5)]


def test_figure_7_divisor_follows_scaling_and_heads() -> None:
    fig = figs(stages())["figures"]["7"]
    g = grids(fig)
    assert ops(fig) == ["÷ 2", "softmax per row"]
    assert g["scaled"]["hover"][1] == ["2 ÷ 2 = 1", "5 ÷ 2 = 2.5", "3 ÷ 2 = 1.5"]
    assert g["scores"]["hover"][1][2] == "q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3"
    assert g["scores"]["hover"][2][1] == "q₃·k₂ = 1·0 + 0·2 + 1·0 + 2·1 = 2"
    assert any("keeps the order" in line for line in fig["readout"])
    off = figs(stages(scale=False))["figures"]["7"]
    assert ops(off)[0] == "÷ 1 (scaling off)"
    assert "divisor is 1" in off["caption"]
    assert grids(off)["weights"]["text"][1] == ["0.04", "0.84", "0.11"]
    assert "÷ 1" in figs(stages(scale=False))["figures"]["6"]["caption"]
    assert "÷ √2), head 1 of 2" in figs(stages(heads=2))["figures"]["6"]["caption"]
    two = figs(stages(heads=2), head=1)["figures"]["7"]
    assert "√2" in ops(two)[0]
    assert "head 2 of 2" in two["title"]


def test_causal_shows_minus_infinity_then_zero() -> None:
    out = figs(stages(mask="causal"))
    f7 = out["figures"]["7"]
    g = grids(f7)
    assert g["masked"]["text"][0] == ["2", "−∞", "−∞"]
    assert g["masked"]["values"][0][1] is None
    assert g["masked"]["color"][0][1] == -1
    assert g["weights"]["text"][0] == ["1", "0", "0"]
    assert g["weights"]["text"][1] == ["0.18", "0.82", "0"]
    assert "causal mask" in f7["caption"]
    assert "−∞" in g["masked"]["hover"][0][2]
    assert f7["data"][1]["z"][0][1] is None  # converted: a gap


def test_cross_attention_is_2_by_4_everywhere() -> None:
    out = figs(cross())
    a = grids(out["figures"]["6"])["weights"]
    assert a["shape"] == [2, 4]
    assert a["text"] == [
        ["0.51", "0.19", "0.19", "0.11"],
        ["0.10", "0.46", "0.17", "0.28"],
    ]
    assert "itself" not in out["figures"]["6"]["readout"][0]
    for g in grids(out["figures"]["7"]).values():
        assert g["shape"] == [2, 4]


def test_fully_blocked_row_warns_and_stays_zero() -> None:
    allowed = np.array([[False] * 3, [True] * 3, [True] * 3])
    out = figs(stages(allowed=allowed), focus=0)
    assert out["warnings"]
    f6 = out["figures"]["6"]
    assert grids(f6)["weights"]["text"][0] == ["0", "0", "0"]
    assert "no key" in f6["readout"][0]
    no_nan(out)


def test_64_tokens_draw_blocks_without_text() -> None:
    out = figs(big(), focus=10)
    for n in ("6", "7"):
        fig = out["figures"][n]
        validate(fig)
        no_nan(fig)
        for g in grids(fig).values():
            assert g["text"] is None
            assert g["hover"] is None
            assert len(g["values"]) == 64
        assert "texttemplate" not in fig["data"][0]


def test_lean_build_has_no_plotly_for_grid_figures() -> None:
    out = build_figures(stages(), View(), plotly=False)
    for n in ("3", "4", "6", "7", "8"):
        assert out["figures"][n]["panels"]
        assert out["figures"][n]["data"] == []
    assert out["figures"]["12"]["data"]  # charts stay Plotly


def test_view_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"view\.focus"):
        build_figures(stages(), View(focus=3))


@pytest.mark.parametrize(
    ("value", "text"),
    [(2.0, "2"), (-1.0, "-1"), (0.1, "0.1"), (1e-7, "1e-7"), (1e-6, "0.000001"),
     (1.5e-7, "1.5e-7"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
     (2.0**64, "18446744073709552000"), (-0.25, "-0.25"), (1 / 3, "0.3333333333333333")],
)  # fmt: skip
def test_exact_writes_numbers_as_javascript_string_does(value: float, text: str) -> None:
    # The expected texts are what node prints for String(value).
    assert exact(value) == text
    assert float(text) == value
