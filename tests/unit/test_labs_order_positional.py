"""Sinusoidal positional encoding (LABS.md E2) and ``positional`` on an attention body."""

from __future__ import annotations

import math

import numpy as np
import pytest
from engine_spec import SPEC, arr
from hypothesis import given
from hypothesis import strategies as st

from app.attention import run
from app.inputs.body import AttentionRequest
from app.inputs.errors import FieldError
from app.labs.positional import sinusoidal, wavelengths


def test_position_zero_is_sines_of_zero_and_cosines_of_zero() -> None:
    assert sinusoidal(1, 6).tolist() == [[0.0, 1.0, 0.0, 1.0, 0.0, 1.0]]


def test_exact_values_at_width_4() -> None:
    # d_model = 4: dimensions 0, 1 have wavelength 10000^0 = 1; 2, 3 have 10000^(2/4) = 100
    pe = sinusoidal(3, 4)
    assert pe.shape == (3, 4)
    assert pe[1].tolist() == [math.sin(1), math.cos(1), math.sin(1 / 100), math.cos(1 / 100)]
    assert pe[2].tolist() == [math.sin(2), math.cos(2), math.sin(2 / 100), math.cos(2 / 100)]
    assert wavelengths(4).tolist() == [1.0, 1.0, 100.0, 100.0]


def test_the_formula_entry_by_entry_with_another_base() -> None:
    pe = sinusoidal(7, 10, base=50.0)
    for pos in range(7):
        for i in range(5):
            angle = pos / 50.0 ** (2 * i / 10)
            assert pe[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-15)
            assert pe[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-15)


def test_odd_width_ends_with_a_sine() -> None:
    pe = sinusoidal(4, 5)
    # the last dimension is 2i with i = 2: sin(pos / 10000^(4/5))
    assert pe[:, 4].tolist() == [math.sin(p / 10000 ** (4 / 5)) for p in range(4)]


@given(st.integers(1, 64), st.integers(1, 64), st.floats(1.5, 1e6))
def test_every_pair_is_a_point_on_the_unit_circle(positions: int, d: int, base: float) -> None:
    pe = sinusoidal(positions, d, base)
    assert pe.shape == (positions, d)
    assert np.isfinite(pe).all()
    pairs = pe[:, : d - d % 2].reshape(positions, -1, 2)
    np.testing.assert_allclose((pairs**2).sum(axis=2), 1.0, atol=1e-12)


def test_low_dimensions_oscillate_faster_than_high_ones() -> None:
    pe = sinusoidal(64, 16)
    sign_changes = [(np.diff(np.sign(pe[:, j])) != 0).sum() for j in range(0, 16, 2)]
    assert sign_changes == sorted(sign_changes, reverse=True)
    assert sign_changes[0] > sign_changes[-1]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="base"):
        sinusoidal(3, 4, base=0.0)
    with pytest.raises(ValueError, match="d_model"):
        sinusoidal(3, 0)


def _body(**changes: object) -> AttentionRequest:
    fields = {k: SPEC[k] for k in ("tokens", "x", "w_q", "w_k", "w_v")}
    return AttentionRequest(**{**fields, **changes})


def test_positional_adds_pe_to_x_before_the_projections() -> None:
    stages = run(_body(positional="sinusoidal").to_input())
    pe = sinusoidal(3, 4)
    assert stages.positional is not None
    np.testing.assert_array_equal(stages.positional, pe)
    by_hand = run(_body(x=(arr(SPEC["x"]) + pe).tolist()).to_input())
    np.testing.assert_array_equal(stages.output, by_hand.output)
    np.testing.assert_array_equal(stages.q, (arr(SPEC["x"]) + pe) @ arr(SPEC["w_q"]))


def test_positional_none_changes_nothing() -> None:
    plain = run(_body().to_input())
    assert plain.positional is None
    np.testing.assert_array_equal(plain.output, run(_body(positional="none").to_input()).output)
    assert not np.array_equal(plain.output, run(_body(positional="sinusoidal").to_input()).output)


def test_cross_attention_source_gets_its_own_encoding_from_position_zero() -> None:
    source = [*SPEC["x"], [1, 1, 0, 1]]
    stages = run(_body(positional="sinusoidal", x=SPEC["x"][:2], tokens=["I", "love"],
                       source={"x": source}).to_input())  # fmt: skip
    assert stages.source_x is not None
    np.testing.assert_array_equal(stages.source_x, arr(source) + sinusoidal(4, 4))
    assert stages.positional is not None
    np.testing.assert_array_equal(stages.positional, sinusoidal(2, 4))


def test_direct_mode_refuses_sinusoidal_naming_positional() -> None:
    req = AttentionRequest(q=[[1.0]], k=[[1.0]], v=[[1.0]], positional="sinusoidal")
    with pytest.raises(FieldError) as err:
        req.to_input()
    assert err.value.field == "positional"
    # "none" is fine in direct mode
    run(AttentionRequest(q=[[1.0]], k=[[1.0]], v=[[1.0]], positional="none").to_input())
