"""The one number formatter of the figures: every number a figure prints is written here.

The browser does no rounding, and no other module of ``app/figures`` holds a format spec
(``tests/unit/test_fmt_only.py`` checks it). Each function is a ROLE, named for what the
number is, not for how it is written, and each role has one precision rule:

    exact(x)         an input's value where the reader edits or copies it: shortest text
                     that reads back as x, ASCII, as JavaScript's String(x) writes it
    value(x)         a value in a grid cell or a sentence (inputs and what they make):
                     whole numbers bare, else 2 decimals with trailing zeros dropped;
                     |x| ≥ 10⁶ as a power of ten; a blocked cell (−inf) as "−∞"
    output(x)        an output cell z (a blend of values): whole numbers bare, else exactly
                     2 decimals ("0.10"), so a column of outputs lines up
    weight(a, dp)    an attention weight: exactly dp decimals (2; Figure 12: 4), 0 and 1 bare
    small_weight     a weight that must not print as 0 or 1 when it is not: a power of ten
                     below the last decimal ("1.1 × 10⁻⁷", not "0.0000": saturation is tiny,
                     not zero), a bound just below 1 (">0.9999", not "1.0000")
    exponential(x)   e^s: 3 decimals, a power of ten (4 significant digits) from 10⁶ or
                     below 10⁻³ ("4.852 × 10⁸", never "485165195.410" or "4.852e+08")
    derived(x, dp)   a quantity computed to describe the numbers (√d_k, an entropy, a
                     gradient): exactly dp decimals, a power of ten when that would print a
                     non-zero value as 0
    significant(x, n) a number to n significant digits, trailing zeros dropped (a hover's
                     full value: 10; a control's setting in a sentence: 6; a short axis
                     number: 3); a power of ten below 10⁻⁴ or from 10ⁿ ("1.5 × 10⁻⁷")
    percent(share)   a share of 1 as a whole percentage: 0.634 -> "63 %"
    count(n)         a whole count (tokens, cells, a dimension) with thousands separators

One minus sign: every negative number is written with U+2212 "−" (exact excepted: it is
machine text the page's parser and a copied script read back), and a value that rounds
to zero prints without a sign ("0", never "−0"). NaN is refused (ValueError): the engine
never makes one, so a NaN reaching a figure is a bug to see, not a number to print.
Indices are written as subscripts (``sub``, ``sub2``) in hover arithmetic, and in the
notation's ASCII form (``vec``, ``entry``: 'q_2', 'a_23') in sentences, which the page's
notation renderer turns into MathML.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from functools import cache

import numpy as np

from app.attention.ops import Matrix

MINUS = "\u2212"
NEG_INF = MINUS + "∞"
# value(): from this magnitude on, a power of ten with VALUE_DIGITS significant digits.
BIG = 1e6
VALUE_DIGITS = 3

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@cache
def sub(n: int) -> str:
    """A subscript number: 12 -> '₁₂'."""
    return str(n).translate(_SUB)


@cache
def sub2(i: int, j: int) -> str:
    """Two 1-based indices as a subscript: (1, 1) -> '₁₁', (12, 3) -> '₁₂,₃' (comma when needed)."""
    if i < 10 and j < 10:
        return sub(i) + sub(j)
    return f"{sub(i)},{sub(j)}"


def vec(letter: str, i: int) -> str:
    """A row vector in the notation's ASCII form, 1-based: ('q', 2) -> 'q_2' (rendered q₂)."""
    return f"{letter}_{i}"


def entry(letter: str, i: int, j: int) -> str:
    """A matrix entry in the notation's ASCII form, 1-based: ('a', 2, 3) -> 'a_23';
    with an index of 10 or more the two are separated: 'a_12,3'."""
    return f"{letter}_{i}{j}" if i < 10 and j < 10 else f"{letter}_{i},{j}"


def _signed(text: str) -> str:
    """Python's rounded text with one minus sign: '-1.5' -> '−1.5', '-0.00' -> '0.00'."""
    if text[0] != "-":
        return text
    if text.strip("-0.") == "":  # rounded to zero: no sign
        return text[1:]
    return MINUS + text[1:]


def _finite(x: float) -> float:
    x = float(x)
    if x != x:
        raise ValueError("NaN has no display text: the figures never print one")
    return x


def power(x: float, digits: int, trim: bool = False) -> str:
    """``x`` as 'm × 10ⁿ' with ``digits`` significant digits ('4.852 × 10⁸'); ``trim``
    drops the mantissa's trailing zeros ('−1 × 10⁶', not '−1.00 × 10⁶')."""
    mantissa, exp = f"{_finite(x):.{digits - 1}e}".split("e")
    if trim and "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{_signed(mantissa)} × 10{str(int(exp)).translate(_SUP)}"


def _infinite(x: float) -> str | None:
    if math.isinf(x):
        return NEG_INF if x < 0 else "∞"
    return None


def value(x: float) -> str:
    """A value in a grid or a sentence: '2', '−1', '1.5', '1.63', '1.23 × 10⁶'; '−∞' blocked."""
    x = float(x)
    if x.is_integer() and -BIG < x < BIG:  # the hot path: every cell of every grid
        return str(int(x)) if x >= 0 else MINUS + str(int(-x))
    inf = _infinite(_finite(x))
    if inf is not None:
        return inf
    if not -BIG < x < BIG:
        return power(x, VALUE_DIGITS, trim=True)
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return _signed(text) if text != "-0" else "0"


def output(x: float) -> str:
    """An output cell z: whole numbers bare, else exactly 2 decimals ('0.10', '−1.25')."""
    x = _finite(x)
    if x.is_integer() or not -BIG < x < BIG:
        return value(x)
    return _signed(f"{x:.2f}")


def weight(a: float, dp: int = 2) -> str:
    """An attention weight to exactly ``dp`` decimals ('0.58', '0.0003'); 0 and 1 bare."""
    a = _finite(a)
    if a in (0.0, 1.0):
        return str(int(a))
    return _signed(f"{a:.{dp}f}")


def small_weight(a: float, dp: int = 4) -> str:
    """A weight to ``dp`` decimals, or a power of ten (2 significant digits) when the
    decimals would print a non-zero weight as 0: '1.1 × 10⁻⁷'; a weight short of 1 that
    the decimals would round up to 1 as a bound: '>0.9999' (0.999997 is not 1)."""
    if a != 0.0 and abs(a) < 0.5 * 10.0**-dp:
        return power(a, 2)
    if a != 1.0 and 1.0 - a < 0.5 * 10.0**-dp:
        return ">0." + "9" * dp
    return weight(a, dp)


def exponential(x: float) -> str:
    """e^s to 3 decimals ('2.718', '12.182'); a power of ten when huge or tiny."""
    x = _finite(x)
    if x != 0 and not 1e-3 <= abs(x) < BIG:
        return power(x, 4)
    return _signed(f"{x:.3f}")


def derived(x: float, dp: int = 3) -> str:
    """A derived quantity (√d_k, entropy, gradient) to exactly ``dp`` decimals ('1.414',
    '0.69'); a power of ten (3 significant digits) when that would print a non-zero as 0."""
    x = _finite(x)
    if x != 0.0 and abs(x) < 0.5 * 10.0**-dp:
        return power(x, 3)
    if not -BIG < x < BIG:
        return power(x, 4)
    return _signed(f"{x:.{dp}f}")


def fixed(x: float, dp: int) -> str:
    """Exactly ``dp`` decimals, one minus sign, never a negative zero: a grid whose cells
    must line up and whose float noise (1e−17) is zero at that precision ('−1.0000')."""
    return _signed(f"{_finite(x):.{dp}f}")


def grouped(x: float, dp: int) -> str:
    """A large quantity to exactly ``dp`` decimals with thousands separators
    ('54,410.14'): a wavelength in positions, read as a size, not lined up in a grid."""
    return _signed(f"{_finite(x):,.{dp}f}")


def coarse(x: float, dp: int = 2) -> str:
    """A quantity to exactly ``dp`` decimals where space is short (a head's entropy on a
    small map): a non-zero that would print as 0 is a bound, '<0.01', never '0.00'."""
    x = _finite(x)
    if 0.0 < x < 0.5 * 10.0**-dp:
        return "<0." + "0" * (dp - 1) + "1"
    return derived(x, dp)


def significant(x: float, digits: int = 6) -> str:
    """``x`` to ``digits`` significant digits with trailing zeros dropped: '0.1234567891',
    '2.5', '−3', '1.5 × 10⁻⁷' (a power of ten where Python's general format would write 'e')."""
    inf = _infinite(_finite(x))
    if inf is not None:
        return inf
    text = f"{x:.{digits}g}"
    if "e" in text:
        return power(x, digits, trim=True)
    return _signed(text) if text not in ("-0", "0") else "0"


def percent(share: float, dp: int = 0) -> str:
    """A share of 1 as a percentage: 0.634 -> '63 %', -0.02 -> '−2 %' ('dp' decimals)."""
    return _signed(f"{_finite(share) * 100:.{dp}f}") + " %"


def count(n: int) -> str:
    """A whole count with thousands separators: 7 -> '7', 65536 -> '65,536', -3 -> '−3'."""
    if isinstance(n, bool) or int(n) != n:
        raise ValueError(f"count needs a whole number, got {n!r}")
    return _signed(f"{int(n):,}")


def factor(x: float) -> str:
    """A value inside a product: negatives in parentheses so '1·(−1)' reads unambiguously."""
    text = value(x)
    return f"({text})" if text.startswith(MINUS) else text


def listing(items: Sequence[str], limit: int = 12) -> str:
    """'a, b, c' with a count of the rest for long rows (readouts stay one line)."""
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", … ({count(len(items) - limit)} more)"


def exact(x: float) -> str:
    """The shortest text that reads back as ``x``, written as JavaScript's ``String(x)``
    writes it (``2``, ``0.1``, ``1e-7``, ``1e+21``), so a number the server puts in an
    editor cell or a control reads the same as one the page writes. Finite ``x`` only."""
    x = _finite(x)
    if x.is_integer() and -1e15 < x < 1e15:  # the common case, exact as an int
        return str(int(x))
    if math.isinf(x):
        raise ValueError("infinity has no exact text: an input is always finite")
    sign = "-" if x < 0 else ""
    number = Decimal(repr(abs(x))).normalize()
    if 1e-6 <= abs(x) < 1e21:  # JavaScript writes these in positional notation
        return sign + format(number, "f")
    digits = "".join(map(str, number.as_tuple().digits))
    exp = number.adjusted()
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp)}"


def grid(m: Matrix, dp: int | None = None) -> list[list[str]]:
    """Every cell of ``m`` as display text: weights to ``dp`` decimals when given, else values."""
    if dp is not None:
        return [[weight(a, dp) for a in row] for row in m.tolist()]
    return [[value(x) for x in row] for row in m.tolist()]


def weight_grid(m: Matrix, dp: int = 2) -> list[list[str]]:
    """``grid(m, dp)`` of a matrix of weights, written at once (a model page prints 72
    heads' weights: one call per cell would cost more than the model). The same text as
    ``weight`` for every weight in 0 … 1: each cell's nearest step of 10^−dp is looked up,
    and a cell within a hair of half a step is written by ``weight`` itself (so a tie
    rounds exactly as Python's formatting does). Anything else takes ``grid``'s path."""
    a = np.asarray(m, dtype=np.float64)
    if a.size == 0 or not ((a >= 0.0) & (a <= 1.0)).all():
        return grid(a, dp)
    steps = 10**dp
    scaled = a * steps
    near_tie = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    table = _weight_steps(dp)
    text = table[np.rint(scaled).astype(np.int64)]
    text[a == 0.0] = "0"
    text[a == 1.0] = "1"
    for i, j in zip(*np.nonzero(near_tie), strict=True):
        text[i, j] = weight(float(a[i, j]), dp)
    rows: list[list[str]] = text.tolist()
    return rows


@cache
def _weight_steps(dp: int) -> np.ndarray:
    """Every step k / 10^dp (k = 0 … 10^dp) as ``weight`` writes it (0 and 1 as 0.00 and
    1.00: only an exact 0 or 1 is bare), an array of text to index."""
    steps = 10**dp
    return np.array([_signed(f"{k / steps:.{dp}f}") for k in range(steps + 1)], dtype=object)


def factors(m: Matrix) -> list[list[str]]:
    """Every cell as a factor (negatives in parentheses)."""
    return [[factor(x) for x in row] for row in m.tolist()]
