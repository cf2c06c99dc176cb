"""FlashAttention (app.labs.flash): Algorithm 1's tile sizes, the online softmax equal to the
one-shot softmax for random and adversarial scores, the trace's m and ℓ, and Theorem 2."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.labs import flash
from app.labs.attend import softmax_rows

labs = settings(max_examples=80, deadline=None)


def one_shot(s: np.ndarray[Any, Any], v: np.ndarray[Any, Any], allowed: Any = None) -> Any:
    return softmax_rows(s if allowed is None else np.where(allowed, s, -np.inf)) @ v


def test_block_sizes_of_algorithm_1() -> None:
    # B_c = ⌈M / 4d⌉, B_r = min(⌈M / 4d⌉, d)
    b = flash.blocks(1024, 64, 100_000)  # ⌈100000 / 256⌉ = 391
    assert (b.block_cols, b.block_rows, b.row_tiles, b.col_tiles) == (391, 64, 16, 3)
    b = flash.blocks(10, 4, 20)  # ⌈20 / 16⌉ = 2
    assert (b.block_cols, b.block_rows, b.row_tiles, b.col_tiles) == (2, 2, 5, 5)
    assert flash.blocks(1, 1, 1) == flash.Blocks(1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"^sram:"):
        flash.blocks(4, 4, 0)


@st.composite
def case(draw: st.DrawFn) -> tuple[Any, ...]:
    n, n_k, d_v = draw(st.integers(1, 9)), draw(st.integers(1, 9)), draw(st.integers(1, 3))
    scores = st.one_of(
        st.floats(-50, 50, allow_nan=False, width=64),
        st.sampled_from([0.0, 1.0, 1e300, -1e300, 700.0, 710.0]),  # ties, huge, exp's edge
    )
    s = draw(arrays(np.float64, (n, n_k), elements=scores))
    v = draw(arrays(np.float64, (n_k, d_v), elements=st.floats(-5, 5, width=64)))
    allowed = draw(arrays(np.bool_, (n, n_k)))
    return s, v, allowed, draw(st.integers(1, 4)), draw(st.integers(1, 4))


@labs
@given(case())
def test_tiled_equals_one_shot(c: tuple[Any, ...]) -> None:
    s, v, allowed, b_r, b_c = c
    for mask in (None, allowed):
        out, trace = flash.tiled_attention(s, v, b_r, b_c, mask)
        np.testing.assert_allclose(out, one_shot(s, v, mask), rtol=0, atol=1e-12)
        assert len(trace) == -(-s.shape[0] // b_r) * -(-s.shape[1] // b_c)


def test_fully_masked_tiles_and_rows() -> None:
    s = np.arange(12.0).reshape(3, 4)
    allowed = np.ones((3, 4), bool)
    allowed[:, :2] = False  # the first column tile is fully masked
    allowed[2] = False  # row 2 sees nothing at all
    out, trace = flash.tiled_attention(s, np.eye(4), 3, 2, allowed)
    assert np.isfinite(out).all()
    assert out[2].tolist() == [0.0] * 4
    first = trace[0]
    assert np.isneginf(first.m_tile).all()
    assert first.l_after.tolist() == [0.0] * 3
    np.testing.assert_allclose(out, one_shot(s, np.eye(4), allowed), atol=1e-12)


def test_a_larger_score_rescales_the_running_sum() -> None:
    # one row, tiles of one key: scores 1, 3, 2 — the second tile raises m from 1 to 3
    out, trace = flash.tiled_attention(np.array([[1.0, 3.0, 2.0]]), np.eye(3), 1, 1)
    t0, t1, t2 = trace
    assert (t0.m_after[0], t1.m_before[0], t1.m_after[0], t2.m_after[0]) == (1.0, 1.0, 3.0, 3.0)
    assert t1.rescale[0] == np.exp(1.0 - 3.0)  # e^(m − m_new) < 1: the old sum shrinks
    assert t2.rescale[0] == 1.0  # 2 < 3: nothing to rescale
    assert t1.l_after[0] == pytest.approx(np.exp(-2.0) + 1.0, rel=1e-15)
    assert t2.l_after[0] == pytest.approx(np.exp(-2.0) + 1.0 + np.exp(-1.0), rel=1e-15)
    np.testing.assert_allclose(out, softmax_rows(np.array([[1.0, 3.0, 2.0]])), atol=1e-15)


def test_ties_and_a_single_cell() -> None:
    out, _ = flash.tiled_attention(np.full((2, 6), 7.0), np.arange(6.0)[:, None], 1, 4)
    np.testing.assert_allclose(out, 2.5, atol=1e-12)
    out, trace = flash.tiled_attention(np.array([[1e300]]), np.array([[2.0]]), 1, 1)
    assert out.tolist() == [[2.0]]
    assert trace[0].l_after.tolist() == [1.0]
    with pytest.raises(ValueError, match=r"^block_rows:"):
        flash.tiled_attention(np.zeros((1, 1)), np.zeros((1, 1)), 0, 1)


def test_theorem_2_orders_of_growth() -> None:
    t = flash.traffic(1024, 64, 100_000)
    assert t.standard == 1024 * 64 + 1024**2
    assert t.tiled == 1024**2 * 64**2 / 100_000
    assert "order of growth" in t.label
    # doubling N: the standard grows about 4x (N² dominates), the tiled exactly 4x
    t2 = flash.traffic(2048, 64, 100_000)
    assert t2.tiled == 4 * t.tiled
    assert 3.5 < t2.standard / t.standard < 4
    # the tiled one is smaller when M > d² (Theorem 2's point, for d ≤ M ≤ Nd)
    assert flash.traffic(4096, 64, 64 * 64 * 2).tiled < flash.traffic(4096, 64, 8192).standard
