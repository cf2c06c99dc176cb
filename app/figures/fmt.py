"""Display strings for every number a figure prints, and the arithmetic behind each cell.

The browser does no rounding: every printed number is formatted here. Rules (FIGURES.md
Conventions): whole numbers without decimals; other values to 2 decimals with trailing
zeros dropped; weights to a fixed 2 decimals (Figure 12: 4); a blocked cell is "−∞".
Derivations spell out one cell's arithmetic with the engine's own numbers, eliding the
middle terms of long dot products so a d = 64 row stays readable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from functools import cache

import numpy as np

from app.attention.ops import Matrix

NEG_INF = "−∞"
ELLIPSIS = "…"
# Dot products with more terms than this show the first HEAD and last TAIL terms only.
MAX_TERMS = 6
HEAD, TAIL = 3, 2

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


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


def num(x: float) -> str:
    """A general value: '2', '-1', '1.5', '1.63'; −∞ for a blocked cell."""
    x = float(x)
    if x.is_integer():  # the hot path: called for every cell of every grid
        return str(int(x)) if -1e15 < x < 1e15 else f"{x:.3g}"
    if x != x or x in (math.inf, -math.inf):
        return NEG_INF if x < 0 else ("∞" if x > 0 else "NaN")
    if not -1e6 < x < 1e6:
        return f"{x:.3g}"
    text = f"{x:.2f}"
    if text[-1] == "0":
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def fixed(x: float) -> str:
    """A blended value (output Z): whole numbers bare, else exactly 2 decimals ('0.10')."""
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= 1e6:
        return f"{x:.3g}"
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text


def listing(items: Sequence[str], limit: int = 12) -> str:
    """'a, b, c' with a count of the rest for long rows (readouts stay one line)."""
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", … ({len(items) - limit} more)"


def weight(x: float, dp: int = 2) -> str:
    """A weight to a fixed ``dp`` decimals ('0.58', '0.0003'); exactly 0 or 1 as '0' / '1'."""
    if x in (0.0, 1.0):
        return str(int(x))
    return f"{x:.{dp}f}"


_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def small_weight(x: float, dp: int = 4) -> str:
    """A weight to ``dp`` decimals, or in scientific notation when that would print a
    non-zero weight as 0: 1.1 × 10⁻⁷, not 0.0000 (saturation is tiny, not zero)."""
    if x != 0.0 and abs(x) < 0.5 * 10.0**-dp:
        mantissa, exponent = f"{x:.1e}".split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(_SUP)}"
    return weight(x, dp)


def exp_value(x: float) -> str:
    """An exponential e^s to 3 decimals (2.718, 12.182), scientific when huge or tiny."""
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-3):
        return f"{x:.3e}"
    return f"{x:.3f}"


def factor(x: float) -> str:
    """A factor inside a product: negatives in parentheses so '1·(-1)' reads unambiguously."""
    text = num(x)
    return f"({text})" if text.startswith("-") else text


def full(x: float) -> str:
    """Full precision for hover lines."""
    if math.isinf(x):
        return NEG_INF
    return repr(float(x)) if x != int(x) else str(int(x))


def grid(m: Matrix, dp: int | None = None) -> list[list[str]]:
    """Every cell of ``m`` as a display string: weights when ``dp`` is given, else ``num``."""
    if dp is not None:
        return [[weight(v, dp) for v in row] for row in m.tolist()]
    return [[num(v) for v in row] for row in m.tolist()]


def terms(pairs: Sequence[tuple[str, str]]) -> str:
    """'a·b + c·d + …' with the middle elided for long sums (only shown terms are built)."""
    n = len(pairs)
    if n <= MAX_TERMS:
        return " + ".join([f"{a}·{b}" for a, b in pairs])
    shown = [f"{a}·{b}" for a, b in pairs[:HEAD]]
    shown.append(f"{ELLIPSIS} ({n - HEAD - TAIL} more)")
    shown += [f"{a}·{b}" for a, b in pairs[n - TAIL :]]
    return " + ".join(shown)


def dot_grid(
    left: list[list[str]],
    right_t: list[list[str]],
    result: list[list[str]],
    name: str,
    first_row: int = 0,
    first_col: int = 0,
) -> list[list[str]]:
    """Derivations of C = A Bᵀ cell by cell, e.g. 'q₁₁ = 0·0 + 0·0 + 1·1 + 1·1 = 2'.

    ``left`` holds the rows of A, ``right_t`` the rows of Bᵀ-transposed (the columns of
    B), as factor strings; ``result`` the formatted products; ``name`` the cell's letter.
    """
    return [
        [
            f"{name}{sub2(first_row + i + 1, first_col + j + 1)} = "
            f"{terms(list(zip(a, b, strict=True)))}"
            f" = {result[i][j]}"
            for j, b in enumerate(right_t)
        ]
        for i, a in enumerate(left)
    ]


def factors(m: Matrix) -> list[list[str]]:
    """Every cell as a factor string (negatives in parentheses)."""
    return [[factor(v) for v in row] for row in m.tolist()]


def score_grid(q: list[list[str]], k: list[list[str]], result: list[list[str]]) -> list[list[str]]:
    """'q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3' for every cell of Q Kᵀ."""
    return [
        [
            f"q{sub(i + 1)}·k{sub(j + 1)} = {terms(list(zip(qi, kj, strict=True)))}"
            f" = {result[i][j]}"
            for j, kj in enumerate(k)
        ]
        for i, qi in enumerate(q)
    ]


def divisor_text(divisor: float, d_k: int, scale: bool) -> str:
    """'2' for √4, '√2 ≈ 1.414' when the root is not whole, '1' with scaling off."""
    if not scale:
        return "1"
    if divisor == int(divisor):
        return str(int(divisor))
    return f"√{d_k} ≈ {divisor:.3f}"


def scaled_grid(
    scores: list[list[str]], scaled: list[list[str]], allowed: np.ndarray, div: str, why: str
) -> list[list[str]]:
    """'3 ÷ 2 = 1.5' per cell; a blocked cell adds that the mask makes it −∞."""
    div = div.split(" ≈ ")[-1]
    return [
        [
            f"{s} ÷ {div} = {c}" if ok else f"{s} ÷ {div} = {c}, blocked by {why} → {NEG_INF}"
            for s, c, ok in zip(srow, crow, arow, strict=True)
        ]
        for srow, crow, arow in zip(scores, scaled, allowed.tolist(), strict=True)
    ]


def exponent(s: float, shift: float) -> str:
    """'e^1.5', or 'e^(1.5 − 800)' when the row was shifted to avoid overflow."""
    if shift == 0:
        return f"e^{num(s)}"
    return f"e^({num(s)} − {num(shift)})"


def weight_grid(
    masked: Matrix, exps: Matrix, shift: Matrix, weights: Matrix, dp: int = 2
) -> list[list[str]]:
    """'e^1.5 / 19.382 = 4.482 / 19.382 = 0.23' per cell (19.382 the row's sum of
    exponentials); blocked cells and empty rows say why they are 0."""
    out: list[list[str]] = []
    for row_m, row_e, sh, row_w in zip(
        masked.tolist(), exps.tolist(), shift.tolist(), weights.tolist(), strict=True
    ):
        total = math.fsum(row_e)
        if total == 0:
            out.append(["no allowed key in this row: weight 0, not 0 ÷ 0"] * len(row_m))
            continue
        tot = exp_value(total)
        out.append(
            [
                f"{exponent(s, sh)} / {tot} = {exp_value(e)} / {tot} = {weight(w, dp)}"
                if not math.isinf(s)
                else f"blocked: e^{NEG_INF} = 0, weight 0"
                for s, e, w in zip(row_m, row_e, row_w, strict=True)
            ]
        )
    return out


def exp_sum(masked_row: list[float], exps_row: list[float], shift: float) -> str:
    """'e^1 + e^2.5 + e^1.5 = 2.718 + 12.182 + 4.482 = 19.382' over the allowed cells."""
    cells = [(s, e) for s, e in zip(masked_row, exps_row, strict=True) if not math.isinf(s)]
    if not cells:
        return "no allowed key: nothing to exponentiate, every weight is 0"
    if len(cells) == 1:
        return f"{exponent(cells[0][0], shift)} = {exp_value(cells[0][1])}, the only term"
    powers = [exponent(s, shift) for s, _ in cells]
    values = [exp_value(e) for _, e in cells]
    if len(cells) > MAX_TERMS:
        hidden = f"{ELLIPSIS} ({len(cells) - HEAD - TAIL} more)"
        powers = [*powers[:HEAD], hidden, *powers[-TAIL:]]
        values = [*values[:HEAD], hidden, *values[-TAIL:]]
    text = (
        f"{' + '.join(powers)} = {' + '.join(values)} = {exp_value(math.fsum(e for _, e in cells))}"
    )
    if shift:
        text += (
            f" (every exponent shifted by −{num(shift)} so e^s cannot overflow; "
            "the weights are unchanged)"
        )
    return text


def output_grid(
    weights: Matrix, v: Matrix, output: Matrix, first_row: int = 0, first_col: int = 0
) -> list[list[str]]:
    """'z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63' per cell of Z = A V (``weights``
    and ``output`` may be a slice of rows starting at ``first_row``)."""
    a = [[weight(x) for x in row] for row in weights.tolist()]
    v_cols = [[factor(x) for x in col] for col in v.T.tolist()]
    z = output.tolist()
    return [
        [
            f"z{sub2(first_row + i + 1, first_col + j + 1)} = Σ a·v = "
            f"{terms(list(zip(a[i], col, strict=True)))}"
            f" = {fixed(z[i][j])}"
            for j, col in enumerate(v_cols)
        ]
        for i in range(len(a))
    ]


def exact(x: float) -> str:
    """The shortest text that reads back as ``x``, written as JavaScript's ``String(x)``
    writes it (``2``, ``0.1``, ``1e-7``, ``1e+21``), so a number the server puts in an
    editor cell or a control reads the same as one the page writes. Finite ``x`` only."""
    x = float(x)
    if x.is_integer() and -1e15 < x < 1e15:  # the common case, exact as an int
        return str(int(x))
    sign = "-" if x < 0 else ""
    value = Decimal(repr(abs(x))).normalize()
    if 1e-6 <= abs(x) < 1e21:  # JavaScript writes these in positional notation
        return sign + format(value, "f")
    digits = "".join(map(str, value.as_tuple().digits))
    power = value.adjusted()
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"
