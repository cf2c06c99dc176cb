"""Figure 12: softmax saturation through the engine's softmax_stage."""

from __future__ import annotations

from figures_support import big, figs, no_nan, stages, validate


def test_textbook_row_saturates_at_8() -> None:
    fig = figs(stages())["figures"]["12"]
    validate(fig)
    assert fig["data"][0]["text"] == ["0.09", "0.24", "0.67"]
    # the chapter prints 0.0000; the weight is 1.1e-7: tiny, not zero
    assert fig["data"][1]["text"] == ["1.1 × 10⁻⁷", "0.0003", "0.9997"]
    assert fig["readout"][0] == (
        "[1, 2, 3] gives [0.09, 0.24, 0.67]; × 8 gives [8, 16, 24] and "
        "[1.1 × 10⁻⁷, 0.0003, 0.9997]."
    )
    assert any(line.startswith("× 8 is √64: ") for line in fig["readout"])
    assert "× 8 (= √64)" in fig["layout"]["annotations"][1]["text"]
    assert fig["layout"]["xaxis"]["ticktext"] == ["score 1", "score 2", "score 3"]
    assert "p(1 − p): 0.22 → 0.0003" in fig["readout"][1]
    assert "0.67 to 0.9997" in fig["caption"]


def test_stretch_and_focus_row_are_live() -> None:
    fig = figs(stages(), softmax_row="focus", stretch=2.0)["figures"]["12"]
    assert fig["data"][0]["text"] == ["0.14", "0.63", "0.23"]
    assert fig["derivations"]["0"][0] == [
        "e^1 / 19.382 = 2.718 / 19.382 = 0.14",
        "e^2.5 / 19.382 = 12.182 / 19.382 = 0.63",
        "e^1.5 / 19.382 = 4.482 / 19.382 = 0.23",
    ]
    assert "× 2 gives [2, 5, 3]" in fig["readout"][0]
    assert any(line.startswith("× 2 is √4: ") for line in fig["readout"])
    assert "row 2 (love)" in fig["caption"]
    assert fig["tables"][0]["row_headers"] == ["I", "love", "LLMs"]


def test_blocked_and_large_rows() -> None:
    causal = figs(stages(mask="causal"), softmax_row="focus", focus=0)["figures"]["12"]
    assert causal["data"][1]["text"] == ["1", "0", "0"]
    assert causal["readout"][0].startswith("[2, −∞, −∞] gives [1, 0, 0]")
    no_nan(causal)
    large = figs(big(), softmax_row="focus", focus=3, stretch=16)["figures"]["12"]
    validate(large)
    no_nan(large)
    assert any("−" in d for d in large["derivations"]["1"][0])  # the shift is stated
