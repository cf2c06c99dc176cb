"""FLOPs and parameter counts (LABS.md §2 /cost, G1-G3, F3): exact integers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lab_fixtures import FIXTURES

from app.labs.cost import (
    EXACT_BELOW,
    Config,
    check,
    cost,
    counts,
    flops,
    largest_count,
    largest_exact_n,
    params,
)

BASE = Config(**FIXTURES["base_model"])


def test_defaults_are_the_base_model() -> None:
    assert Config() == BASE
    assert BASE.biases is False


def test_flops_of_the_base_model_by_hand() -> None:
    f = cost(BASE).flops
    # N = d = 512 = 2^9
    assert f.projections == 3 * 2**27 == 402_653_184
    assert f.scores == f.weighted_sum == f.output_projection == 2**27 == 134_217_728
    assert f.linear == 4 * 2**27 == 536_870_912
    assert f.quadratic == 2 * 2**27 == 268_435_456
    assert f.total == 805_306_368


def test_crossover_score_cells_and_memory_of_the_base_model() -> None:
    c = cost(BASE)
    assert c.crossover_n == 1024
    assert c.score_cells == 262_144
    assert c.memory.score_table_bytes == 1_048_576  # 4 bytes × 512²: 1 MiB
    assert c.memory.all_tables_bytes == 1_048_576 * 8 * 6


def test_parameters_of_the_base_model() -> None:
    p = cost(BASE).params
    assert p.attention == 1_048_576  # 4 · 512²
    assert p.ffn == 2_097_152  # 2 · 512 · 2048
    assert p.layer_norm == 0
    assert p.embedding == 25_600_000
    assert p.per_layer == 3_145_728
    assert p.total == 25_600_000 + 6 * 3_145_728 == 44_474_368
    # the chapter's "2.1 million against 1.0 million", to one decimal
    assert [round(p.ffn / 1e6, 1), round(p.attention / 1e6, 1)] == FIXTURES[
        "quotation_ffn_vs_attention_millions"
    ]


def test_parameters_with_biases_and_layer_norms() -> None:
    p = cost(Config(biases=True)).params
    assert p.attention == 1_048_576 + 2048
    assert p.ffn == 2_097_152 + 2048 + 512
    assert p.layer_norm == 2048
    assert p.per_layer == 1_050_624 + 2_099_712 + 2048 == 3_152_384
    assert p.total == 25_600_000 + 6 * 3_152_384


def test_heads_anchor_and_heads_are_free() -> None:
    h = cost(BASE).heads
    assert h.d_k == FIXTURES["anchor_heads"]["d_k"] == 64
    assert h.one_head_qkv == 3 * 512 * 64
    assert h.all_heads_qkv == h.full_width_qkv == 3 * 512**2
    assert h.score_flops == 8 * 512**2 * 64 == cost(BASE).flops.scores


@given(st.integers(1, 2**20), st.integers(1, 2**16))
def test_quadratic_wins_exactly_past_two_d_model(n: int, d: int) -> None:
    f = flops(n, d)
    assert (f.quadratic > f.linear) == (n > 2 * d)
    assert (f.quadratic == f.linear) == (n == 2 * d)
    assert f.total == 4 * n * d * d + 2 * n * n * d


@given(st.integers(1, 4096), st.integers(0, 6), st.integers(1, 2**14), st.booleans())
def test_heads_change_no_count(d_k: int, log_h: int, n: int, biases: bool) -> None:
    h = 2**log_h
    one = cost(Config(n=n, d_model=d_k * h, heads=1, biases=biases))
    many = cost(Config(n=n, d_model=d_k * h, heads=h, biases=biases))
    assert (one.flops, one.params) == (many.flops, many.params)
    assert many.heads.all_heads_qkv == many.heads.full_width_qkv
    assert many.heads.score_flops == many.flops.scores


def test_four_times_the_context_is_sixteen_times_the_cells() -> None:
    for n in (128, 1000, 32_768):
        small, big = cost(Config(n=n)), cost(Config(n=4 * n))
        assert big.score_cells == 16 * small.score_cells
        assert big.flops.quadratic == 16 * small.flops.quadratic
        assert big.memory.score_table_bytes == 16 * small.memory.score_table_bytes


def test_huge_sizes_stay_exact_integers() -> None:
    n, d = 2**40, 2**30  # far past any float's exact range
    f = flops(n, d)
    assert f.total == 4 * n * d * d + 2 * n * n * d == 2**102 + 2**111
    assert isinstance(f.total, int)
    assert params(Config(d_model=d, heads=1, vocab=n, d_ff=d)).embedding == 2**70


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"n": 0}, "n"), ({"d_model": -1}, "d_model"), ({"layers": True}, "layers"),
     ({"vocab": 1.5}, "vocab"), ({"heads": 7}, "heads")],
)  # fmt: skip
def test_bad_configs_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        check(Config(**changes))  # type: ignore[arg-type]


def test_counts_name_every_integer_of_the_answer() -> None:
    c = cost(BASE)
    named = counts(c)
    assert named["flops.total"] == c.flops.total
    assert named["memory.all_tables_bytes"] == c.memory.all_tables_bytes
    assert len(named) == 7 + 2 + 6 + 5 + 2
    assert largest_count(c) == ("flops.total", c.flops.total)


@given(st.integers(1, 2**16), st.integers(0, 6), st.integers(1, 1024))
def test_largest_exact_n_is_the_last_n_below_two_to_the_53(
    d_k: int, log_h: int, layers: int
) -> None:
    h = 2**log_h
    c = Config(d_model=d_k * h, heads=h, layers=layers)
    n = largest_exact_n(c)
    if n > 0:  # 0: even N = 1 does not fit (a huge model: its parameters alone pass 2^53)
        assert largest_count(cost(Config(**{**vars(c), "n": n})))[1] < EXACT_BELOW
    assert largest_count(cost(Config(**{**vars(c), "n": n + 1})))[1] >= EXACT_BELOW


def test_largest_exact_n_is_zero_when_nothing_fits() -> None:
    assert largest_exact_n(Config(d_model=2**30, heads=1)) == 0
