"""The numpy erf and GELU agree with the standard library's exact erf."""

from __future__ import annotations

import math

import numpy as np

from app.models.erf import erf, gelu


def test_erf_agrees_with_math_erf_to_1e_8_everywhere() -> None:
    z = np.concatenate([np.linspace(-10, 10, 40001), [0.0, -0.0, 5.999999, 6.0, 1e-9, 40.0]])
    expected = np.array([math.erf(v) for v in z])
    assert np.abs(erf(z) - expected).max() < 1e-8
    assert erf(np.array([-3.0]))[0] == -erf(np.array([3.0]))[0]  # odd


def test_gelu_is_x_times_the_normal_cdf_in_the_input_dtype() -> None:
    x = np.linspace(-8, 8, 2001, dtype=np.float32)
    expected = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)]
    out = gelu(x)
    assert out.dtype == np.float32
    assert np.abs(out - np.array(expected)).max() < 1e-6
    assert gelu(np.array([0.0]))[0] == 0.0
