"""A real model's heads as grids (app/figures/model_heads.py) and the one vectorised
weight formatter they print with (fmt.weight_grid, the same text as fmt.weight)."""

from __future__ import annotations

import numpy as np
import pytest

from app.figures import fmt
from app.figures.grid import STEPS, palette
from app.figures.model_heads import CODE_BASE, HIDDEN, head_grids, mini_maps


def test_weight_grid_writes_what_weight_writes() -> None:
    rng = np.random.default_rng(3)
    edge = [0.0, 1.0, 0.005, 0.015, 0.125, 0.994999, 0.995, 1e-9, 0.5]
    m = np.concatenate([rng.random(391), edge]).reshape(20, 20)
    assert fmt.weight_grid(m) == [[fmt.weight(v) for v in row] for row in m.tolist()]
    assert fmt.weight_grid(m, 4) == [[fmt.weight(v, 4) for v in row] for row in m.tolist()]
    signed = np.array([[-0.5, 0.25]])
    assert fmt.weight_grid(signed) == [["−0.50", "0.25"]]


def attention(n: int, heads: int = 2) -> np.ndarray:
    rng = np.random.default_rng(n)
    a = rng.random((1, heads, n, n))
    return (a / a.sum(axis=-1, keepdims=True)).astype(np.float32)


def test_small_heads_print_their_weights_large_ones_are_blocks() -> None:
    tokens = ["[CLS]", "a", "##b", "[SEP]"]
    a = attention(4)
    grids = head_grids(tokens, a, special=[True, False, False, True], mask=None)
    g = grids[0][1]
    assert g["grid"] == "weights-l1h2"
    assert g["rows"] == tokens
    assert g["cols"] == tokens
    assert np.allclose(g["values"], a[0, 1], atol=1e-6)
    assert g["text"] == fmt.weight_grid(np.round(a[0, 1].astype(np.float64), 6))
    assert g["palette"] == [list(c) for c in palette("light", "weights")]
    assert g["domain"] == [0.0, 1.0]
    big = head_grids([f"t{i}" for i in range(21)], attention(21), special=[False] * 21, mask=None)
    assert big[0][0]["text"] is None
    assert big[0][0]["values"].shape == (21, 21)


def test_hidden_special_tokens_are_grey_and_the_scale_fits_the_rest() -> None:
    a = attention(5)
    special = [True, False, False, False, True]
    g = head_grids(list("abcde"), a, special=special, mask=None, theme="dark", hide_special=True)
    h = g[0][0]
    assert h["palette"][STEPS] == list(HIDDEN["dark"])
    assert h["color"][0] == [STEPS] * 5
    assert [row[4] for row in h["color"]] == [STEPS] * 5
    inner = a[0, 0][1:4, 1:4]
    assert inner.max() <= h["domain"][1] <= 1.0
    assert max(max(row[1:4]) for row in h["color"][1:4]) <= STEPS - 1


@pytest.mark.parametrize("hide", [False, True])
def test_masked_cells_are_blocked_and_named(hide: bool) -> None:
    n = 4
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    a = attention(n) * ~mask
    g = head_grids(list("abcd"), a, special=[False] * n, mask=mask, hide_special=hide)[0][0]
    assert g["masked"] == mask.tolist()
    assert all(g["color"][i][j] == -1 for i, j in zip(*np.nonzero(mask), strict=True))
    assert all(g["color"][i][j] >= 0 for i, j in zip(*np.nonzero(~mask), strict=True))


@pytest.mark.parametrize("hide", [False, True])
def test_mini_maps_are_the_grids_colours_one_character_a_cell(hide: bool) -> None:
    n = 5
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    a = attention(n, heads=2) * ~mask
    special = [True, False, False, False, False]
    full = head_grids(list("abcde"), a, special=special, mask=mask, hide_special=hide)
    minis = mini_maps(a, special=special, mask=mask, hide_special=hide)
    assert minis["shape"] == [n, n]
    assert minis["masked"] == mask.tolist()
    for h in range(2):
        g = full[0][h]
        assert [ord(c) - CODE_BASE for c in minis["codes"][0][h]] == np.ravel(g["color"]).tolist()
        assert minis["domains"][0][h] == g["domain"]
        assert minis["palette"] == g["palette"]
        assert minis["scale_colors"] == g["scale_colors"]
