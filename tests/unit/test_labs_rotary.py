"""Lab `rotary` (issue 31, item 2): J1's scores unchanged by a shift of both positions (the
offset-only form to the last digit, rotate-then-dot to 1e-12 in float64, the engine's RoPE
the same numbers), J2's wavelengths from 2π to 2π·base^((d−2)/d), J3's slopes as the ALiBi
paper prints them, its bias and the locality it gives each head, and each section's
question answered from the numbers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from app.attention import AttentionInput, run
from app.figures import fmt
from app.figures.labs import FigureContext, get_lab
from app.figures.labs.rotary import common
from app.figures.labs.rotary.rotation import asked_cell, state_of
from app.figures.style import theme
from app.labs import alibi, rotary

LAB = get_lab("rotary")
assert LAB is not None


def defaults(name: str, **values: Any) -> dict[str, Any]:
    fig = LAB.figure(name)
    assert fig is not None
    return {c.name: c.default for c in fig.controls} | values


def build(name: str, **values: Any) -> dict[str, Any]:
    fig = LAB.figure(name)
    assert fig is not None
    return fig.build(defaults(name, **values), FigureContext(theme=theme("light")))


def grid_values(fig: dict[str, Any], i: int) -> np.ndarray[Any, Any]:
    return np.array(fig["grids"][i]["desc"]["values"], dtype=float)


def test_the_lab_is_registered_with_three_asking_sections() -> None:
    assert LAB.title == "RoPE and ALiBi"
    assert [f.name for f in LAB.figures] == ["rotation", "wavelengths", "alibi"]
    assert [f.entry for f in LAB.figures] == ["J1", "J2", "J3"]
    assert all(f.asks for f in LAB.figures)
    for f in LAB.figures:
        assert build(f.name)["reveal"]["correct"] in [
            c[0] for c in build(f.name)["reveal"]["choices"]
        ]


# ---- J1 rotation


DEFAULT = state_of(defaults("rotation"))


def test_default_shows_the_shift_changing_no_score() -> None:
    assert (DEFAULT.n, DEFAULT.d, DEFAULT.shift, DEFAULT.base) == (5, 4, 100, 10_000.0)
    fig = build("rotation")
    here, moved = grid_values(fig, 0), grid_values(fig, 1)
    pos = np.arange(5.0)
    np.testing.assert_array_equal(here, rotary.scores(DEFAULT.q, DEFAULT.k, pos, pos))
    np.testing.assert_array_equal(moved, rotary.scores(DEFAULT.q, DEFAULT.k, pos + 100, pos + 100))
    np.testing.assert_allclose(moved, here, rtol=0, atol=1e-12)
    assert fig["grids"][0]["desc"]["text"] == fig["grids"][1]["desc"]["text"]
    assert not np.array_equal(here, DEFAULT.q @ DEFAULT.k.T)  # the rotation did something
    assert "every score stays the same" in fig["caption"]
    assert fig["readout"][1].endswith("equal to the last digit")
    assert fig["reveal"]["correct"] == "same"
    assert fig["grids"][1]["desc"]["rows"][0] == "q_1 @ 100"


def test_the_offset_grid_is_m_minus_n() -> None:
    offsets = grid_values(build("rotation"), 2)
    np.testing.assert_array_equal(offsets, np.subtract.outer(np.arange(5), np.arange(5)))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("n", "d", "shift", "base"),
                         [(5, 4, 100, 1e4), (8, 8, common.MAX_SHIFT, 1e5), (2, 2, 1, 1e4),
                          (8, 6, 4000, 1e4), (3, 8, 0, 1e5)])  # fmt: skip
def test_shifting_both_positions_keeps_every_score_to_1e_12(
    seed: int, n: int, d: int, shift: int, base: float
) -> None:
    s = state_of({"n": n, "d": d, "shift": shift, "base": base, "seed": seed})
    assert s.here.scores.dtype == np.float64
    # the offset-only form never sees m or n apart: equal to the last digit
    assert np.array_equal(s.moved.relative, s.here.relative)
    # rotate-then-dot (what a model computes): to rounding, 1e-12 of |q||k|
    norms = np.linalg.norm(s.q, axis=1)[:, None] * np.linalg.norm(s.k, axis=1)[None, :]
    assert np.all(np.abs(s.moved.scores - s.here.scores) <= 1e-12 * (1 + norms))
    assert np.all(np.abs(s.here.scores - s.here.relative) <= 1e-12 * (1 + norms))
    if shift <= 100:
        np.testing.assert_allclose(s.moved.scores, s.here.scores, rtol=0, atol=1e-12)
    assert s.same
    assert build("rotation", n=n, d=d, shift=shift, base=base, seed=seed)["reveal"]["correct"] == (
        "same"
    )


def test_the_grids_are_the_engines_rope_scores() -> None:
    """The engine's RoPE (POST /api/v1/attention with rope and positions) gives J1's grids."""
    v = np.zeros_like(DEFAULT.q)
    for placement in (DEFAULT.here, DEFAULT.moved):
        stages = run(AttentionInput(q=DEFAULT.q, k=DEFAULT.k, v=v, rope_base=DEFAULT.base,
                                    positions=tuple(placement.positions.tolist())))  # fmt: skip
        np.testing.assert_allclose(stages.head.scores, placement.scores, rtol=0, atol=1e-12)


def test_a_rotation_changes_scores_unless_both_move() -> None:
    """The contrast: moving only the keys changes the scores (the offset changes)."""
    pos = np.arange(5.0)
    only_k = rotary.scores(DEFAULT.q, DEFAULT.k, pos, pos + 1)
    assert np.abs(only_k - DEFAULT.here.scores).max() > 0.1


def test_the_question_asks_the_largest_score_below_the_diagonal() -> None:
    r, c = asked_cell(DEFAULT)
    assert r > c
    below = [(i, j) for i in range(5) for j in range(i)]
    assert abs(DEFAULT.here.scores[r, c]) == max(abs(DEFAULT.here.scores[i, j]) for i, j in below)
    reveal = build("rotation")["reveal"]
    assert f"q_{r + 1} sits at position {r} and k_{c + 1} at position {c}" in reveal["question"]
    assert common.fmt.fixed(float(DEFAULT.here.scores[r, c]), 4) in reveal["question"]
    assert f"= {r - c}·θ_i" in reveal["why"]


def test_theta_table_is_base_to_the_minus_2i_over_d() -> None:
    cells = build("rotation", d=8)["tables"][0]["cells"]
    assert [row[0] for row in cells] == ["1", "0.1", "0.01", "0.001"]  # 10000^(−2i/8) = 10^(−i)
    assert cells[0][1] == fmt.significant(2 * math.pi, 6)


# ---- J2 wavelengths


@pytest.mark.parametrize("d", [4, 64, 128, 1024])
def test_wavelengths_run_from_2_pi_to_2_pi_base_to_the_d_minus_2_over_d(d: int) -> None:
    fig = build("wavelengths", d=d)
    for trace, base in zip(fig["plot"]["data"], common.BASES, strict=True):
        y = np.array(trace["y"])
        assert y.size == d // 2
        assert y[0] == 2 * math.pi
        assert y[-1] == pytest.approx(2 * math.pi * base ** ((d - 2) / d), rel=1e-13)
        np.testing.assert_allclose(y[1:] / y[:-1], base ** (2 / d), rtol=1e-12)
    table = fig["tables"][0]["cells"]
    assert table[0] == [common.positions_text(2 * math.pi)] * 2
    assert len(table) == d // 2


def test_default_wavelengths_print_the_slow_ends_of_both_bases() -> None:
    fig = build("wavelengths")
    # d = 128: 2π·10,000^(126/128) and 2π·100,000^(126/128)
    assert "54,410.14 with base 10,000" in fig["caption"]
    assert "524,873.77 with base 100,000" in fig["caption"]
    assert fig["reveal"]["correct"] == "54,410.14"
    assert [c[0] for c in fig["reveal"]["choices"]].count("54,410.14") == 1
    assert "62,831.85" in [c[0] for c in fig["reveal"]["choices"]]  # 2π·base, the near miss


def test_the_learner_changes_both_bases() -> None:
    fig = build("wavelengths", d=16, base=500.0, other=2.0)
    a, b = fig["plot"]["data"]
    np.testing.assert_array_equal(a["y"], rotary.wavelengths(16, 500.0))
    np.testing.assert_array_equal(b["y"], rotary.wavelengths(16, 2.0))
    assert a["name"] == "base 500"
    assert fig["reveal"]["correct"] == common.positions_text(2 * math.pi * 500 ** (14 / 16))


# ---- J3 ALiBi


def test_slopes_as_the_paper_prints_them_8_and_16_heads() -> None:
    # Press et al. §3: 8 heads 1/2^1 … 1/2^8; 16 heads start at 1/2^0.5 with ratio 1/2^0.5
    fig = build("alibi")
    assert fig["readout"][0] == "slopes: " + ", ".join(f"1/{2**h}" for h in range(1, 9))
    cells = fig["tables"][0]["cells"]
    assert [row[0] for row in cells] == [f"1/{2**h}" for h in range(1, 9)]
    sixteen = alibi.slopes(16)
    np.testing.assert_allclose(sixteen, [2 ** (-0.5 * h) for h in range(1, 17)], rtol=1e-15)
    labels = build("alibi", heads=16)["choice_labels"]["head"]
    assert labels[0] == "head 1 (m = 2^−0.5 ≈ 0.7071)"
    assert labels[1] == "head 2 (m = 1/2)"


@pytest.mark.parametrize(
    ("heads", "extra"),
    [(12, [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]), (6, [2**-1, 2**-3]), (3, [2**-2]),
     (5, [2**-1])],
)  # fmt: skip
def test_slopes_for_head_counts_that_are_not_powers_of_two(heads: int, extra: list[float]) -> None:
    n0 = 1 << (heads.bit_length() - 1)
    expected = [2 ** (-8 * h / n0) for h in range(1, n0 + 1)] + extra
    fig = build("alibi", heads=heads)
    assert len(fig["tables"][0]["cells"]) == heads
    np.testing.assert_allclose(alibi.slopes(heads), expected, rtol=1e-15)
    assert f"{heads} heads, not a power of two" in fig["caption"]
    assert f"first {heads - n0} of every other slope of {2 * n0} heads" in fig["caption"]


def test_bias_grid_is_minus_m_times_the_distance_causal() -> None:
    fig = build("alibi", head=2, tokens=6)
    bias, weights = fig["grids"][0]["desc"], fig["grids"][1]["desc"]
    m = 1 / 8
    for i in range(6):
        for j in range(6):
            if j <= i:
                assert bias["values"][i][j] == -m * (i - j)
            else:
                assert bias["values"][i][j] is None
                assert bias["text"][i][j] == "−∞"
    w = np.array([[0.0 if x is None else x for x in row] for row in weights["values"]])
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    # the weights are the softmax of the bias alone: each step back a factor e^(−m)
    np.testing.assert_allclose(w[5, :5] / w[5, 1:6], math.exp(-m), rtol=1e-13)
    assert "m = 1/8" in fig["grids"][0]["heading"]


def test_flat_weights_are_the_engines_alibi_with_equal_content() -> None:
    """q = 0 makes every content score 0: the engine's ALiBi weights are the bias's alone."""
    n, heads = 7, 4
    z = np.zeros((n, 2 * heads))
    v = np.eye(n)[:, : 2 * heads] if n >= 2 * heads else np.zeros((n, 2 * heads))
    stages = run(AttentionInput(q=z, k=z, v=v, heads=heads, mask="causal", alibi=True))
    for h, m in enumerate(alibi.slopes(heads)):
        np.testing.assert_allclose(stages.heads[h].weights, alibi.flat_weights(float(m), n),
                                   rtol=0, atol=1e-15)  # fmt: skip


def test_steep_heads_read_near_and_flat_heads_far() -> None:
    fig = build("alibi")
    cells = fig["tables"][0]["cells"]
    reach = [float(row[3]) for row in cells]
    own = [float(row[2]) for row in cells]
    assert reach == sorted(reach)  # slopes fall from head 1 to head 8
    assert own == sorted(own, reverse=True)
    w = alibi.flat_weights(1 / 256, 8)[-1]
    assert float(cells[-1][3]) == pytest.approx(float((w * np.arange(7, -1, -1)).sum()), abs=0.005)
    assert fig["reveal"]["correct"] == "7"  # head 8, the flattest
    steep, flat = fig["plot"]["data"]
    assert steep["name"] == "head 1"
    assert flat["name"] == "head 8"
    assert steep["y"][0] > flat["y"][0]  # more weight on the token itself


def test_one_head_and_a_head_past_the_count() -> None:
    one = build("alibi", heads=1)
    assert one["reveal"]["correct"] == "0"  # head 1 is the only one
    assert "same" not in [c[0] for c in one["reveal"]["choices"]]
    assert one["caption"].startswith("1 head: the sequence's only slope, 2^(−8) = 1/256.")
    assert one["tables"][0]["cells"][0][0] == "1/256"
    past = build("alibi", heads=4, head=9)
    assert past["warnings"]
    assert "showing head 4" in past["warnings"][0]
    assert "head 4" in past["grids"][0]["heading"]


@pytest.mark.parametrize("d", [4, 8, 128, 1024])
@pytest.mark.parametrize("base", [2.0, 10.0, 10_000.0, 1e9])
def test_every_wavelength_question_has_its_answer_once(d: int, base: float) -> None:
    reveal = build("wavelengths", d=d, base=base)["reveal"]
    values = [c[0] for c in reveal["choices"]]
    assert values.count(reveal["correct"]) == 1
    assert len(values) == len(set(values)) >= 3


@pytest.mark.parametrize("heads", range(1, 65))
def test_every_head_count_asks_with_its_answer_among_the_choices(heads: int) -> None:
    fig = build("alibi", heads=heads, head=heads - 1)
    reveal = fig["reveal"]
    values = [c[0] for c in reveal["choices"]]
    assert values.count(reveal["correct"]) == 1
    reach = [float(alibi.mean_distance(alibi.flat_weights(float(m), 8))[-1])
             for m in alibi.slopes(heads)]  # fmt: skip
    assert reveal["correct"] == str(int(np.argmax(reach)))
    assert len(fig["choice_labels"]["head"]) == heads
