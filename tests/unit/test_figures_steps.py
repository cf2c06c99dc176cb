"""Figure 3 (the stepper) and the diagrams 5, 10, 11, 13."""

from __future__ import annotations

import numpy as np
import pytest
from figures_support import big, cross, figs, grids, no_nan, stages, validate


def test_figure_3_steps_for_the_running_example() -> None:
    fig = figs(stages())["figures"]["3"]
    validate(fig)
    steps = fig["steps"]
    # 1 X + 1 QKV + 3 score rows + 1 scale + 1 softmax + 3 output rows + the rest: the
    # scores and Z get the same share (it was 9 frames of scores and only row 2 of Z)
    assert len(steps) == 11
    assert len(fig["frames"]) == 11
    narr = [s["narration"] for s in steps]
    # one counter: the player counts frames, the narration names the step in words
    assert not any("Step " in n and " of 6" in n for n in narr)
    assert narr[3].startswith("Scores of love (row 2): its query q_2 against every key, ")
    assert "q_2·k_3 (LLMs) = 3" in narr[3]
    assert "q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3" in narr[3]
    assert narr[5].startswith("Scaling: divide every score by √d_k = √4 = 2")
    assert "0.14, 0.63, 0.23; sum = 1." in narr[6]
    # Z is built for every row, in reading order
    assert [n.split(":")[0] for n in narr[7:10]] == [
        "Output of I (row 1)", "Output of love (row 2)", "Output of LLMs (row 3)",
    ]  # fmt: skip
    assert (
        "z_1 = 0.58·v_1 (I) + 0.21·v_2 (love) + 0.21·v_3 (LLMs) = (1.21, 0.58, 0.21, 0.21)"
        in (narr[7])
    )
    assert "z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63" in narr[8]
    assert [s["show"]["output"] for s in steps[7:10]] == [4, 8, 12]
    assert narr[-1].startswith("Done: X (3 × 4) has become Z (3 × 4)")
    assert "z_2 = (1.63, 0.14, 0.23, 0.63)" in narr[-1]
    # the answer is withheld until its frame: no readout, no alt text gives it away, and
    # no frame before Z's row 2 says it
    assert fig["readout"] == []
    assert "1.63" not in fig["alt"]
    assert "1.63" not in fig["caption"]
    assert not any("1.63" in n for n in narr[:8])
    # at rest: the whole pipeline, every grid fully shown
    assert steps[-1]["show"] == {}
    assert [[i["grid"]["grid"] for i in row if "grid" in i] for row in fig["panels"]] == [
        ["x", "q", "k", "v"], ["scores", "scaled", "weights"], ["output"],
    ]  # fmt: skip
    # step 3 fills a row at a time and keeps what came before
    assert [s["show"]["scores"] for s in steps[2:5]] == [3, 6, 9]
    assert steps[3]["marks"]["q"] == {"rows": [1]}
    assert steps[3]["marks"]["k"] == {"rows": [0, 1, 2]}
    assert "q" not in steps[3]["show"]  # Q, K, V stay visible
    grid = fig["frames"][3]["data"][4]["z"]
    assert sum(v is not None for row in grid for v in row) == 6
    # the idle figure is the rest frame
    assert fig["data"] == fig["frames"][-1]["data"]


def test_figure_3_scaling_off_causal_and_focus() -> None:
    fig = figs(stages(scale=False, mask="causal"), focus=0)["figures"]["3"]
    narr = [s["narration"] for s in fig["steps"]]
    assert any("skipped" in n and "divisor is 1" in n for n in narr)
    assert grids(fig)["masked"]["text"][0] == ["4", "−∞", "−∞"]
    assert grids(fig)["weights"]["text"][0] == ["1", "0", "0"]
    step4 = next(s for s in fig["steps"] if s["narration"].startswith("Scaling"))
    assert step4["show"]["weights"] == 0
    assert "masked" not in step4["show"]
    assert "(row 1)" in fig["caption"]


def test_figure_3_big_grids_are_grouped() -> None:
    fig = figs(big(), focus=2)["figures"]["3"]
    validate(fig)
    no_nan(fig)
    assert len(fig["steps"]) == 1 + 1 + 4 + 1 + 1 + 4 + 1  # rows grouped, four frames each


def test_figure_5_scale_off_and_mask_box() -> None:
    on = figs(stages())["figures"]["5"]
    texts = [a["text"] for a in on["layout"]["annotations"]]
    assert "<b>Scale<br>÷ 2</b>" in texts
    assert not any("Mask" in t for t in texts)
    off = figs(stages(scale=False, mask="causal"))["figures"]["5"]
    texts = [a["text"] for a in off["layout"]["annotations"]]
    assert "Scale<br>off (÷ 1)" in texts
    assert any("Mask" in t for t in texts)
    dashed = [s for s in off["layout"]["shapes"] if s["line"].get("dash") == "dash"]
    assert len(dashed) == 1
    assert "3 × 3" in texts


def test_figure_10_11_13_follow_the_sizes() -> None:
    out = figs(cross())["figures"]
    for n in ("5", "10", "11", "13"):
        validate(out[n])
    assert "2 × 4" in out["10"]["caption"]
    assert "Now: cross-attention" in out["11"]["readout"][0]
    assert "(not square)" in out["11"]["readout"][0]
    assert out["13"]["readout"][1] == (
        "Forced: K and V share L_K = 4, because each key has exactly one value row."
    )
    self_out = figs(stages())["figures"]
    assert "Now: self-attention" in self_out["11"]["readout"][0]
    assert self_out["13"]["readout"][3] == "Output Z: L_Q × d_v = 3 × 4."


@pytest.mark.slow  # every figure of every state: the fast loop's slowest test
def test_every_figure_in_every_state_validates_without_nan() -> None:
    allowed = np.array([[False] * 3, [True] * 3, [True] * 3])
    cases = [
        (stages(), {}),
        (stages(scale=False), {"theme": "dark"}),
        (stages(mask="causal"), {"focus": 0, "softmax_row": "focus"}),
        (stages(padding=(False, False, True)), {}),
        (stages(allowed=allowed), {"focus": 0, "softmax_row": "focus"}),
        (cross(), {"focus": 0}),
        (stages(heads=2), {"head": 1}),
    ]
    for s, view in cases:
        out = figs(s, **view)
        assert sorted(map(int, out["figures"])) == list(range(3, 14))
        for fig in out["figures"].values():
            validate(fig)
            no_nan(fig)
