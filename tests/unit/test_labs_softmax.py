"""Labs I through the engine: the worked numbers of A1–A5, B1–B2, C4 and D2's anchor, and
the laws of the extended softmax (masks before/after, AND, values) under Hypothesis.

The fixtures and printed numbers are copied from LABS.md into data/labs-fixtures.json.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from app.attention import AttentionInput, InputError, run, softmax_stage
from app.attention.ops import causal_allowed
from app.attention.softmax import mask_allowed

FIX: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "labs-fixtures.json").read_text(encoding="utf-8")
)


def arr(m: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.asarray(m, dtype=np.float64)


def direct(entry: dict[str, Any], **changes: Any) -> AttentionInput:
    fields: dict[str, Any] = {
        "q": arr(entry["q"]),
        "k": arr(entry["k"]),
        "v": arr(entry.get("v", entry["k"])),
        "tokens": tuple(entry["tokens"]) if "tokens" in entry else None,
        "key_tokens": tuple(entry["key_tokens"]) if "key_tokens" in entry else None,
        "mask": entry.get("mask", "none"),
    }
    fields.update(changes)
    return AttentionInput(**fields)


def rounded(a: Any, decimals: int) -> list[float]:
    return [round(float(x), decimals) for x in np.ravel(a)]


# --- A1: three scores become weights and an output -------------------------------------


def test_a1_weights_and_output_from_unrounded_weights() -> None:
    a1 = FIX["A1"]
    s = softmax_stage(arr(a1["scores"]), values=arr(a1["values"]))
    assert rounded(s.weights, 3) == a1["printed"]["weights"]
    assert s.exps[0].tolist() == [math.exp(2), math.exp(1), 1.0]
    total = math.exp(2) + math.exp(1) + 1
    want = sum(math.exp(sc) / total * v for sc, v in zip(a1["scores"], a1["values"], strict=True))
    assert s.output is not None
    assert s.output.shape == (1, 1)
    assert s.output[0, 0] == pytest.approx(want, abs=1e-15)
    assert round(float(s.output[0, 0]), 3) == 1.425
    assert s.row_sums[0] == pytest.approx(1.0, abs=1e-15)


@given(st.floats(-5, 5, allow_nan=False))
def test_a1_shift_changes_nothing(c: float) -> None:
    base = softmax_stage(arr([2, 1, 0]), values=arr([1, 2, 3]))
    shifted = softmax_stage(arr([2 + c, 1 + c, 0 + c]), values=arr([1, 2, 3]))
    np.testing.assert_allclose(shifted.weights, base.weights, atol=1e-13)
    assert shifted.output is not None
    assert base.output is not None
    np.testing.assert_allclose(shifted.output, base.output, atol=1e-13)


# --- A2: which key wins ------------------------------------------------------------------


def test_a2_aligned_key_wins_the_opposite_keeps_some_weight() -> None:
    a2 = FIX["A2"]
    st_ = run(AttentionInput(q=arr(a2["q"]), k=arr(a2["k"]), v=arr(a2["k"])))
    assert st_.head.scores[0].tolist() == [1.0, 0.0, -1.0]
    w = st_.head.weights[0]
    assert w[0] > w[1] > w[2] > 0


# --- A3: one query, worked ---------------------------------------------------------------


def test_a3_who_query_reproduces_the_chapter() -> None:
    a3 = FIX["A3"]
    st_ = run(direct(a3, scale=True))
    h = st_.head
    assert round(h.divisor, 4) == a3["printed"]["sqrt_d_k"]
    assert rounded(h.weights, 4) == a3["printed"]["weights"]
    assert st_.key_tokens == tuple(a3["key_tokens"])
    # α·v with V = K, from unrounded weights
    np.testing.assert_allclose(h.output, h.weights @ arr(a3["k"]), atol=1e-15)
    # small, similar keys: close to "no preference" (log₂ 3 bits)
    assert math.log2(3) - 0.02 < h.row_entropy[0] < math.log2(3)


# --- A4: queries that commit or average -------------------------------------------------


def test_a4_first_two_queries_commit_the_neutral_one_cannot() -> None:
    a4 = FIX["A4"]
    h = run(direct(a4, scale=True)).head
    assert h.row_argmax[:2] == (0, 1)  # animal? -> dog, vehicle? -> truck
    assert all(h.row_max[:2] > 0.8)
    np.testing.assert_allclose(h.weights[2], [1 / 3] * 3, atol=1e-15)
    assert h.row_entropy[2] == pytest.approx(math.log2(3), abs=1e-12)
    assert all(h.row_entropy[:2] < 0.8 * math.log2(3))


def test_a4_unit_queries_barely_separate_after_the_divisor() -> None:
    a4 = FIX["A4"]
    unit = run(direct(a4, q=arr([[1, 0, 0], [0, 1, 0], [1, 1, 1]]), scale=True)).head
    assert all(unit.row_max[:2] < 0.5)


# --- A5: one map forces symmetric scores -------------------------------------------------

X = arr([[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]])
W_Q = arr([[0, -1, 1, 1], [0, 1, 0, 0], [1, 0, 0, -1], [1, 1, 0, 1]])
W_K = arr([[0, -1, 0, 1], [-1, 1, 0, 0], [1, -1, 1, -1], [1, 1, 0, 1]])


def test_a5_one_map_gives_symmetric_scores_two_maps_do_not() -> None:
    w_v = np.eye(4)
    two = run(AttentionInput(x=X, w_q=W_Q, w_k=W_K, w_v=w_v)).head
    one = run(AttentionInput(x=X, w_q=W_Q, w_k=W_Q, w_v=w_v)).head
    none = run(AttentionInput(q=X, k=X, v=X)).head
    assert np.abs(two.scores - two.scores.T).max() > 1e-12
    assert np.abs(one.scores - one.scores.T).max() <= 1e-12
    assert np.abs(none.scores - none.scores.T).max() <= 1e-12
    # the row-wise softmax does not keep the symmetry
    assert np.abs(one.weights - one.weights.T).max() > 1e-12


# --- B1: the two-token stepper -----------------------------------------------------------


def test_b1_every_printed_step() -> None:
    b1 = FIX["B1"]
    p = b1["printed"]
    st_ = run(direct(b1, scale=True))
    h = st_.head
    assert h.scores.tolist() == p["scores"]  # exact: −9 − 9 = −18, 0, 0, 2
    assert round(h.divisor, 3) == p["sqrt_2"]
    assert [rounded(r, 2 if i == 0 else 3) for i, r in enumerate(h.scaled)] == p["scaled"]
    assert round(float(h.masked[0, 0]), 2) == p["masked_row_0"][0]
    assert h.masked[0, 1] == -np.inf
    assert h.weights[0].tolist() == p["weights_row_0"]
    assert rounded(h.exps[1], 3) == p["exps_row_1"]
    assert round(float(h.exps[1].sum()), 3) == p["exp_sum_row_1"]
    assert rounded(h.weights[1], 3) == p["weights_row_1"]
    assert h.output[0].tolist() == p["output"][0]
    assert rounded(h.output[1], 3) == p["output"][1]


def test_b1_unrounded_weights_give_1_413_not_the_hand_sum() -> None:
    h = run(direct(FIX["B1"], scale=True)).head
    w = h.weights[1]
    assert round(float(w[0] * -1 + w[1] * 2), 3) == 1.413
    hand = round(float(w[0]), 3) * -1 + round(float(w[1]), 3) * 2
    assert round(hand, 3) == 1.412  # the last digit differs, as the spec says


def test_b1_without_the_mask_token_1_looks_at_token_2() -> None:
    h = run(direct(FIX["B1"], mask="none", scale=True)).head
    assert h.weights[0, 1] > 0.99


# --- B2: the per-position view -----------------------------------------------------------


def test_b2_causal_row_depends_only_on_its_prefix() -> None:
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    base = run(AttentionInput(q=q, k=k, v=v, mask="causal")).head
    i = 2
    k2, v2 = k.copy(), v.copy()
    k2[i + 1 :] += 5.0
    v2[i + 1 :] -= 3.0
    changed = run(AttentionInput(q=q, k=k2, v=v2, mask="causal")).head
    assert changed.output[: i + 1].tolist() == base.output[: i + 1].tolist()
    assert (base.weights[i, i + 1 :] == 0).all()


# --- C4: the flat line -------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 4, 64, 1024])
def test_c4_scaled_line_is_flat_unscaled_leading_weight_grows(d: int) -> None:
    c4 = FIX["C4"]
    scaled = softmax_stage(arr(c4["scores"]))  # (2, 1, 0)·√d / √d
    assert rounded(scaled.weights, 3) == c4["printed"]["weights"]
    unscaled = softmax_stage(arr(c4["scores"]), math.sqrt(d))
    assert unscaled.max_weight[0] >= scaled.max_weight[0] - 1e-15
    bigger = softmax_stage(arr(c4["scores"]), math.sqrt(4 * d))
    assert bigger.max_weight[0] > unscaled.max_weight[0]


def test_c4_divisor_for_keys_of_length_two() -> None:
    assert round(2 / math.sqrt(2), 3) == FIX["C4"]["printed"]["divisor_d_2"]


# --- D2's anchor (the same /softmax code): mask after softmax discards weight ------------


def test_d2_row_0_sums_to_0_4551_after_and_1_before() -> None:
    s_ = arr(FIX["D2"]["S"])
    allowed = mask_allowed(s_.shape, "causal", None)
    after = softmax_stage(s_, allowed=allowed, mask_order="after")
    before = softmax_stage(s_, allowed=allowed, mask_order="before")
    assert round(float(after.row_sums[0]), 4) == FIX["D2"]["printed"]["after_row_0_sum"]
    np.testing.assert_allclose(before.row_sums, 1.0, atol=1e-15)
    assert after.row_sums[-1] == pytest.approx(1.0, abs=1e-15)  # the last row sees every key


# --- the zero-row convention and errors --------------------------------------------------


@pytest.mark.parametrize("order", ["before", "after"])
def test_an_empty_row_is_zeros_with_a_warning_naming_it(order: str) -> None:
    allowed = np.array([[True, True], [False, False]])
    s = softmax_stage(arr([[1, 2], [3, 4]]), allowed=allowed, mask_order=order,
                      values=arr([[0, -1], [1, 2]]))  # fmt: skip
    assert s.weights[1].tolist() == [0.0, 0.0]
    assert s.output is not None
    assert s.output[1].tolist() == [0.0, 0.0]
    assert s.row_sums[1] == 0.0
    assert s.warnings == ("row 1 has no allowed key: its weights and output are all zero",)
    assert np.isfinite(s.exps).all()
    assert np.isfinite(s.entropy).all()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"values": arr([1, 2])}, "values"),
        ({"values": arr([[1, 2]] * 4)}, "values"),
        ({"allowed": np.ones((2, 3), bool)}, "allowed"),
        ({"mask_order": "sideways"}, "mask_order"),
    ],
)
def test_bad_shapes_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        softmax_stage(arr([1, 2, 3]), **kwargs)
    assert err.value.field == field


def test_mask_allowed_checks_its_shape() -> None:
    with pytest.raises(InputError) as err:
        mask_allowed((2, 3), "causal", np.ones((3, 3), bool))
    assert err.value.field == "allowed"


# --- Hypothesis: the softmax laws --------------------------------------------------------

shapes = st.tuples(st.integers(1, 6), st.integers(1, 6))
finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@st.composite
def cases(draw: Any) -> tuple[Any, Any, Any, float]:
    rows, n = draw(shapes)
    scores = draw(hnp.arrays(np.float64, (rows, n), elements=finite))
    allowed = draw(hnp.arrays(np.bool_, (rows, n)))
    values = draw(hnp.arrays(np.float64, (n, 2), elements=finite))
    stretch = draw(st.floats(-20, 20, allow_nan=False))
    return scores, allowed, values, stretch


@pytest.mark.slow  # 150 examples
@settings(max_examples=150, deadline=None)
@given(cases())
def test_before_rows_sum_to_one_over_allowed_keys(case: tuple[Any, Any, Any, float]) -> None:
    scores, allowed, values, stretch = case
    s = softmax_stage(scores, stretch, allowed=allowed, mask_order="before", values=values)
    live = allowed.any(axis=1)
    np.testing.assert_allclose(s.row_sums[live], 1.0, atol=1e-12)
    assert (s.row_sums[~live] == 0).all()
    assert (s.weights[~allowed] == 0).all()
    assert s.output is not None
    np.testing.assert_allclose(s.output, s.weights @ values, atol=1e-9)
    assert np.isfinite(s.weights).all()
    assert np.isfinite(s.output).all()
    assert len(s.warnings) == int((~live).sum())


@pytest.mark.slow  # 150 examples
@settings(max_examples=150, deadline=None)
@given(cases())
def test_after_discards_blocked_weight(case: tuple[Any, Any, Any, float]) -> None:
    scores, allowed, values, stretch = case
    s = softmax_stage(scores, stretch, allowed=allowed, mask_order="after", values=values)
    plain = softmax_stage(scores, stretch)
    assert (s.row_sums <= 1 + 1e-12).all()
    assert (s.weights[~allowed] == 0).all()
    assert (s.weights[allowed] == plain.weights[allowed]).all()
    np.testing.assert_allclose(s.row_sums, np.where(allowed, plain.weights, 0).sum(axis=1))
    assert np.isfinite(s.entropy).all()


@settings(max_examples=100, deadline=None)
@given(cases(), st.sampled_from(["before", "after"]))
def test_masks_combine_by_and(case: tuple[Any, Any, Any, float], order: str) -> None:
    scores, allowed, _, stretch = case
    rows, n = scores.shape
    combined = mask_allowed((rows, n), "causal", allowed)
    assert (combined == (allowed & causal_allowed(rows, n))).all()
    a = softmax_stage(scores, stretch, allowed=combined, mask_order=order)
    b = softmax_stage(scores, stretch, allowed=allowed & np.tril(np.ones((rows, n), bool)),
                      mask_order=order)  # fmt: skip
    assert a.weights.tolist() == b.weights.tolist()


@settings(max_examples=60, deadline=None)
@given(cases())
def test_no_mask_equals_all_allowed_and_matches_the_old_softmax(
    case: tuple[Any, Any, Any, float],
) -> None:
    scores, _, _, stretch = case
    plain = softmax_stage(scores, stretch)
    every = softmax_stage(scores, stretch, allowed=np.ones(scores.shape, bool), mask_order="after")
    assert plain.weights.tolist() == every.weights.tolist()
    assert plain.warnings == every.warnings == ()
