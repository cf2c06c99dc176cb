"""Figure 12: softmax saturation through the engine's softmax_stage."""

from __future__ import annotations

from figures_support import big, figs, no_nan, stages, validate


def test_textbook_row_saturates_at_8() -> None:
    fig = figs(stages())["figures"]["12"]
    validate(fig)
    # one precision on both sides (4 decimals): 0.09, 0.24, 0.67 to 2, as the tutorial prints
    assert fig["data"][0]["text"] == ["0.0900", "0.2447", "0.6652"]
    # the chapter prints 0.0000; the weight is 1.1e-7: tiny, not zero
    assert fig["data"][1]["text"] == ["1.1 × 10⁻⁷", "0.0003", "0.9997"]
    assert fig["readout"][0] == (
        "[1, 2, 3] gives [0.0900, 0.2447, 0.6652]; × 8 gives [8, 16, 24] and "
        "[1.1 × 10⁻⁷, 0.0003, 0.9997]."
    )
    assert any(line.startswith("× 8 is √64: ") for line in fig["readout"])
    # both charts draw weights, and their titles say so (not "scores as they are")
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert titles == ["<b>weights of</b><br>the scores", "<b>weights of</b><br>scores × 8"]
    assert fig["data"][0]["marker"]["color"] == fig["data"][1]["marker"]["color"]
    assert fig["layout"]["xaxis"]["ticktext"] == ["score 1", "score 2", "score 3"]
    assert "p(1 − p): 0.2227 → 0.0003" in fig["readout"][1]
    assert "0.6652 to 0.9997" in fig["caption"]


def test_stretch_1_says_unchanged_not_a_false_change() -> None:
    fig = figs(stages(), stretch=1.0)["figures"]["12"]
    assert fig["readout"][0] == (
        "× 1 leaves the scores [1, 2, 3] as they are, so the weights are unchanged: "
        "[0.0900, 0.2447, 0.6652]."
    )
    assert "→" not in fig["readout"][1]  # it used to read "0.67 → 0.6652"
    assert fig["readout"][1] == "Largest weight p: 0.6652. Entropy: 1.2009 bits. p(1 − p): 0.2227."
    assert fig["data"][0]["text"] == fig["data"][1]["text"]
    assert fig["caption"].endswith("At this stretch the weights do not change.")
    # a causal first row has one allowed key: any stretch leaves its weight at 1
    one = figs(stages(mask="causal"), softmax_row="focus", focus=0)["figures"]["12"]
    assert "only one key is allowed, and its weight is 1 at any stretch" in one["readout"][0]


def test_stretch_and_focus_row_are_live() -> None:
    fig = figs(stages(), softmax_row="focus", stretch=2.0)["figures"]["12"]
    assert fig["data"][0]["text"] == ["0.1402", "0.6285", "0.2312"]
    assert fig["derivations"]["0"][0] == [
        "e^1 / 19.382 = 2.718 / 19.382 = 0.1402",
        "e^2.5 / 19.382 = 12.182 / 19.382 = 0.6285",
        "e^1.5 / 19.382 = 4.482 / 19.382 = 0.2312",
    ]
    assert "× 2 gives [2, 5, 3]" in fig["readout"][0]
    assert any(line.startswith("× 2 is √4: ") for line in fig["readout"])
    assert "love (row 2)" in fig["caption"]
    assert fig["tables"][0]["row_headers"] == ["I", "love", "LLMs"]


def test_blocked_and_large_rows() -> None:
    causal = figs(stages(mask="causal"), softmax_row="focus", focus=0)["figures"]["12"]
    assert causal["data"][1]["text"] == ["1", "0", "0"]
    assert causal["readout"][0].startswith("× 8 gives [16, −∞, −∞], but only one key")
    no_nan(causal)
    large = figs(big(), softmax_row="focus", focus=3, stretch=16)["figures"]["12"]
    validate(large)
    no_nan(large)
    assert any("−" in d for d in large["derivations"]["1"][0])  # the shift is stated
