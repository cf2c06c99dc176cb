"""RoPE and ALiBi (app.labs.rotary, app.labs.alibi): θ_i, wavelengths, the offset-only
score, and the ALiBi paper's slopes.

Shift invariance, which of the two holds: the relative form (Eq. 16, read from m − n) is
equal to the last digit after both positions shift, because it never sees m or n apart;
rotate-then-dot (what a model computes) agrees within 1e-12 of ‖q‖‖k‖ for positions below
4096, not bitwise, because cos(mθ)cos(nθ) + sin(mθ)sin(nθ) = cos((m − n)θ) holds only in
exact arithmetic and each angle m·θ is rounded on its own (the error grows with m).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.labs import alibi, rotary

labs = settings(max_examples=80, deadline=None)
values = st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=64)


def test_thetas_and_wavelengths() -> None:
    t = rotary.thetas(8)
    assert t.tolist() == [1.0, 0.1, 0.01, 0.001]  # 10000^(−2i/8) = 10^(−i)
    for base in (10_000.0, 100_000.0):
        w = rotary.wavelengths(128, base)
        assert w[0] == 2 * math.pi
        assert w[-1] == pytest.approx(2 * math.pi * base ** (126 / 128), rel=1e-15)
        np.testing.assert_allclose(w[1:] / w[:-1], base ** (2 / 128), rtol=1e-12)  # geometric
        assert w[-1] < 2 * math.pi * base  # "from 2π to 10000 · 2π" as d grows
    assert rotary.wavelengths(128)[-1] == pytest.approx(54_410.14, abs=0.01)
    assert rotary.wavelengths(128, 100_000.0)[-1] == pytest.approx(524_873.77, abs=0.01)


def test_rotation_of_a_pair() -> None:
    x = np.array([[1.0, 0.0, 1.0, 0.0]])
    turned = rotary.rotate(x, np.array([1.0]), base=100.0)  # θ = 1, 0.1
    np.testing.assert_allclose(turned, [[math.cos(1), math.sin(1), math.cos(0.1), math.sin(0.1)]])
    assert np.array_equal(rotary.rotate(x, np.array([0.0])), x)  # position 0: no turn
    # a rotation keeps each pair's length
    y = np.random.default_rng(0).normal(size=(5, 6))
    r = rotary.rotate(y, np.arange(5.0) * 37)
    np.testing.assert_allclose(np.hypot(r[:, 0::2], r[:, 1::2]), np.hypot(y[:, 0::2], y[:, 1::2]))


@st.composite
def rope_case(draw: st.DrawFn) -> tuple[Any, ...]:
    d = 2 * draw(st.integers(1, 4))
    l_q, l_k = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    q = draw(arrays(np.float64, (l_q, d), elements=values))
    k = draw(arrays(np.float64, (l_k, d), elements=values))
    positions = st.integers(0, 2048)
    q_pos = np.array([draw(positions) for _ in range(l_q)], dtype=np.float64)
    k_pos = np.array([draw(positions) for _ in range(l_k)], dtype=np.float64)
    return q, k, q_pos, k_pos, draw(st.integers(-2048, 2048)), draw(st.sampled_from([1e4, 1e5]))


@labs
@given(rope_case())
def test_scores_depend_only_on_the_offset(case: tuple[Any, ...]) -> None:
    q, k, q_pos, k_pos, shift, base = case
    exact = rotary.relative_scores(q, k, q_pos, k_pos, base)
    assert np.array_equal(rotary.relative_scores(q, k, q_pos + shift, k_pos + shift, base), exact)
    scale = 1e-12 * (1 + np.linalg.norm(q, axis=1)[:, None] * np.linalg.norm(k, axis=1)[None, :])
    for qp, kp in ((q_pos, k_pos), (q_pos + shift, k_pos + shift)):
        assert np.all(np.abs(rotary.scores(q, k, qp, kp, base) - exact) <= scale)


def test_rope_is_not_bitwise_shift_invariant_when_rotated_first() -> None:
    # why the tolerance: the same offset at other positions rounds differently
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=(3, 8)), rng.normal(size=(3, 8))
    p = np.arange(3.0)
    a, b = rotary.scores(q, k, p, p), rotary.scores(q, k, p + 1000, p + 1000)
    assert not np.array_equal(a, b)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("d", "base"), [(3, 1e4), (0, 1e4), (4, 1.0), (4, math.inf)])
def test_bad_rope_inputs(d: int, base: float) -> None:
    with pytest.raises(ValueError, match=r"^(d_k|base):"):
        rotary.thetas(d, base)


def test_alibi_slopes_the_paper_prints() -> None:
    # §3: 8 heads "1/2^1, 1/2^2, ..., 1/2^8"; 16 heads start at 1/2^0.5 with ratio 1/2^0.5
    assert alibi.slopes(8).tolist() == [2.0**-i for i in range(1, 9)]
    np.testing.assert_allclose(
        alibi.slopes(16), [2.0 ** (-i / 2) for i in range(1, 17)], rtol=1e-15
    )
    assert alibi.slopes(1).tolist() == [2.0**-8]
    assert alibi.slopes(2).tolist() == [2.0**-4, 2.0**-8]


def test_alibi_slopes_for_head_counts_that_are_not_powers_of_two() -> None:
    # 12 heads: the 8 of 8 heads, then 16 heads' 1st, 3rd, 5th and 7th
    expected = [2.0**-i for i in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    np.testing.assert_allclose(alibi.slopes(12), expected, rtol=1e-15)
    assert alibi.slopes(3).tolist() == [2.0**-4, 2.0**-8, 2.0**-2]
    assert alibi.slopes(6).tolist() == [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]  # docstring
    for n in range(1, 80):
        s = alibi.slopes(n)
        assert s.shape == (n,)
        assert len(set(s.tolist())) == n
        assert np.all((s > 0) & (s < 1))
    with pytest.raises(ValueError, match=r"^heads:"):
        alibi.slopes(0)


def test_alibi_bias() -> None:
    b = alibi.bias(0.5, 3, 3)
    assert b.tolist() == [[0.0, 0.5, 1.0], [-0.5, 0.0, 0.5], [-1.0, -0.5, 0.0]]
    assert np.array_equal(alibi.biases(2, 3, 3)[1], alibi.bias(2.0**-8, 3, 3))
    assert alibi.bias(0.25, 1, 1).tolist() == [[0.0]]
