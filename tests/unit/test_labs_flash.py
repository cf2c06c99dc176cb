"""Lab `flash` (issue 31, item 3): the tiles' block sizes and counts, the online softmax
step by step (its m, ℓ and rescaling, the output equal to the one-shot softmax to 1e-12
in float64, for the default and adversarial scores), and Theorem 2's traffic."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
import pytest

from app.figures import fmt
from app.figures.labs import FigureContext, get_lab
from app.figures.labs.flash import common
from app.figures.style import theme
from app.labs import attend, flash

LAB = get_lab("flash")
assert LAB is not None


def defaults(name: str, **values: Any) -> dict[str, Any]:
    fig = LAB.figure(name)
    assert fig is not None
    merged = {c.name: c.default for c in fig.controls} | values
    return fig.settle(merged) if fig.settle is not None else merged


def build(name: str, tiles: dict[str, Any] | None = None, **values: Any) -> dict[str, Any]:
    fig = LAB.figure(name)
    assert fig is not None
    state = defaults("tiles", **(tiles or {}))
    ctx = FigureContext(theme=theme("light"), others={"tiles": state})
    return fig.build(state if name == "tiles" else defaults(name, **values), ctx)


DEFAULT = common.state_of(defaults("tiles"))


# ---- H1 tiles


def test_default_state_has_several_tiles_from_algorithm_1() -> None:
    b = DEFAULT.blocks
    assert (DEFAULT.n, DEFAULT.d, DEFAULT.sram) == (8, 4, 32)
    assert b == flash.blocks(8, 4, 32)
    assert (b.block_cols, b.block_rows) == (math.ceil(32 / 16), min(math.ceil(32 / 16), 4))
    assert (b.row_tiles, b.col_tiles) == (4, 4)
    fig = build("tiles")
    assert "4 × 4 = 16 tiles" in fig["caption"]
    desc = fig["grids"][0]["desc"]
    assert desc["shape"] == [8, 8]
    assert desc["tiles"] == {"rows": [0, 2, 4, 6], "cols": [0, 2, 4, 6]}
    np.testing.assert_array_equal(np.array(desc["values"], dtype=float), DEFAULT.scores)
    assert fig["reveal"]["correct"] == "16"
    assert [c[0] for c in fig["reveal"]["choices"]].count("16") == 1


@pytest.mark.parametrize(("n", "d", "sram"), [(8, 4, 48), (16, 8, 32), (5, 1, 4), (16, 2, 512)])
def test_tiles_follow_n_d_and_m(n: int, d: int, sram: int) -> None:
    fig = build("tiles", tiles={"n": n, "d": d, "sram": sram})
    b = flash.blocks(n, d, max(sram, 4 * d))
    desc = fig["grids"][0]["desc"]
    assert desc["tiles"]["rows"] == list(range(0, n, b.block_rows))
    assert desc["tiles"]["cols"] == list(range(0, n, b.block_cols))
    assert f"= {b.row_tiles * b.col_tiles} tiles" in fig["caption"]
    assert fig["reveal"]["correct"] == str(b.row_tiles * b.col_tiles)
    assert fig["tables"][0]["cells"][-1] == [str(b.row_tiles * b.col_tiles)]


def test_memory_below_4d_is_raised_to_4d() -> None:
    assert defaults("tiles", d=8, sram=4)["sram"] == 32
    assert common.state_of(defaults("tiles", d=8, sram=4)).sram == 32


def test_causal_tiles_flag_their_masked_cells() -> None:
    desc = build("tiles", tiles={"causal": True})["grids"][0]["desc"]
    masked = np.array(desc["masked"])
    np.testing.assert_array_equal(masked, ~attend.causal(8, 8))
    assert desc["text"][0][1] == "−∞"


# ---- H2 the online softmax


def test_default_shows_a_rescaling_before_any_control_is_touched() -> None:
    found = common.first_rescale(DEFAULT, 0)
    assert found is not None
    step, r = found
    assert step > 0  # a later tile, not the first
    tile = common.steps_of(DEFAULT, 0)[step]
    assert tile.m_tile[r] > tile.m_before[r]
    factor = math.exp(tile.m_before[r] - tile.m_after[r])
    assert tile.rescale[r] == pytest.approx(factor, rel=1e-15)
    assert factor < 1
    fig = build("online")
    assert fig["reveal"]["correct"] == "shrink"
    assert fig["readout"][0].startswith(f"At step {step + 1} q_{r + 1}'s max grew")
    assert common.exps_text(factor) in fig["readout"][0]
    frame = fig["frames"][step]
    assert "a larger score arrived" in frame["caption"]
    assert frame["tables"][0]["cells"][r][3] == common.exps_text(factor)


def test_every_frame_carries_m_and_ell_and_the_running_output() -> None:
    fig = build("online")
    steps = common.steps_of(DEFAULT, 0)
    assert len(fig["frames"]) == DEFAULT.blocks.col_tiles == len(steps)
    assert fig["step"] == len(fig["frames"])  # idle on the final frame
    for frame, t in zip(fig["frames"], steps, strict=True):
        cells = frame["tables"][0]["cells"]
        for r in range(2):
            assert cells[r][2] == common.num(float(t.m_after[r]))
            assert cells[r][6] == common.num(float(t.l_after[r]))
        scores = frame["grids"][0]["desc"]
        assert scores["outline"]["cols"] == list(range(*t.cols))
        # the running O after this tile: the softmax over the keys seen so far
        seen = DEFAULT.scores[0:2, : t.cols[1]]
        expected = attend.softmax_rows(seen) @ DEFAULT.v[: t.cols[1]]
        o = np.array(frame["grids"][1]["desc"]["values"], dtype=float)
        np.testing.assert_allclose(o, expected, rtol=0, atol=1e-12)
        # ℓ is the sum of e^(s − m) over the keys seen so far
        m = seen.max(axis=1)
        np.testing.assert_allclose(t.l_after, np.exp(seen - m[:, None]).sum(axis=1), rtol=1e-13)


def test_the_last_frame_equals_the_one_shot_softmax() -> None:
    fig = build("online")
    last = fig["frames"][-1]
    tiled = np.array(last["grids"][1]["desc"]["values"], dtype=float)
    one = np.array(last["grids"][2]["desc"]["values"], dtype=float)
    np.testing.assert_allclose(tiled, one, rtol=0, atol=1e-12)
    assert last["grids"][1]["desc"]["text"] == last["grids"][2]["desc"]["text"]
    assert DEFAULT.max_diff < 1e-12
    assert f"= {common.fmt.significant(DEFAULT.max_diff, 3)} (float64)" in last["caption"]


def _states() -> list[tuple[str, common.State]]:
    rng = np.random.default_rng(7)
    q, k, v = (rng.normal(size=(16, 8)) for _ in range(3))
    ties_k = np.repeat(rng.normal(size=(4, 8)), 4, axis=0)  # every key four times
    huge = 1e150
    return [
        ("default", DEFAULT),
        ("random", common.run(q, k, v, 48, False)),
        ("causal −∞", common.run(q, k, v, 32, True)),
        ("causal, one key per tile", common.run(q, k, v, 4 * 8, True)),
        ("huge scores", common.run(q * huge, k * huge, v, 64, False)),
        ("huge and causal", common.run(q * huge, -k * huge, v, 40, True)),
        ("ties: equal keys", common.run(q, ties_k, v, 48, False)),
        ("ties: zero queries", common.run(np.zeros((16, 8)), k, v, 32, True)),
        ("ragged tiles", common.run(q[:13], k[:13], v[:13], 76, False)),
    ]


@pytest.mark.parametrize(("name", "s"), _states(), ids=[n for n, _ in _states()])
def test_tiled_equals_one_shot_to_1e_12(name: str, s: common.State) -> None:
    assert s.tiled.dtype == np.float64
    assert np.isfinite(s.tiled).all()
    np.testing.assert_allclose(s.tiled, s.one_shot, rtol=0, atol=1e-12)
    assert s.max_diff <= 1e-12
    for t in s.trace:
        assert np.all(t.l_after > 0)  # every row has a key allowed in tile 1 or before


def test_huge_scores_really_are_huge_and_overflow_a_naive_softmax() -> None:
    s = dict(_states())["huge scores"]
    assert np.abs(s.scores[np.isfinite(s.scores)]).max() > 1e290
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(s.scores)
        assert not np.isfinite(naive / naive.sum(axis=1, keepdims=True)).all()


def test_a_fully_masked_tile_adds_nothing_and_says_so() -> None:
    fig = build("online", tiles={"causal": True})
    s = common.state_of(defaults("tiles", causal=True))
    later = common.steps_of(s, 0)[1]
    assert np.isneginf(later.m_tile).all()
    np.testing.assert_array_equal(later.l_after, later.l_before)
    assert "every key of this tile is masked" in fig["frames"][1]["caption"]
    assert fig["reveal"]["correct"] == "keep"


def test_row_tiles_are_named_by_their_rows_and_clamped() -> None:
    fig = build("online", block=2)
    assert fig["choice_labels"]["block"][2] == "row tile 3 (rows 5–6)"
    assert len(fig["choice_labels"]["block"]) == DEFAULT.blocks.row_tiles
    assert fig["frames"][0]["grids"][0]["desc"]["rows"] == ["q_5", "q_6"]
    past = build("online", block=9)
    assert past["warnings"]
    assert "row tile 4" in past["warnings"][0]
    assert past["frames"][0]["grids"][0]["desc"]["rows"] == ["q_7", "q_8"]


def test_one_column_tile_asks_about_a_fresh_start() -> None:
    fig = build("online", tiles={"sram": 512})  # B_c = 32 ≥ N: one column tile
    assert len(fig["frames"]) == 1
    assert fig["reveal"]["correct"] == "restart"


# ---- H3 memory traffic


def test_traffic_is_theorem_2_labelled_as_orders_of_growth() -> None:
    from app.figures.labs.flash.traffic import NS

    fig = build("traffic")
    d, sram = 64, 2**16
    rows = fig["tables"][0]["cells"]
    for n, row in zip(NS, rows, strict=True):
        t = flash.traffic(n, d, sram)
        assert row[0] == common.fmt.count(n * d + n * n)
        assert row[1] == common.fmt.significant(n * n * d * d / sram, 4)
        assert t.standard == n * d + n * n
    std, tiled = fig["plot"]["data"]
    assert std["y"] == [float(n * d + n * n) for n in NS]
    assert tiled["y"] == [n * n * d * d / sram for n in NS]
    assert "order of growth" in fig["plot"]["layout"]["yaxis"]["title"]["text"]
    assert "not a count" in fig["plot"]["layout"]["yaxis"]["title"]["text"]
    assert "not counts" in fig["caption"]
    assert "16 times fewer" in fig["caption"]  # M / d² = 65,536 / 4,096
    assert fig["reveal"]["correct"] == "smaller"


def test_traffic_when_m_is_below_d_squared() -> None:
    fig = build("traffic", d=256, sram=2**12)
    assert fig["reveal"]["correct"] == "larger"
    assert "no fewer" in fig["caption"]


def test_output_grids_print_four_decimals_without_a_negative_zero() -> None:
    four = partial(fmt.fixed, dp=4)
    assert [four(x) for x in (-1.0, -0.9999999999999998, 1e-17, -1e-17, 0.12344)] == [
        "−1.0000", "−1.0000", "0.0000", "0.0000", "0.1234",
    ]  # fmt: skip


def test_tiled_and_one_shot_outputs_share_one_colour_scale() -> None:
    last = build("online")["frames"][-1]["grids"]
    tiled, one = last[1]["desc"], last[2]["desc"]
    assert tiled["scale"] == one["scale"] == "z"
    assert (tiled["palette"], tiled["color"]) == (one["palette"], one["color"])
