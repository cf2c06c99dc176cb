"""Figure 3 (the stepper) and the diagrams 5, 10, 11, 13."""

from __future__ import annotations

import numpy as np
from figures_support import big, cross, figs, grids, no_nan, stages, validate


def test_figure_3_steps_for_the_running_example() -> None:
    fig = figs(stages())["figures"]["3"]
    validate(fig)
    steps = fig["steps"]
    # 1 X + 1 QKV + 9 cells + 1 scale + 1 softmax + 4 entries of z + the rest
    assert len(steps) == 18
    assert len(fig["frames"]) == 18
    narr = [s["narration"] for s in steps]
    assert "q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3" in narr[7]
    assert narr[11].startswith("Step 4 of 6: divide every score by √d_k = √4 = 2")
    assert "0.14, 0.63, 0.23; sum = 1" in narr[12]
    assert "z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63" in narr[13]
    assert narr[-1].startswith("Done: z(love) = (1.63, 0.14, 0.23, 0.63).")
    # at rest: the whole pipeline, every grid fully shown
    assert steps[-1]["show"] == {}
    assert [[i["grid"]["grid"] for i in row if "grid" in i] for row in fig["panels"]] == [
        ["x", "q", "k", "v"], ["scores", "scaled", "weights"], ["output"],
    ]  # fmt: skip
    # step 3 fills in reading order and keeps what came before: after the 5th cell 5 shown
    assert steps[6]["show"]["scores"] == 5
    assert steps[6]["marks"]["q"] == {"rows": [1]}
    assert steps[6]["marks"]["k"] == {"rows": [1]}
    assert "q" not in steps[6]["show"]  # Q, K, V stay visible
    grid = fig["frames"][6]["data"][4]["z"]
    assert sum(v is not None for row in grid for v in row) == 5
    # step 6 reveals z(love) entry by entry
    assert steps[14]["show"]["output"] == {"row": 1, "cols": 2}
    assert steps[14]["marks"]["v"] == {"cols": [1]}
    # the idle figure is the rest frame
    assert fig["data"] == fig["frames"][-1]["data"]


def test_figure_3_scaling_off_causal_and_focus() -> None:
    fig = figs(stages(scale=False, mask="causal"), focus=0)["figures"]["3"]
    narr = [s["narration"] for s in fig["steps"]]
    assert any("skipped" in n and "divisor is 1" in n for n in narr)
    assert grids(fig)["masked"]["text"][0] == ["4", "−∞", "−∞"]
    assert grids(fig)["weights"]["text"][0] == ["1", "0", "0"]
    step4 = next(s for s in fig["steps"] if s["narration"].startswith("Step 4"))
    assert step4["show"]["weights"] == 0
    assert "masked" not in step4["show"]
    assert "(row 1)" in fig["caption"]


def test_figure_3_big_grids_are_grouped() -> None:
    fig = figs(big(), focus=2)["figures"]["3"]
    validate(fig)
    no_nan(fig)
    assert len(fig["steps"]) <= 24


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
    assert out["13"]["readout"][1] == "K and V share L_K = 4: each key has exactly one value row."
    self_out = figs(stages())["figures"]
    assert "Now: self-attention" in self_out["11"]["readout"][0]
    assert self_out["13"]["readout"][3] == "Output Z: L_Q × d_v = 3 × 4."


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
