"""Masks (causal, padding, custom ``allowed``, combined by AND), fully blocked rows,
shape errors, and softmax on its own (Figure 12)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_spec import SPEC, arr, round2, run_example

from app.attention import AttentionInput, InputError, run, softmax_stage

CAUSAL = np.tril(np.ones((3, 3), dtype=bool))


def test_padding_blocks_a_key_for_every_query() -> None:
    s = run_example(padding=(False, False, True))
    h = s.head
    assert (h.weights[:, 2] == 0).all()
    assert np.isneginf(h.masked[:, 2]).all()
    np.testing.assert_allclose(h.weights.sum(axis=1), 1, atol=1e-15)
    # the two keys that remain share the row as softmax of their scaled scores
    expected = np.exp(h.scaled[:, :2]) / np.exp(h.scaled[:, :2]).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(h.weights[:, :2], expected, atol=1e-15)
    assert s.warnings == ()


def test_custom_allowed_is_anded_with_causal_and_padding() -> None:
    allowed = np.array([[True, True, True], [False, True, True], [True, True, True]])
    padding = (False, False, True)
    s = run_example(mask="causal", padding=padding, allowed=allowed)
    expected = CAUSAL & allowed & ~np.array(padding)[None, :]
    np.testing.assert_array_equal(s.allowed, expected)
    np.testing.assert_array_equal(s.head.weights == 0, ~expected)
    # row 2 keeps only key 2 ("love"): a one-entry row is exactly 1
    assert s.head.weights[1].tolist() == [0.0, 1.0, 0.0]


def test_fully_blocked_row_is_zero_with_a_warning_naming_it() -> None:
    allowed = np.array([[True, True, True], [False, False, False], [True, True, True]])
    s = run_example(allowed=allowed)
    h = s.head
    assert h.weights[1].tolist() == [0.0, 0.0, 0.0]
    assert s.output[1].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert h.row_sum[1] == 0
    assert h.row_entropy[1] == 0
    assert not np.isnan(h.weights).any()
    assert not np.isnan(s.output).any()
    assert not np.isnan(h.exps).any()
    assert len(s.warnings) == 1
    assert s.warnings[0] == "row 1 ('love') has no allowed key: its weights and output are all zero"
    assert "'love'" in s.warnings[0]
    # the other rows are untouched
    plain = run_example().head
    np.testing.assert_array_equal(h.weights[[0, 2]], plain.weights[[0, 2]])


def test_causal_with_more_queries_than_keys_is_top_left_aligned() -> None:
    rng = np.random.default_rng(1)
    s = run(AttentionInput(q=rng.normal(size=(4, 2)), k=rng.normal(size=(2, 2)),
                           v=rng.normal(size=(2, 3)), mask="causal"))  # fmt: skip
    np.testing.assert_array_equal(s.allowed, np.tril(np.ones((4, 2), dtype=bool)))
    assert s.warnings == ()


def test_padding_every_key_blocks_every_row() -> None:
    s = run_example(padding=(True, True, True))
    assert (s.head.weights == 0).all()
    assert (s.output == 0).all()
    assert len(s.warnings) == 3


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"padding": (False, True)}, "padding"),
        ({"allowed": np.ones((3, 2), dtype=bool)}, "allowed"),
        ({"w_q": arr(SPEC["w_q"])[:3]}, "w_q"),
        ({"w_k": arr(SPEC["w_k"])[:, :3]}, "w_k"),
        ({"heads": 3}, "heads"),
        ({"heads": 2, "w_o": np.ones((3, 4))}, "w_o"),
        ({"tokens": ("a", "b")}, "tokens"),
        ({"source_x": np.ones((4, 3))}, "source.x"),
        ({"source_x": np.ones((4, 4)), "source_tokens": ("a",)}, "source.tokens"),
        ({"q": np.ones((3, 4)), "k": np.ones((3, 4)), "v": np.ones((3, 4))}, "q"),
        ({"mask": "diagonal"}, "mask"),
    ],
)
def test_bad_inputs_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as err:
        run_example(**changes)
    assert err.value.field == field


@pytest.mark.parametrize(
    ("q", "k", "v", "field"),
    [((3, 4), (3, 5), (3, 4), "k"), ((3, 4), (3, 4), (2, 4), "v")],
)
def test_direct_mode_shapes_must_chain(
    q: tuple[int, int], k: tuple[int, int], v: tuple[int, int], field: str
) -> None:
    with pytest.raises(InputError) as err:
        run(AttentionInput(q=np.ones(q), k=np.ones(k), v=np.ones(v)))
    assert err.value.field == field


def test_neither_mode_names_x() -> None:
    with pytest.raises(InputError) as err:
        run(AttentionInput())
    assert err.value.field == "x"


def test_direct_mode_equals_projection_mode() -> None:
    proj = run_example()
    direct = run(AttentionInput(q=proj.q, k=proj.k, v=proj.v, tokens=proj.tokens))
    np.testing.assert_array_equal(direct.head.weights, proj.head.weights)
    np.testing.assert_array_equal(direct.output, proj.output)
    assert direct.key_tokens == ("I", "love", "LLMs")


# Softmax on its own (Figure 12)


@pytest.mark.parametrize("example", SPEC["softmax_examples"], ids=lambda e: str(e["scores"]))
def test_softmax_examples(example: dict[str, list[float]]) -> None:
    s = softmax_stage(arr(example["scores"]))
    w = s.weights[0]
    if "weights_2dp" in example:
        assert round2(w) == example["weights_2dp"]
    if "weights_4dp" in example:
        assert np.round(w, 4).tolist() == example["weights_4dp"]
    if "weights" in example:
        assert w.tolist() == example["weights"]  # exactly 1 for a one-entry row


def test_stretch_by_8_saturates() -> None:
    plain, stretched = softmax_stage(arr([1, 2, 3])), softmax_stage(arr([1, 2, 3]), 8.0)
    np.testing.assert_array_equal(stretched.stretched[0], [8, 16, 24])
    assert np.round(stretched.weights[0], 4).tolist() == [0.0, 0.0003, 0.9997]
    # same order, wildly different weights
    assert np.argsort(plain.weights[0]).tolist() == np.argsort(stretched.weights[0]).tolist()
    assert stretched.argmax == (2,)
    p = stretched.max_weight[0]
    assert stretched.gradient_term[0] == pytest.approx(p * (1 - p), abs=1e-15)
    assert stretched.gradient_term[0] < plain.gradient_term[0]
    assert stretched.entropy[0] < plain.entropy[0]


def test_softmax_statistics_of_1_2_3() -> None:
    s = softmax_stage(arr([1, 2, 3]))
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(s.exps[0], e, rtol=1e-15)
    assert s.exp_sum[0] == pytest.approx(e.sum(), rel=1e-15)
    p = e / e.sum()
    assert s.entropy[0] == pytest.approx(-(p * np.log2(p)).sum(), rel=1e-12)
    assert s.max_weight[0] == pytest.approx(p[2], rel=1e-15)


def test_softmax_of_huge_scores_shifts_and_stays_finite() -> None:
    s = softmax_stage(arr([[1e6, 999_999.0, -1e6]]), 1000.0)
    assert np.isfinite(s.exps).all()
    assert np.isfinite(s.exp_sum).all()
    assert s.exp_shift[0] == 1e9
    assert s.weights[0].tolist() == [1.0, 0.0, 0.0]


def test_softmax_matrix_rows_are_independent() -> None:
    s = softmax_stage(arr([[1, 2, 3], [1, 1, 1]]))
    assert round2(s.weights) == [[0.09, 0.24, 0.67], [0.33, 0.33, 0.33]]
    assert s.argmax == (2, 0)
