"""The why-scale experiments (C1–C3) in app.labs.experiments.

Three kinds of test: the documented draw order, checked by redrawing it by hand; laws
that hold for any parameters (Hypothesis); and statistical claims, each tested over
several seeds with bands of four standard errors, never against one random stream.
Only same-parameters determinism is tested for equality.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.labs.experiments import (
    CHUNK_PAIRS,
    CHUNK_SCORES,
    P_MAX_BINS,
    SaturationParams,
    ScalingTableParams,
    ScoreVarianceParams,
    _saturation_side,
    blocks_total,
    experiment_cells,
    held_cells,
    iterate,
    run_experiment,
    saturation_steps,
    score_variance_steps,
    softmax_stats,
    steps,
)
from app.wire import encode

FIX: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "labs-fixtures.json").read_text(encoding="utf-8")
)
SEEDS = range(6)
BAND = 4.0  # standard errors


def hand_scores(rng: np.random.Generator, d_k: int, m: int, n: int) -> Any:
    """The draw rule as the module docstring writes it."""
    norm2 = rng.chisquare(d_k, size=m)
    z = rng.standard_normal((m, n))
    return np.sqrt(norm2)[:, None] * z


# --- the documented draw order -----------------------------------------------------------


def test_score_variance_follows_the_documented_draw_order() -> None:
    p = ScoreVarianceParams(d_ks=(8, 3), draws=CHUNK_PAIRS + 7, seed=11, bins=5)
    rng = np.random.default_rng(11)
    for want_d, got in zip(p.d_ks, run_experiment(p)["widths"], strict=True):
        s = np.concatenate([hand_scores(rng, want_d, CHUNK_PAIRS, 1)[:, 0],
                            hand_scores(rng, want_d, 7, 1)[:, 0]])  # fmt: skip
        assert got["d_k"] == want_d
        assert got["mean"] == float(np.mean(s))
        assert got["var"] == float(np.var(s))
        assert got["scaled_var"] == float(np.var(s / math.sqrt(want_d)))
        counts, edges = np.histogram(s, bins=5)
        assert got["histogram"]["counts"].tolist() == counts.tolist()
        assert got["histogram"]["edges"].tolist() == edges.tolist()


def test_saturation_follows_the_documented_draw_order() -> None:
    p = SaturationParams(d_k=16, keys=5, trials=30, threshold=0.6, seed=3)
    s = hand_scores(np.random.default_rng(3), 16, 30, 5)  # one block: 30 · 5 < CHUNK_SCORES
    for name, grid in (("unscaled", s), ("scaled", s / 4.0)):
        w = np.exp(grid - grid.max(axis=1, keepdims=True))
        p_max = (w / w.sum(axis=1, keepdims=True)).max(axis=1)
        got = run_experiment(p)[name]
        sat = p_max > 0.6
        assert got["saturated_fraction"] == pytest.approx(sat.mean(), abs=1e-15)
        assert got["mean_p_max"] == pytest.approx(p_max.mean(), rel=1e-13)
        if sat.any():
            want = (p_max * (1 - p_max))[sat].mean()
            assert got["mean_saturated_p_one_minus_p"] == pytest.approx(want, rel=1e-12)
        counts = np.histogram(p_max, bins=P_MAX_BINS, range=(0, 1))[0]
        assert got["p_max_histogram"]["counts"].tolist() == counts.tolist()


def test_scaling_table_follows_the_documented_draw_order() -> None:
    p = ScalingTableParams(d_ks=(4, 9), keys=6, draws=40, seed=5)
    rng = np.random.default_rng(5)
    table = run_experiment(p)
    assert table["max_entropy_bits"] == math.log2(6)
    for d_k, row in zip(p.d_ks, table["rows"], strict=True):
        s = hand_scores(rng, d_k, 40, 6)
        assert row["spread"] == pytest.approx(s.std(axis=1).mean(), rel=1e-13)
        assert row["pooled_spread"] == pytest.approx(s.std(), rel=1e-12)
        for side, grid in (("raw", s), ("scaled", s / math.sqrt(d_k))):
            w = np.exp(grid - grid.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            h = -(w * np.log2(w, where=w > 0, out=np.zeros_like(w))).sum(axis=1)
            assert row[f"{side}_max_weight"] == pytest.approx(w.max(axis=1).mean(), rel=1e-12)
            assert row[f"{side}_entropy_bits"] == pytest.approx(h.mean(), rel=1e-9, abs=1e-12)


def test_blocks_depend_on_the_body_only() -> None:
    assert blocks_total(ScoreVarianceParams(draws=200_000)) == 4 * 10
    assert blocks_total(ScoreVarianceParams(draws=45_000, d_ks=(1,))) == 3
    assert blocks_total(SaturationParams(keys=CHUNK_SCORES, trials=7)) == 7
    assert blocks_total(ScalingTableParams()) == 5
    p = ScoreVarianceParams(draws=45_000, d_ks=(2, 3))
    progress = [x for x in iterate(steps(p)) if isinstance(x, tuple)]
    assert progress == [(i, 6) for i in range(1, 7)]


def test_same_parameters_same_bytes_other_seed_other_numbers() -> None:
    for p in (ScoreVarianceParams(draws=5000), SaturationParams(), ScalingTableParams()):
        assert encode(run_experiment(p)) == encode(run_experiment(p))
    a = run_experiment(ScoreVarianceParams(draws=5000, seed=0))
    b = run_experiment(ScoreVarianceParams(draws=5000, seed=1))
    assert a["widths"][0]["var"] != b["widths"][0]["var"]


def test_a_run_stops_when_its_reader_stops() -> None:
    gen = score_variance_steps(ScoreVarianceParams(draws=200_000))
    assert next(gen) == (1, 40)
    gen.close()  # what a cancelled stream does: no further block is drawn
    with pytest.raises(StopIteration):
        next(gen)


def test_threshold_is_strict_and_no_saturated_trial_gives_none() -> None:
    p = SaturationParams(d_k=1, keys=1024, trials=3, threshold=0.999, seed=0)
    out = run_experiment(p)
    assert out["scaled"]["saturated_fraction"] == 0.0
    assert out["scaled"]["mean_saturated_p_one_minus_p"] is None
    # p_max is never above 1 and at least 1/keys, so threshold 1/keys − ε saturates all
    low = run_experiment(SaturationParams(keys=2, trials=50, threshold=0.4999))
    assert low["unscaled"]["saturated_fraction"] == 1.0


def test_saturated_means_strictly_above_the_threshold() -> None:
    side = _saturation_side(np.array([0.5, 0.99, 0.995, 1.0]), 0.99)
    assert side["saturated_fraction"] == 0.5  # 0.99 itself is not saturated
    assert side["mean_saturated_p_one_minus_p"] == pytest.approx((0.995 * 0.005 + 0.0) / 2)
    assert side["p_max_histogram"]["counts"].tolist()[-1] == 3  # [0.98, 1], 1 included


def test_softmax_stats_agree_with_the_definition_and_never_give_nan() -> None:
    s = np.array([[2.0, 1.0, 0.0], [1000.0, -1000.0, 0.0], [5.0, 5.0, 5.0]])
    p_max, h = softmax_stats(s)
    assert p_max[0] == pytest.approx(math.exp(2) / (math.exp(2) + math.e + 1), rel=1e-15)
    assert p_max[1] == 1.0
    assert h[1] == 0.0
    assert h[2] == pytest.approx(math.log2(3), rel=1e-15)
    assert np.isfinite(h).all()


# --- Hypothesis: laws for any parameters -------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 1024), min_size=1, max_size=3), st.integers(1, 3000),
       st.integers(0, 2**53 - 1), st.integers(5, 200))  # fmt: skip
def test_score_variance_shapes(d_ks: list[int], draws: int, seed: int, bins: int) -> None:
    out = run_experiment(ScoreVarianceParams(tuple(d_ks), draws, seed, bins))
    assert [w["d_k"] for w in out["widths"]] == d_ks
    for w in out["widths"]:
        assert int(w["histogram"]["counts"].sum()) == draws
        assert len(w["histogram"]["edges"]) == bins + 1
        assert w["var"] >= 0
        assert w["var_over_d_k"] == pytest.approx(w["scaled_var"], rel=1e-9, abs=1e-15)
        assert math.isfinite(w["mean"])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 1024), st.integers(2, 300), st.integers(1, 300),
       st.floats(0.01, 0.99), st.integers(0, 1000))  # fmt: skip
def test_saturation_laws(d_k: int, keys: int, trials: int, t: float, seed: int) -> None:
    out = run_experiment(SaturationParams(d_k, keys, trials, t, seed))
    for side in out.values():
        assert 0 <= side["saturated_fraction"] <= 1
        assert 1 / keys - 1e-12 <= side["mean_p_max"] <= 1
        assert int(side["p_max_histogram"]["counts"].sum()) == trials
        g = side["mean_saturated_p_one_minus_p"]
        assert (g is None) == (side["saturated_fraction"] == 0)
        if g is not None:
            assert 0 <= g <= 0.25
    if t >= 0.5:  # p > t ≥ 1/2, where p(1 − p) falls: every saturated term is below t(1 − t)
        for side in out.values():
            g = side["mean_saturated_p_one_minus_p"]
            assert g is None or g < t * (1 - t) + 1e-12


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 1024), min_size=1, max_size=3), st.integers(2, 64),
       st.integers(1, 100), st.integers(0, 1000))  # fmt: skip
def test_scaling_table_laws(d_ks: list[int], keys: int, draws: int, seed: int) -> None:
    out = run_experiment(ScalingTableParams(tuple(d_ks), keys, draws, seed))
    assert out["max_entropy_bits"] == pytest.approx(math.log2(keys))
    for row in out["rows"]:
        assert row["spread"] <= row["pooled_spread"] + 1e-9  # mean of stds ≤ pooled std
        for side in ("raw", "scaled"):
            assert 1 / keys - 1e-12 <= row[f"{side}_max_weight"] <= 1
            assert 0 <= row[f"{side}_entropy_bits"] <= math.log2(keys) + 1e-9


def test_costs_grow_with_the_body() -> None:
    small, big = SaturationParams(trials=100), SaturationParams(trials=10_000, keys=1024)
    assert experiment_cells(big) > 100 * experiment_cells(small)
    assert held_cells(big) < 2_000_000  # blocks keep memory flat


# --- statistics: C1 ----------------------------------------------------------------------


@pytest.mark.parametrize("d_k", [1, 4, 32, 256])
def test_c1_var_over_d_k_is_one_within_its_standard_error(d_k: int) -> None:
    n = 20_000
    se = math.sqrt((2 + 6 / d_k) / n)  # LABS.md C1, from E[s⁴] = 3d_k² + 6d_k
    values, means = [], []
    for seed in SEEDS:
        w = run_experiment(ScoreVarianceParams((d_k,), n, seed))["widths"][0]
        assert abs(w["var_over_d_k"] - 1) <= BAND * se
        assert abs(w["scaled_var"] - 1) <= BAND * se
        assert abs(w["mean"]) <= BAND * math.sqrt(d_k / n)
        values.append(w["var_over_d_k"])
        means.append(w["mean"])
    assert abs(np.mean(values) - 1) <= BAND * se / math.sqrt(len(SEEDS))


@pytest.mark.parametrize("d_k", [2, 16])
def test_c1_shortcut_has_the_literal_draws_fourth_moment(d_k: int) -> None:
    """s = ‖q‖·z against s = q·k drawn entry by entry: E[s²] = d_k, E[s⁴] = 3d_k² + 6d_k."""
    n = 40_000
    m4 = 3 * d_k**2 + 6 * d_k
    se4 = math.sqrt((105 * d_k**4) / n) * 2  # generous: Var(s⁴) ≤ E[s⁸] ≈ 105 d_k⁴ (+ lower)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        literal = (rng.standard_normal((n, d_k)) * rng.standard_normal((n, d_k))).sum(axis=1)
        shortcut = hand_scores(np.random.default_rng(seed + 100), d_k, n, 1)[:, 0]
        for s in (literal, shortcut):
            assert abs(np.mean(s**2) - d_k) <= BAND * math.sqrt((2 * d_k**2 + 6 * d_k) / n)
            assert abs(np.mean(s**4) - m4) <= BAND * se4


def test_c1_course_module_values_are_within_two_standard_errors_of_ours() -> None:
    quoted = FIX["C1"]["printed"]
    p = ScoreVarianceParams(tuple(quoted["d_ks"]), quoted["draws"], seed=0)
    for w, q in zip(run_experiment(p)["widths"], quoted["var_over_d_k"], strict=True):
        se = math.sqrt((2 + 6 / w["d_k"]) / quoted["draws"])
        # two independent estimates of 1: their difference has SE √2·se
        assert abs(w["var_over_d_k"] - q) <= BAND * math.sqrt(2) * se


# --- statistics: C2 ----------------------------------------------------------------------


def test_c2_unscaled_saturates_like_the_course_module_scaled_never() -> None:
    q = FIX["C2"]["printed"]
    fractions = []
    for seed in SEEDS:
        out = run_experiment(SaturationParams(q["d_k"], q["keys"], 2000, q["threshold"], seed))
        assert out["scaled"]["saturated_fraction"] == q["scaled_saturated"]
        assert out["scaled"]["mean_saturated_p_one_minus_p"] is None
        fractions.append(out["unscaled"]["saturated_fraction"])
        g = out["unscaled"]["mean_saturated_p_one_minus_p"]
        assert 0 < g < q["threshold"] * (1 - q["threshold"])
    ours = float(np.mean(fractions))
    se_ours = math.sqrt(ours * (1 - ours) / (2000 * len(SEEDS)))
    se_module = math.sqrt(ours * (1 - ours) / q["trials"])  # it ran 500 trials
    assert abs(ours - q["unscaled_saturated"]) <= BAND * math.hypot(se_ours, se_module)
    # and the per-seed fractions scatter as binomial proportions do
    assert np.std(fractions) <= 2 * math.sqrt(ours * (1 - ours) / 2000)


def test_c2_saturation_grows_with_d_k_unscaled() -> None:
    def rate(d_k: int) -> float:
        runs = [run_experiment(SaturationParams(d_k, 64, 1000, 0.99, s)) for s in range(3)]
        return float(np.mean([r["unscaled"]["saturated_fraction"] for r in runs]))

    rates = [rate(d_k) for d_k in (16, 128, 1024)]
    assert rates[0] < rates[1] < rates[2]


# --- statistics: C3 ----------------------------------------------------------------------


def expected_spread(d_k: int, keys: int) -> float:
    """E[‖q‖]·E[population std of `keys` standard normals], exactly (gamma functions)."""
    e_norm = math.sqrt(2) * math.exp(math.lgamma((d_k + 1) / 2) - math.lgamma(d_k / 2))
    c4 = math.sqrt(2 / (keys - 1)) * math.exp(math.lgamma(keys / 2) - math.lgamma((keys - 1) / 2))
    return e_norm * c4 * math.sqrt((keys - 1) / keys)


def seeded_tables(n_seeds: int = 8) -> list[dict[str, Any]]:
    return [run_experiment(ScalingTableParams(seed=s)) for s in range(n_seeds)]


@pytest.fixture(scope="module")
def tables() -> list[dict[str, Any]]:
    return seeded_tables()


def column(tables: list[dict[str, Any]], key: str) -> Any:
    """(seeds, widths)"""
    return np.array([[row[key] for row in t["rows"]] for t in tables])


def test_c3_per_draw_spread_matches_its_exact_expectation(tables: list[dict[str, Any]]) -> None:
    spread = column(tables, "spread")
    d_ks = [row["d_k"] for row in tables[0]["rows"]]
    se = spread.std(axis=0, ddof=1) / math.sqrt(len(tables))
    want = np.array([expected_spread(d, 8) for d in d_ks])
    assert (np.abs(spread.mean(axis=0) - want) <= BAND * se).all()
    # the 0.90 factor: the expected population std of 8 standard normals
    assert round(expected_spread(10**9, 8) / math.sqrt(10**9), 2) == FIX["C3"]["printed"]["factor"]


def test_c3_pooled_spread_doubles_per_fourfold_width(tables: list[dict[str, Any]]) -> None:
    pooled = column(tables, "pooled_spread")
    d_ks = np.array([row["d_k"] for row in tables[0]["rows"]])
    ratio = pooled / np.sqrt(d_ks)
    se = ratio.std(axis=0, ddof=1) / math.sqrt(len(tables))
    assert (np.abs(ratio.mean(axis=0) - 1) <= BAND * se + 0.01).all()
    # the textbook's quoted pooled spreads: one run each, so compare with a single run's SD
    quoted = np.array(FIX["C3"]["printed"]["pooled_spread"])
    sd_one = pooled.std(axis=0, ddof=1)
    assert (np.abs(pooled.mean(axis=0) - quoted) <= BAND * sd_one * math.sqrt(1 + 1 / 8)).all()


def test_c3_raw_weights_pile_up_scaled_columns_stay_put(tables: list[dict[str, Any]]) -> None:
    raw_max = column(tables, "raw_max_weight").mean(axis=0)
    raw_h = column(tables, "raw_entropy_bits").mean(axis=0)
    scaled_h = column(tables, "scaled_entropy_bits")
    assert (np.diff(raw_max) > 0).all()
    assert (np.diff(raw_h) < 0).all()
    # scaled entropy: the widths differ by less than the seeds scatter (4 SE of a difference)
    se = scaled_h.std(axis=0, ddof=1) / math.sqrt(len(tables))
    spread = scaled_h.mean(axis=0).max() - scaled_h.mean(axis=0).min()
    assert spread <= BAND * math.sqrt(2) * se.max() + 0.05
    assert tables[0]["max_entropy_bits"] == FIX["C3"]["printed"]["max_entropy_bits"]


def test_c2_steps_report_every_block() -> None:
    p = SaturationParams(keys=CHUNK_SCORES // 10, trials=25)
    gen = saturation_steps(p)
    assert [next(gen) for _ in range(3)] == [(1, 3), (2, 3), (3, 3)]
