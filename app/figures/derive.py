"""Derivations: one cell's arithmetic spelled out with the engine's own numbers.

'q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3', '3 ÷ 2 = 1.5', 'e^1.5 / 19.382 = 4.482 / 19.382 = 0.23',
'z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63': the hover text of every grid cell and the
sums under Figure 9. Every number in them is written by ``app.figures.fmt`` (its roles);
this module only arranges them. Long dot products elide their middle terms so a d = 64 row
stays readable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.attention.ops import Matrix
from app.figures import fmt

ELLIPSIS = "…"
# Dot products with more terms than this show the first HEAD and last TAIL terms only.
MAX_TERMS = 6
HEAD, TAIL = 3, 2


def terms(pairs: Sequence[tuple[str, str]]) -> str:
    """'a·b + c·d + …' with the middle elided for long sums (only shown terms are built)."""
    n = len(pairs)
    if n <= MAX_TERMS:
        return " + ".join([f"{a}·{b}" for a, b in pairs])
    shown = [f"{a}·{b}" for a, b in pairs[:HEAD]]
    shown.append(f"{ELLIPSIS} ({n - HEAD - TAIL} more)")
    shown += [f"{a}·{b}" for a, b in pairs[n - TAIL :]]
    return " + ".join(shown)


def _dot_terms(a: Sequence[str], b: Sequence[str]) -> str:
    """``terms(zip(a, b))`` without building the pairs a long row elides (a 64 × 64 grid
    spells 4 096 of them per request, and only five terms of each are shown)."""
    n = len(a)
    if len(b) != n:
        raise ValueError(f"a dot product of {n} and {len(b)} factors")
    if n <= MAX_TERMS:
        return " + ".join([f"{x}·{y}" for x, y in zip(a, b, strict=True)])
    shown = [f"{a[k]}·{b[k]}" for k in range(HEAD)]
    shown.append(f"{ELLIPSIS} ({n - HEAD - TAIL} more)")
    shown += [f"{a[k]}·{b[k]}" for k in range(n - TAIL, n)]
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
            f"{name}{fmt.sub2(first_row + i + 1, first_col + j + 1)} = "
            f"{_dot_terms(a, b)}"
            f" = {result[i][j]}"
            for j, b in enumerate(right_t)
        ]
        for i, a in enumerate(left)
    ]


def score_grid(q: list[list[str]], k: list[list[str]], result: list[list[str]]) -> list[list[str]]:
    """'q₂·k₃ = 1·1 + 2·0 + 0·0 + 1·2 = 3' for every cell of Q Kᵀ."""
    return [
        [
            f"q{fmt.sub(i + 1)}·k{fmt.sub(j + 1)} = {_dot_terms(qi, kj)} = {result[i][j]}"
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
    return f"√{d_k} ≈ {fmt.derived(divisor)}"


def scaled_grid(
    scores: list[list[str]], scaled: list[list[str]], allowed: np.ndarray, div: str, why: str
) -> list[list[str]]:
    """'3 ÷ 2 = 1.5' per cell; a blocked cell adds that the mask makes it −∞."""
    div = div.split(" ≈ ")[-1]
    return [
        [
            f"{s} ÷ {div} = {c}" if ok else f"{s} ÷ {div} = {c}, blocked by {why} → {fmt.NEG_INF}"
            for s, c, ok in zip(srow, crow, arow, strict=True)
        ]
        for srow, crow, arow in zip(scores, scaled, allowed.tolist(), strict=True)
    ]


def exponent(s: float, shift: float) -> str:
    """'e^1.5', or 'e^(1.5 − 800)' when the row was shifted to avoid overflow
    ('e^(−801 + 800)' when it was shifted up to avoid underflow)."""
    if shift == 0:
        return f"e^{fmt.value(s)}"
    return f"e^({fmt.value(s)} {_shifted(shift)})"


def _shifted(shift: float) -> str:
    """Subtracting ``shift``, written with one sign: '− 800' or '+ 800'."""
    return f"{fmt.MINUS if shift > 0 else '+'} {fmt.value(abs(shift))}"


def weight_grid(
    masked: Matrix, exps: Matrix, shift: Matrix, weights: Matrix, dp: int = 2
) -> list[list[str]]:
    """'e^1.5 / 19.382 = 4.482 / 19.382 = 0.23' per cell (19.382 the row's sum of
    exponentials); blocked cells and empty rows say why they are 0. The weight is a
    small_weight: a hover is where a learner checks that a tiny weight is not 0."""
    out: list[list[str]] = []
    for row_m, row_e, sh, row_w in zip(
        masked.tolist(), exps.tolist(), shift.tolist(), weights.tolist(), strict=True
    ):
        total = math.fsum(row_e)
        if total == 0:
            out.append(["no allowed key in this row: weight 0, not 0 ÷ 0"] * len(row_m))
            continue
        tot = fmt.exponential(total)
        out.append(
            [
                f"{exponent(s, sh)} / {tot} = {fmt.exponential(e)} / {tot} = "
                f"{fmt.small_weight(w, dp)}"
                if not math.isinf(s)
                else f"blocked: e^{fmt.NEG_INF} = 0, weight 0"
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
        return f"{exponent(cells[0][0], shift)} = {fmt.exponential(cells[0][1])}, the only term"
    powers = [exponent(s, shift) for s, _ in cells]
    values = [fmt.exponential(e) for _, e in cells]
    if len(cells) > MAX_TERMS:
        hidden = f"{ELLIPSIS} ({len(cells) - HEAD - TAIL} more)"
        powers = [*powers[:HEAD], hidden, *powers[-TAIL:]]
        values = [*values[:HEAD], hidden, *values[-TAIL:]]
    total = fmt.exponential(math.fsum(e for _, e in cells))
    text = f"{' + '.join(powers)} = {' + '.join(values)} = {total}"
    if shift:
        text += (
            f" (every exponent shifted by {_shifted(shift).replace(' ', '')} so e^s cannot "
            f"{'overflow' if shift > 0 else 'underflow'}; "
            "the weights are unchanged)"
        )
    return text


def output_grid(
    weights: Matrix, v: Matrix, output: Matrix, first_row: int = 0, first_col: int = 0
) -> list[list[str]]:
    """'z₂₁ = Σ a·v = 0.14·1 + 0.63·2 + 0.23·1 = 1.63' per cell of Z = A V (``weights``
    and ``output`` may be a slice of rows starting at ``first_row``)."""
    a = [[fmt.weight(x) for x in row] for row in weights.tolist()]
    v_cols = [[fmt.factor(x) for x in col] for col in v.T.tolist()]
    z = output.tolist()
    return [
        [
            f"z{fmt.sub2(first_row + i + 1, first_col + j + 1)} = Σ a·v = "
            f"{_dot_terms(a[i], col)}"
            f" = {fmt.output(z[i][j])}"
            for j, col in enumerate(v_cols)
        ]
        for i in range(len(a))
    ]
