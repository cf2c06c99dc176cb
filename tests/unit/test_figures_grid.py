"""Grid descriptions (app/figures/grid.py): colours per role, contrast, stable domains,
blocked cells, and what large grids leave out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.figures import grid as g
from app.figures.palette import SCALES

X = [[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]


def test_contrast_matches_wcag_reference_pairs() -> None:
    assert g.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert g.contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("role", sorted(SCALES["light"]))
def test_every_colour_of_every_scale_has_ink_at_least_4_5(theme: str, role: str) -> None:
    colours = g.palette(theme, role)
    assert len(colours) == g.STEPS
    for background, ink in colours:
        assert g.contrast(background, ink) >= 4.5, (theme, role, background, ink)


def test_diverging_scale_is_centred_on_zero() -> None:
    d = g.grid(
        "w_q", "W^Q", [[-1, 0, 1]], rows=["1"], cols=["1", "2", "3"], text=[["-1", "0", "1"]]
    )
    assert d["domain"] == [-1.0, 1.0]
    lo, mid, hi = (d["palette"][i][0] for i in d["color"][0])
    light = SCALES["light"]["q"]
    assert (lo, mid, hi) == (light[0], light[1], light[2])
    # −1 is the darkest grey, not near-white: as far from the middle as +1
    assert g.luminance(lo) < 0.2
    assert g.luminance(mid) > 0.9


def test_domains_follow_a_1_2_5_ladder_so_small_edits_keep_colours() -> None:
    assert [g.nice_bound(v) for v in (0.3, 1, 1.2, 2, 2.5, 5, 7, 12, 0)] == [
        0.5, 1, 2, 2, 5, 5, 10, 20, 1,
    ]  # fmt: skip
    before = g.grid("q", "Q", [[2, 1], [0, 1]], rows=["a", "b"], cols=["1", "2"], text=None)
    after = g.grid("q", "Q", [[2, 1], [0, 1.9]], rows=["a", "b"], cols=["1", "2"], text=None)
    assert before["domain"] == after["domain"] == [-2.0, 2.0]
    # the unchanged cells keep their colour
    colour = lambda d, i, j: d["palette"][d["color"][i][j]][0]  # noqa: E731
    assert colour(before, 0, 0) == colour(after, 0, 0)
    assert colour(before, 1, 0) == colour(after, 1, 0)


def test_weights_are_on_a_fixed_0_to_1_scale() -> None:
    d = g.grid("weights", "A", [[0.2, 0.8]], rows=["a"], cols=["a", "b"], text=[["0.2", "0.8"]])
    assert d["domain"] == [0.0, 1.0]
    assert d["scale"] == "weights"
    steps = [round(0.2 * (g.STEPS - 1)), round(0.8 * (g.STEPS - 1))]
    assert [d["palette"][i][0] for i in d["color"][0]] == [
        g.palette("light", "weights")[s][0] for s in steps
    ]


def test_blocked_cells_are_null_and_uncoloured() -> None:
    d = g.grid("masked", "scaled", [[2.0, -math.inf]], rows=["I"], cols=["I", "love"],
               text=[["2", "−∞"]])  # fmt: skip
    assert d["values"] == [[2.0, None]]
    assert d["color"][0][1] == -1
    assert d["domain"] == [-2.0, 2.0]


def test_dark_theme_uses_its_own_palette() -> None:
    light = g.grid("x", "X", X, rows=["I", "love", "LLMs"], cols=list("1234"), text=None)
    dark = g.grid("x", "X", X, rows=["I", "love", "LLMs"], cols=list("1234"), theme="dark",
                  text=None)  # fmt: skip
    assert light["color"] == dark["color"] or light["palette"] != dark["palette"]
    assert light["palette"] != dark["palette"]


def test_large_grids_drop_text_and_hover_but_keep_values() -> None:
    n = 21  # 441 cells > MAX_TEXT_CELLS
    m = np.arange(n * n, dtype=float).reshape(n, n)
    labels = [str(i) for i in range(n)]
    text = [[str(v) for v in row] for row in m.tolist()]
    d = g.grid("scores", "QKᵀ", m, rows=labels, cols=labels, text=text, hover=text)
    assert d["text"] is None
    assert d["hover"] is None
    assert d["values"][20][20] == 440.0
    assert len(d["color"]) == n
    assert len(d["color"][0]) == n


def test_palette_holds_only_the_colours_used() -> None:
    d = g.grid("x", "X", X, rows=["I", "love", "LLMs"], cols=list("1234"), text=None)
    assert len(d["palette"]) == 2  # 0 and 1
    assert {i for row in d["color"] for i in row} == {0, 1}


def test_shape_mismatch_is_refused() -> None:
    with pytest.raises(ValueError, match="labels"):
        g.grid("x", "X", X, rows=["I"], cols=list("1234"))


def test_uses_helpers() -> None:
    assert g.product_uses("x", "w_q") == [
        {"grid": "x", "row": "i", "col": None},
        {"grid": "w_q", "row": None, "col": "j"},
    ]
    assert g.product_uses("q", "k", "row")[1] == {"grid": "k", "row": "j", "col": None}
    assert g.same_row("masked") == [{"grid": "masked", "row": "i", "col": None}]
