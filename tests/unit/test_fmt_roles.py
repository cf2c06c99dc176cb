"""The roles of ``app/figures/fmt.py``: one minus sign, no "−0", one precision rule per
role, powers of ten for big and tiny numbers, NaN refused and infinity where figures need it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.figures import fmt

MINUS = "\u2212"


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (2.0, "2"), (-1.0, "−1"), (1.5, "1.5"), (1.625, "1.62"), (1.634, "1.63"),
        (-2.5, "−2.5"), (0.1, "0.1"), (0.10000001, "0.1"), (-0.004, "0"), (-0.0, "0"),
        (0.005, "0.01"), (999999.0, "999999"), (-999999.0, "−999999"),
        (1e6, "1 × 10⁶"), (-1234567.0, "−1.23 × 10⁶"), (2.5e12, "2.5 × 10¹²"),
        (1e-9, "0"), (-math.inf, "−∞"), (math.inf, "∞"),
    ],
)  # fmt: skip
def test_value_rounds_to_two_decimals_and_writes_big_numbers_as_powers(x: float, text: str) -> None:
    assert fmt.value(x) == text


@pytest.mark.parametrize(
    ("x", "text"),
    [(1.0, "1"), (0.1, "0.10"), (-1.25, "−1.25"), (-0.001, "0.00"), (1.634, "1.63"),
     (3e6, "3 × 10⁶")],
)  # fmt: skip
def test_output_keeps_two_decimals_so_a_column_lines_up(x: float, text: str) -> None:
    assert fmt.output(x) == text


@pytest.mark.parametrize(
    ("a", "dp", "text"),
    [(0.0, 2, "0"), (1.0, 2, "1"), (0.5799, 2, "0.58"), (0.1, 2, "0.10"), (0.0003, 4, "0.0003"),
     (0.001, 2, "0.00")],
)  # fmt: skip
def test_weight_has_exactly_dp_decimals(a: float, dp: int, text: str) -> None:
    assert fmt.weight(a, dp) == text


def test_small_weight_never_prints_a_non_zero_weight_as_zero() -> None:
    assert fmt.small_weight(1.1e-7) == "1.1 × 10⁻⁷"
    assert fmt.small_weight(0.0003) == "0.0003"
    assert fmt.small_weight(0.0) == "0"
    assert fmt.small_weight(4e-3, 2) == "4.0 × 10⁻³"


@pytest.mark.parametrize(
    ("x", "text"),
    [(math.e, "2.718"), (12.18249, "12.182"), (1.0, "1.000"), (0.0, "0.000"),
     (math.exp(20), "4.852 × 10⁸"), (2.65e10, "2.650 × 10¹⁰"), (math.exp(-8), "3.355 × 10⁻⁴")],
)  # fmt: skip
def test_exponential_is_written_as_a_power_when_huge_or_tiny(x: float, text: str) -> None:
    assert fmt.exponential(x) == text


@pytest.mark.parametrize(
    ("x", "dp", "text"),
    [(math.sqrt(2), 3, "1.414"), (0.6931, 2, "0.69"), (0.0, 2, "0.00"), (-0.25, 2, "−0.25"),
     (-1e-9, 4, "−1.00 × 10⁻⁹"), (2e-5, 4, "2.00 × 10⁻⁵"), (-0.0001, 2, "−1.00 × 10⁻⁴")],
)  # fmt: skip
def test_derived_has_fixed_decimals_and_never_hides_a_non_zero(
    x: float, dp: int, text: str
) -> None:
    assert fmt.derived(x, dp) == text


@pytest.mark.parametrize(
    ("share", "text"),
    [(0.634, "63 %"), (0.366, "37 %"), (1.0, "100 %"), (-0.004, "0 %"), (-0.02, "−2 %")],
)
def test_percent_is_a_whole_percentage(share: float, text: str) -> None:
    assert fmt.percent(share) == text


@pytest.mark.parametrize(
    ("n", "text"), [(0, "0"), (7, "7"), (1024, "1,024"), (65536, "65,536"), (-3, "−3"),
     (2**64, "18,446,744,073,709,551,616")],
)  # fmt: skip
def test_count_has_thousands_separators(n: int, text: str) -> None:
    assert fmt.count(n) == text


@pytest.mark.parametrize("bad", [1.5, True])
def test_count_refuses_what_is_not_a_whole_count(bad: float) -> None:
    with pytest.raises(ValueError, match="whole number"):
        fmt.count(bad)  # type: ignore[arg-type]


def test_factor_puts_negatives_in_parentheses_with_the_minus_sign() -> None:
    assert fmt.factor(-1.0) == "(−1)"
    assert fmt.factor(2.0) == "2"
    assert fmt.factor(-0.001) == "0"  # rounds to 0: no sign, no parentheses


@pytest.mark.parametrize(
    "role",
    [fmt.value, fmt.output, fmt.weight, fmt.small_weight, fmt.exponential, fmt.derived,
     fmt.percent, fmt.exact],
)  # fmt: skip
def test_nan_is_refused_by_every_role(role: object) -> None:
    with pytest.raises(ValueError, match="NaN"):
        role(math.nan)  # type: ignore[operator]


def test_exact_refuses_infinity_and_keeps_the_ascii_minus_an_editor_reads_back() -> None:
    with pytest.raises(ValueError, match="finite"):
        fmt.exact(math.inf)
    assert fmt.exact(-1.5) == "-1.5"  # machine text: the page's parser and a script read it


@pytest.mark.parametrize(
    "x", [-1.0, -0.5, -2.25, -1234567.0, -1e-9, -1.1e-7, -12.5, -3e9, -0.0, -0.004]
)
def test_no_role_prints_a_hyphen_minus(x: float) -> None:
    for text in (
        fmt.value(x), fmt.output(x), fmt.weight(x), fmt.small_weight(x), fmt.exponential(x),
        fmt.derived(x), fmt.percent(x), fmt.factor(x),
    ):  # fmt: skip
        assert "-" not in text, text
        if MINUS in text:  # a signed text must show a non-zero digit: never "−0"
            assert any(d in text.split("×")[0] for d in "123456789"), text


def test_listing_counts_the_rest() -> None:
    items = [fmt.value(float(i)) for i in range(1015)]
    assert fmt.listing(items[:3]) == "0, 1, 2"
    assert fmt.listing(items).endswith(", 11, … (1,003 more)")


def test_grid_and_factors_format_every_cell() -> None:
    m = np.array([[-1.0, 0.5], [2.0, -0.0]])
    assert fmt.grid(m) == [["−1", "0.5"], ["2", "0"]]
    assert fmt.grid(np.array([[0.25, 1.0]]), dp=2) == [["0.25", "1"]]
    assert fmt.factors(m) == [["(−1)", "0.5"], ["2", "0"]]


@pytest.mark.parametrize(
    ("x", "digits", "text"),
    [
        (0.12345678912345, 10, "0.1234567891"), (2.5, 6, "2.5"), (-3.0, 6, "−3"),
        (1.5e-7, 10, "1.5 × 10⁻⁷"), (-1.5e-7, 10, "−1.5 × 10⁻⁷"), (123456.0, 3, "1.23 × 10⁵"),
        (12.34, 3, "12.3"), (-0.0, 6, "0"), (-1e-30, 3, "−1 × 10⁻³⁰"), (-math.inf, 4, "−∞"),
    ],
)  # fmt: skip
def test_significant_drops_trailing_zeros_and_never_writes_e(
    x: float, digits: int, text: str
) -> None:
    assert fmt.significant(x, digits) == text


def test_significant_refuses_nan() -> None:
    with pytest.raises(ValueError, match="NaN"):
        fmt.significant(math.nan)


def test_small_weight_never_prints_a_weight_short_of_one_as_one() -> None:
    """B1's ghost row: 0.999997 is not 1 (and 0.000003 is not 0)."""
    assert fmt.small_weight(0.999997) == ">0.9999"
    assert fmt.small_weight(0.999997, 2) == ">0.99"
    assert fmt.small_weight(0.99996) == ">0.9999"
    assert fmt.small_weight(3e-6) == "3.0 × 10⁻⁶"
    assert fmt.small_weight(1.0) == "1"
    assert fmt.small_weight(0.99994) == "0.9999"


def test_coarse_keeps_two_decimals_and_bounds_what_would_print_as_zero() -> None:
    assert fmt.coarse(1.4567) == "1.46"
    assert fmt.coarse(0.0) == "0.00"
    assert fmt.coarse(7.69e-5) == "<0.01"
    assert fmt.coarse(0.004, 3) == "0.004"
    assert fmt.coarse(0.0004, 3) == "<0.001"
    assert fmt.coarse(0.005) == "0.01"
