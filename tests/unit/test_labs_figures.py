"""The lab figures (app/figures/labs): the spec's worked numbers exactly, the experiments'
claims statistically (several seeds, bands from the standard error), URL text round trips."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.attention import run
from app.figures.labs import LABS, FigureContext, get_lab
from app.figures.labs.controls import matrix, number, vector
from app.figures.style import theme
from app.inputs.body import AttentionRequest
from app.inputs.lab_controls import ControlError, parse_control
from app.labs.experiments import (
    SaturationParams,
    ScalingTableParams,
    ScoreVarianceParams,
    run_experiment,
)

PARAMS = {"score-variance": ScoreVarianceParams, "saturation": SaturationParams,
          "scaling-table": ScalingTableParams}  # fmt: skip


def attention(body: dict[str, Any]) -> Any:
    return run(AttentionRequest.model_validate(body).to_input())


def experiment(name: str, body: dict[str, Any]) -> dict[str, Any]:
    p = dict(body)
    if "d_ks" in p:
        p["d_ks"] = tuple(p["d_ks"])
    return run_experiment(PARAMS[name](**p))


def ctx(body: dict[str, Any] | None = None, preview: bool = False) -> FigureContext:
    from app.presets import RUNNING_EXAMPLE

    return FigureContext(theme=theme("light"), preview=preview,
                         run={"attention": attention, "experiment": experiment},
                         body=body or RUNNING_EXAMPLE)  # fmt: skip


def build(lab: str, name: str, **values: Any) -> dict[str, Any]:
    found = get_lab(lab)
    assert found is not None
    fig = found.figure(name)
    assert fig is not None
    merged = {c.name: c.default for c in fig.controls} | values
    if fig.settle is not None:
        merged = fig.settle(merged)
    return fig.build(merged, ctx())


def cells(fig: dict[str, Any], i: int = 0) -> list[list[str]]:
    return list(fig["tables"][i]["cells"])


# ---- one-query


def test_a1_anchor_weights_and_output() -> None:
    fig = build("one-query", "softmax-table")
    assert [r[2] for r in cells(fig)] == ["0.665", "0.245", "0.090"]
    assert [r[1] for r in cells(fig)] == ["7.389", "2.718", "1.000"]
    assert cells(fig, 1) == [["11.107"], ["1.425"]]  # e² + e + 1, and Σ w·v
    assert "not all of it" in fig["caption"]


def test_a1_shift_changes_exponentials_not_weights() -> None:
    plain, shifted = (
        build("one-query", "softmax-table"),
        build("one-query", "softmax-table", shift=3.0),
    )
    assert [r[2] for r in cells(plain)] == [r[2] for r in cells(shifted)]
    assert [r[1] for r in cells(plain)] != [r[1] for r in cells(shifted)]
    assert "e^3.0 = 20.086" in shifted["caption"]


def test_a2_answer_follows_the_query() -> None:
    fig = build("one-query", "alignment")
    assert [r[0] for r in cells(fig)] == ["1", "0", "−1"]
    assert fig["reveal"]["correct"] == "k_1"
    assert fig["reveal"]["why"].startswith("k_1 has the largest dot product")
    assert "below zero" in fig["reveal"]["answer"]
    up = build("one-query", "alignment", q=(0.0, 1.0))
    assert up["reveal"]["correct"] == "k_2"


def test_a3_rebuilds_the_chapters_table() -> None:
    fig = build("one-query", "worked-query")
    assert [r[3] for r in cells(fig)] == ["0.3369", "0.3019", "0.3611"]
    assert "√d_k = √3 = 1.7321" in fig["readout"]
    untied = build(
        "one-query", "worked-query", tied=False, v=((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0))
    )
    assert cells(untied, 1) == [["(0.3369, 0.3019, 0.3611)"]]  # V = I: ζ is α itself


def test_a4_queries_commit_and_the_neutral_one_averages() -> None:
    fig = build("one-query", "discriminate")
    entropy = [float(r[-1]) for r in cells(fig)]
    assert entropy[2] == pytest.approx(math.log2(3), abs=1e-3)  # (1, 1, 1) matches all alike
    assert entropy[0] < entropy[2] / 2
    assert entropy[1] < entropy[2] / 2
    weak = build("one-query", "discriminate", c=0.5)
    assert float(cells(weak)[0][-1]) > entropy[0]  # a weaker query commits less
    assert fig["badges"] == ["our example"]  # the queries are ours; no authoring notes


@pytest.mark.parametrize(("maps", "scores", "weights"), [
    ("two", "not symmetric", "not symmetric"), ("one", "symmetric", "not symmetric"),
    ("none", "symmetric", "symmetric"),  # every x_i·x_i = 2 and x_i·x_j = 1 here
])  # fmt: skip
def test_a5_symmetry_badges(maps: str, scores: str, weights: str) -> None:
    fig = build("one-query", "two-maps", maps=maps)
    assert [g["badge"] for g in fig["grids"]] == [scores, weights]


# ---- step-by-step

PRINTED = {
    1: ["= −9 − 9 = −18", "q_1·k_2 = 3·1 + −3·1 = 3 − 3 = 0", "q_2·k_1",
        "q_2·k_2 = 1·1 + 1·1 = 1 + 1 = 2"],
    2: ["√2 ≈ 1.414, giving the scaled rows [−12.73, 0] and [0, 1.414]"],
    3: ["token 1 (row 1) is [−12.73, −∞], with weights [1, 0]"],
    4: ["[e^0, e^1.414] = [1, 4.113], with sum 5.113 and weights [0.196, 0.804]"],
    5: ["Output of token 1 (row 1): 1·[0, −1] = [0, −1]",
        "0.196·[0, −1] + 0.804·[1, 2] = [0.804, 1.413]"],
}  # fmt: skip


@pytest.mark.parametrize("step", range(1, 6))
def test_b1_reproduces_the_modules_printed_steps(step: int) -> None:
    fig = build("step-by-step", "stepper", step=step)
    for text in PRINTED[step]:
        assert text in fig["caption"], (text, fig["caption"])


def test_b1_ghost_and_rounding_note() -> None:
    fig = build("step-by-step", "stepper", step=5)
    quotes = " ".join(q["text"] for q in fig["quotes"])
    assert "token 1 (row 1) would put 0.999997 of its weight on k_2 (token 2)" in quotes
    assert all("position" not in q["text"] for q in fig["quotes"])  # one numbering: rows
    assert "unrounded weights" in quotes
    assert [g["desc"]["grid"] for g in fig["grids"]] == ["weights", "v", "output", "ghost"]
    unmasked = build("step-by-step", "stepper", step=5, mask="none")
    assert "ghost" not in [g["desc"]["grid"] for g in unmasked["grids"]]


def test_b1_frames_reproduce_every_printed_step_and_rest_on_the_last() -> None:
    fig = build("step-by-step", "stepper")  # the default: the final frame, as Figure 3
    assert fig["step"] == 5
    assert [f["step"] for f in fig["frames"]] == [1, 2, 3, 4, 5]
    assert fig["caption"] == fig["frames"][-1]["caption"]
    for frame in fig["frames"]:
        for text in PRINTED[frame["step"]]:
            assert text in frame["caption"], (text, frame["caption"])


HIGHLIGHTED = {
    1: "s_22 = q_2·k_2 = 1·1 + 1·1 = 1 + 1 = 2",
    2: "s_22 ÷ √2: 2 ÷ 1.414 = 1.4142",
    3: "allowed: k_2 is not after q_2, so the score stays 1.4142",
    4: "weight of row 2 on k_2 = e^1.4142 ÷ Σ = 4.1133 ÷ 5.1133 = 0.8044",
    5: "z_2, column 1 of d_v = 0.1956·0 + 0.8044·1 = 0.8044",
}


def test_b1_highlighted_cell_and_its_arithmetic() -> None:
    fig = build("step-by-step", "stepper")
    for frame in fig["frames"]:
        step = frame["step"]
        assert frame["grid_hint"] == "Highlighted: " + HIGHLIGHTED[step]
        stage = next(g["desc"] for g in frame["grids"] if g["heading"].startswith("Step"))
        assert stage["outline"]["rows"] == [1]
        assert stage["outline"]["cells"] == [[1, 1] if step < 5 else [1, 0]]
    blocked = build("step-by-step", "stepper", step=3)["grids"][1]["desc"]["hover"][0][1]
    assert blocked == "masked: k_2 comes after q_1 (causal: j ≤ i), so its score becomes −∞"


def _reference(q: Any, k: Any, v: Any, causal: bool) -> tuple[Any, Any]:
    s = np.asarray(q) @ np.asarray(k).T / math.sqrt(2)
    if causal:
        s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w, w @ np.asarray(v)


@pytest.mark.parametrize("L", range(2, 9))
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_b1_any_length_from_2_to_8(L: int, mask: str) -> None:
    fig = build("step-by-step", "stepper", L=L, mask=mask, focus=7)
    stepper = get_lab("step-by-step").figure("stepper")  # type: ignore[union-attr]
    values = stepper.settle({c.name: c.default for c in stepper.controls} | {"L": L})  # type: ignore[misc]
    assert len(values["q"]) == len(values["k"]) == len(values["v"]) == L
    assert values["q"][:2] == ((3.0, -3.0), (1.0, 1.0))  # the preset's rows stay first
    weights, output = _reference(values["q"], values["k"], values["v"], mask == "causal")
    frame = fig["frames"][3]
    drawn = next(g["desc"] for g in frame["grids"] if g["desc"]["grid"] == "weights")
    assert drawn["shape"] == [L, L]
    np.testing.assert_allclose(np.array(drawn["values"], dtype=float), weights, atol=1e-12)
    out = next(g["desc"] for g in fig["frames"][4]["grids"] if g["desc"]["grid"] == "output")
    np.testing.assert_allclose(np.array(out["values"], dtype=float), output, atol=1e-12)
    assert out["outline"]["rows"] == [L - 1]  # focus 7 is clamped to the last position
    assert ("ghost" in [g["desc"]["grid"] for g in frame["grids"]]) == (mask == "causal")
    assert len(fig["frames"][0]["narration"]) == L * L
    if L > 2:  # the caption keeps to the highlighted row; every line is in the tables
        assert fig["frames"][0]["caption"].count("q") == L
        assert len(fig["tables"][1]["cells"]) == sum(len(f["narration"]) for f in fig["frames"])


def test_b1_matrix_rows_follow_l_and_are_bounded() -> None:
    stepper = get_lab("step-by-step").figure("stepper")  # type: ignore[union-attr]
    q = next(c for c in stepper.controls if c.name == "q")
    assert parse_control(q, "1,2;3,4;5,6") == ((1, 2), (3, 4), (5, 6))
    with pytest.raises(ControlError, match="1 to 8 rows of 2 numbers"):
        parse_control(q, ";".join(["1,2"] * 9))
    with pytest.raises(ControlError, match="1 to 8 rows of 2 numbers"):
        parse_control(q, "1,2,3")
    edited = stepper.settle(  # type: ignore[misc]
        {c.name: c.default for c in stepper.controls} | {"L": 3, "q": ((9.0, 9.0),)}
    )
    assert edited["q"] == ((9.0, 9.0), (1.0, 1.0), (2.0, 0.0))


def test_b2_causal_shortens_the_sum() -> None:
    fig = build("step-by-step", "per-position", focus=1, mask="causal")
    assert "reads 2 of 3 keys (causal: j ≤ i)" in fig["caption"]
    assert [r[-1] for r in cells(fig)] == ["in P(i)", "in P(i)", "outside P(i)"]
    assert [r[1] for r in cells(fig)][2] == "masked"
    scores = fig["grids"][0]["desc"]
    assert scores["masked"] == [[False, True, True], [False, False, True], [False, False, False]]
    assert "love (row 2) reads 2 of 3 keys" in fig["caption"]
    assert fig["choice_labels"]["focus"] == ["I (row 1)", "love (row 2)", "LLMs (row 3)"]
    full = build("step-by-step", "per-position", focus=1)
    assert "reads 3 of 3 keys" in full["caption"]
    # the divisor is named before the row it gives, never "e / √4 = 2 = [s …]"
    assert full["readout"][2] == "divided by √d_k = √4 = 2: [1, 2.5, 1.5]"
    # words and the notation key's symbols: no LaTeX-like subscripts such as Σ_(j′∈P(2))
    assert not any("_(" in line or "′" in line for line in full["readout"])


# ---- why-scale: statistical claims over several seeds


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_c1_var_over_dk_is_one_within_the_standard_error(seed: int) -> None:
    draws = 20_000
    fig = build("why-scale", "score-histogram", dk=64, seed=seed, draws=draws)
    ratio = float(cells(fig)[0][0])
    se = math.sqrt((2 + 6 / 64) / draws)
    assert abs(ratio - 1) < 4 * se  # a 4-SE band: fails once in ~16,000 seeds


def test_c1_reproduce_lists_the_module_widths_and_quotes_them() -> None:
    fig = build("why-scale", "score-histogram", reproduce=True)
    rows = fig["tables"][0]["row_headers"]
    assert rows == ["d_k = 32", "d_k = 64", "d_k = 128", "d_k = 256"]
    assert [r[3] for r in cells(fig)] == ["0.9987", "1.0040", "1.0029", "1.0038"]
    sources = [q["source"] for q in fig["quotes"]]
    assert sources == ["The course module “Attention” measured", "This run measured"]
    assert fig["quotes"][0]["href"] == "/sources#course-module"


@pytest.mark.parametrize("seed", [0, 5, 9])
def test_c2_scaling_removes_saturation(seed: int) -> None:
    fig = build("why-scale", "saturation", seed=seed)
    unscaled, scaled = (float(r[0].rstrip(" %")) for r in cells(fig))
    # 500 trials: the unscaled share sits near the module's 35 % (SE ≈ 2.1 points)
    assert 25 < unscaled < 45
    assert scaled == 0.0
    assert cells(fig)[1][2] == "none saturated"


@pytest.mark.parametrize("seed", [0, 3, 8])
def test_c2_share_saturated_against_log2_dk(seed: int) -> None:
    fig = build("why-scale", "saturation", seed=seed, trials=2000)
    sweep = fig["tables"][1]
    assert sweep["row_headers"] == [f"d_k = {2**i}" for i in range(4, 11)]
    assert [r[0] for r in sweep["cells"]] == [str(i) for i in range(4, 11)]
    unscaled = [float(r[1].rstrip(" %")) / 100 for r in sweep["cells"]]
    scaled = [float(r[2].rstrip(" %")) / 100 for r in sweep["cells"]]
    assert scaled == [0.0] * 7
    # 2,000 trials: SE ≤ √(0.25/2000) ≈ 0.011; neighbours 4 widths apart differ by ≫ 4 SE
    for a, b in zip(unscaled, unscaled[4:], strict=False):
        assert b - a > 4 * 0.0112
    assert unscaled[3] == float(cells(fig)[0][0].rstrip(" %")) / 100  # the d_k = 128 run
    lines = [tr for tr in fig["plot"]["data"] if tr.get("xaxis") == "x3"]
    assert [tr["x"] for tr in lines] == [[float(i) for i in range(4, 11)]] * 2
    assert lines[0]["y"] == pytest.approx(unscaled, abs=5.01e-4)  # shown to 0.1 %
    assert fig["plot"]["layout"]["xaxis3"]["ticktext"][0] == "16"
    marker = [sh for sh in fig["plot"]["layout"]["shapes"] if sh["xref"] == "x3"]
    assert marker[0]["x0"] == 7.0  # log₂ 128


def test_c2_sweep_off_is_two_histograms_and_one_run() -> None:
    fig = build("why-scale", "saturation", sweep=False)
    assert len(fig["tables"]) == 1
    assert "xaxis3" not in fig["plot"]["layout"]
    sat = get_lab("why-scale").figure("saturation")  # type: ignore[union-attr]
    values = {c.name: c.default for c in sat.controls}
    assert sat.runs is not None
    runs = sat.runs(values, False)
    assert [b["d_k"] for _, b in runs] == [128, 16, 32, 64, 256, 512, 1024]
    assert len(sat.runs(values | {"sweep": False}, False)) == 1
    assert {b["trials"] for _, b in sat.runs(values, True)} == {200}  # preview: small runs


def test_c3_raw_weights_pile_up_and_scaled_stay_put() -> None:
    fig = build("why-scale", "scaling-table", seed=3)
    rows = cells(fig)
    raw_max = [float(r[2]) for r in rows]
    scaled_max = [float(r[4]) for r in rows]
    spread = [float(r[0]) for r in rows]
    assert raw_max == sorted(raw_max)
    assert raw_max[-1] > 0.9
    assert max(scaled_max) - min(scaled_max) < 0.1
    for a, b in itertools.pairwise(spread):  # each fourfold rise doubles it
        assert 1.7 < b / a < 2.3


def test_c4_flat_line_and_gap() -> None:
    fig = build("why-scale", "flat-line", d=1024, gap=20.0)
    assert [r[1] for r in cells(fig)] == ["0.665", "0.245", "0.090"]
    assert cells(fig)[0][0] == "1.000"
    assert "e^20 ≈ 4.852 × 10⁸ times" in fig["readout"][0]  # a power, not 485,165,195.4098


def test_same_state_same_figure() -> None:
    a = build("why-scale", "saturation", seed=4, trials=1000)
    b = build("why-scale", "saturation", seed=4, trials=1000)
    assert a == b


def test_preview_runs_are_smaller() -> None:
    fig = get_lab("why-scale").figure("score-histogram")  # type: ignore[union-attr]
    values = {c.name: c.default for c in fig.controls}
    assert fig.runs is not None
    assert fig.runs(values, True)[0][1]["draws"] < fig.runs(values, False)[0][1]["draws"]


# ---- registry and controls


def test_registry_has_ten_labs_and_unique_figure_names() -> None:
    assert [lab.id for lab in LABS] == ["one-query", "step-by-step", "why-scale", "masks",
                                        "order", "heads", "cost", "flash",
                                        "generation", "rotary"]  # fmt: skip
    for lab in LABS:
        names = [f.name for f in lab.figures]
        assert len(names) == len(set(names))
        assert len(set(lab.keys().values())) == len(lab.keys())


@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=3))
def test_vector_text_round_trip(xs: list[float]) -> None:
    c = vector("v", "v", (0, 0, 0), -10, 10, 0.1)
    assert parse_control(c, c.encode(tuple(xs))) == tuple(xs)


@given(st.lists(st.lists(st.floats(-2, 2, allow_nan=False), min_size=2, max_size=2),
                min_size=2, max_size=2))  # fmt: skip
def test_matrix_text_round_trip(rows: list[list[float]]) -> None:
    c = matrix("m", "m", ((0, 0), (0, 0)), -2, 2, 0.05)
    value = tuple(tuple(r) for r in rows)
    assert parse_control(c, c.encode(value)) == value


@pytest.mark.parametrize("text", ["", "1,2", "a", "nan", "inf", "11", "1e400", "1;2"])
def test_bad_number_text_names_the_key(text: str) -> None:
    c = number("shift", "shift", 0, -10, 10, 0.1)
    with pytest.raises(ControlError) as caught:
        parse_control(c, text, "shift")
    assert caught.value.key == "shift"


def test_a_dragged_query_is_snapped_and_clamped() -> None:
    q = get_lab("one-query").figure("alignment").controls[0]  # type: ignore[union-attr]
    assert parse_control(q, "0.98765,-0.0123") == (1.0, 0.0)
    assert parse_control(q, "7,-3") == (2.0, -2.0)
    with pytest.raises(ControlError):
        parse_control(q, "1")
