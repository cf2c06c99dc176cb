"""Masks (LABS.md D1-D3): kinds, combining them as AND = adding 0/−∞, before vs after
softmax (the 0.4551 anchor), and the empty row."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from lab_fixtures import FIXTURES

from app.attention import softmax_stage
from app.labs import masks

S = np.array(FIXTURES["masks_default_scores"])


def test_causal_four_tokens_is_the_reconstructed_picture() -> None:
    add = masks.additive(masks.causal(4, 4))
    text = [["·" if v == 0 else "−∞" for v in row] for row in add.tolist()]
    assert text == FIXTURES["causal_additive_4"]


def test_padding_blocks_a_key_for_every_query() -> None:
    m = masks.padding(3, [False, True, False, True])
    assert m.tolist() == [[True, False, True, False]] * 3


def test_window_with_and_without_causal() -> None:
    assert masks.window(4, 4, 2).astype(int).tolist() == [
        [1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 1, 1]]  # fmt: skip
    assert masks.window(4, 4, 2, causal_too=True).astype(int).tolist() == [
        [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]  # fmt: skip
    assert masks.window(3, 3, 3).all()  # a window as wide as the sequence blocks nothing


@given(st.integers(1, 8), st.lists(st.booleans(), min_size=1, max_size=8), st.integers(1, 8),
       st.booleans())  # fmt: skip
def test_adding_additive_masks_is_anding_allowed_sets(
    l_q: int, pad: list[bool], w: int, causal_too: bool
) -> None:
    l_k = len(pad)
    parts = [masks.causal(l_q, l_k), masks.padding(l_q, pad), masks.window(l_q, l_k, w, causal_too)]
    total = sum(masks.additive(m) for m in parts)
    anded = masks.combine(parts, (l_q, l_k))
    assert np.array_equal(total == 0, anded)
    assert np.array_equal(np.isneginf(total), ~anded)


def test_before_rows_sum_to_one_after_rows_lose_weight() -> None:
    causal = masks.causal(4, 4)
    before = softmax_stage(S, allowed=causal, mask_order="before")
    after = softmax_stage(S, allowed=causal, mask_order="after")
    np.testing.assert_allclose(before.row_sums, 1.0, atol=1e-15)
    assert round(float(after.row_sums[0]), 4) == FIXTURES["masks_after_row0_sum_4dp"]
    assert abs(after.row_sums[3] - 1.0) < 1e-15  # the last row has nothing blocked
    assert (after.row_sums[:3] < 1).all()


@given(st.lists(st.lists(st.floats(-20, 20), min_size=4, max_size=4), min_size=4, max_size=4),
       st.lists(st.booleans(), min_size=16, max_size=16))  # fmt: skip
def test_before_sums_to_one_after_never_more(rows: list[list[float]], flags: list[bool]) -> None:
    allowed = np.array(flags).reshape(4, 4)
    before = softmax_stage(np.array(rows), allowed=allowed, mask_order="before")
    after = softmax_stage(np.array(rows), allowed=allowed, mask_order="after")
    has_key = allowed.any(axis=1)
    np.testing.assert_allclose(before.row_sums[has_key], 1.0, atol=1e-12)
    assert (before.row_sums[~has_key] == 0).all()
    assert (after.row_sums <= 1 + 1e-12).all()
    assert (before.weights[~allowed] == 0).all()
    assert (after.weights[~allowed] == 0).all()
