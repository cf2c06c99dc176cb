"""Figures 6 and 7, the response shape, and the purity of app/figures."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
from figures_support import big, cross, figs, no_nan, stages, validate

from app.figures import View, build_figures

FIGURES_DIR = pathlib.Path(__file__).parents[2] / "app" / "figures"
WEB = {"fastapi", "starlette", "pydantic", "jinja2", "plotly", "uvicorn", "httpx", "orjson"}


def test_app_figures_imports_no_web_library() -> None:
    for path in FIGURES_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top not in WEB, f"{path.name} imports {name}"
                if top == "app":
                    assert name.startswith(("app.attention", "app.figures")), name


def test_response_shape_and_every_figure_validates() -> None:
    out = figs(stages())
    assert set(out) == {"figures", "tokens", "key_tokens", "warnings", "announce"}
    assert out["announce"] == "Weights updated: love attends 0.63 to itself."
    for key, fig in out["figures"].items():
        assert fig["number"] == int(key)
        for field in ("title", "caption", "readout", "alt", "data", "layout", "config",
                      "tables", "frames"):  # fmt: skip
            assert field in fig, (key, field)
        assert fig["caption"]
        assert fig["alt"]
        validate(fig)
        no_nan(fig)


def test_figure_6_z_is_full_precision_weights_and_text_is_2dp() -> None:
    s = stages()
    fig = figs(s)["figures"]["6"]
    trace = fig["data"][0]
    assert trace["type"] == "heatmap"
    np.testing.assert_array_equal(np.asarray(trace["z"]), s.head.weights)
    assert trace["text"] == [["0.58", "0.21", "0.21"], ["0.14", "0.63", "0.23"],
                             ["0.23", "0.14", "0.63"]]  # fmt: skip
    assert trace["zmin"] == 0
    assert trace["zmax"] == 1
    assert fig["derivations"]["0"][1] == [
        "e^1 / 19.382 = 0.14",
        "e^2.5 / 19.382 = 0.63",
        "e^1.5 / 19.382 = 0.23",
    ]
    assert fig["readout"][0] == (
        "love gives 0.63 of its attention to itself, 0.23 to LLMs, 0.14 to I."
    )
    assert any("diagonal" in line for line in fig["readout"])
    assert fig["tables"][0]["cells"][1] == ["0.14", "0.63", "0.23"]


def test_figure_6_diagonal_sentence_only_when_true() -> None:
    # rows 1 and 2 of X are identical, so token 2's largest weight cannot sit only on
    # its own diagonal cell and token 1 looks mostly at token 3
    x = np.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0], [0, 0, 1.0, 0]])
    w_k = np.eye(4)
    w_q = np.array([[0, 0, 5.0, 0], [0] * 4, [5.0, 0, 0, 0], [0] * 4])
    fig = figs(stages(x=x, w_q=w_q, w_k=w_k))["figures"]["6"]
    assert not any("diagonal" in line for line in fig["readout"])


def test_figure_7_divisor_follows_scaling_and_heads() -> None:
    fig = figs(stages())["figures"]["7"]
    assert "÷ 2" in fig["layout"]["annotations"][1]["text"]
    assert fig["derivations"]["1"][1] == ["2 ÷ 2 = 1", "5 ÷ 2 = 2.5", "3 ÷ 2 = 1.5"]
    assert fig["derivations"]["0"][1][2] == "q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3"
    assert fig["derivations"]["0"][2][1] == "q₃·k₂ = 1·0 + 0·2 + 1·0 + 2·1 = 2"
    off = figs(stages(scale=False))["figures"]["7"]
    assert "÷ 1" in off["layout"]["annotations"][1]["text"]
    assert "divisor is 1" in off["caption"]
    assert off["data"][2]["text"][1] == ["0.04", "0.84", "0.11"]
    two = figs(stages(heads=2), head=1)["figures"]["7"]
    assert "√2" in two["layout"]["annotations"][1]["text"]
    assert "head 2 of 2" in two["title"]


def test_causal_shows_minus_infinity_then_zero() -> None:
    out = figs(stages(mask="causal"))
    f7 = out["figures"]["7"]
    assert f7["data"][1]["text"][0] == ["2", "−∞", "−∞"]
    assert f7["data"][1]["z"][0][1] is None
    assert f7["data"][2]["text"][0] == ["1", "0", "0"]
    assert f7["data"][2]["text"][1] == ["0.18", "0.82", "0"]
    assert "causal mask" in f7["caption"]
    assert "−∞" in f7["derivations"]["1"][0][2]


def test_cross_attention_is_2_by_4_everywhere() -> None:
    out = figs(cross())
    f6 = out["figures"]["6"]
    assert np.asarray(f6["data"][0]["z"]).shape == (2, 4)
    assert f6["data"][0]["text"] == [["0.51", "0.19", "0.19", "0.11"],
                                     ["0.10", "0.46", "0.17", "0.28"]]  # fmt: skip
    assert "itself" not in f6["readout"][0]
    for trace in out["figures"]["7"]["data"]:
        assert len(trace["text"]) == 2
        assert len(trace["text"][0]) == 4


def test_fully_blocked_row_warns_and_stays_zero() -> None:
    allowed = np.array([[False] * 3, [True] * 3, [True] * 3])
    out = figs(stages(allowed=allowed), focus=0)
    assert out["warnings"]
    f6 = out["figures"]["6"]
    assert f6["data"][0]["text"][0] == ["0", "0", "0"]
    assert "no key" in f6["readout"][0]
    no_nan(out)


def test_64_tokens_hide_cell_text_but_keep_hover() -> None:
    out = figs(big(), focus=10)
    for n in ("6", "7"):
        fig = out["figures"][n]
        validate(fig)
        no_nan(fig)
        trace = fig["data"][0]
        assert "texttemplate" not in trace
        assert len(trace["customdata"]) == 64
    deriv = out["figures"]["7"]["derivations"]["0"][0][0]
    assert "more)" in deriv
    assert len(deriv) < 160


def test_view_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"view\.focus"):
        build_figures(stages(), View(focus=3))
