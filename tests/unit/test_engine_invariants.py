"""Hypothesis invariants of the engine (ARCHITECTURE habit 3).

Rows of the weights sum to 1; softmax is shift-invariant and order-preserving and gives 1
for a one-entry row; the causal upper triangle is exactly 0; permuting the tokens
permutes the outputs; heads = 1 is single-head attention; identical rows of X give
identical rows of Q, K and V.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.attention import AttentionInput, run, softmax_stage
from app.attention.ops import softmax_rows

# per test, so other modules keep their own Hypothesis settings
engine = settings(max_examples=60, deadline=None)

values = st.floats(-20, 20, allow_nan=False, allow_infinity=False, width=64)
dims = st.integers(1, 6)


def matrix(rows: int, cols: int) -> st.SearchStrategy[np.ndarray[Any, Any]]:
    return arrays(np.float64, (rows, cols), elements=values)


@st.composite
def qkv(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], ...]:
    l_q, l_k, d_k, d_v = draw(dims), draw(dims), draw(dims), draw(dims)
    return draw(matrix(l_q, d_k)), draw(matrix(l_k, d_k)), draw(matrix(l_k, d_v))


@st.composite
def projection(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], ...]:
    n, d_model, d_k, d_v = draw(dims), draw(dims), draw(dims), draw(dims)
    return (draw(matrix(n, d_model)), draw(matrix(d_model, d_k)),
            draw(matrix(d_model, d_k)), draw(matrix(d_model, d_v)))  # fmt: skip


@engine
@given(qkv(), st.booleans(), st.sampled_from(["none", "causal"]))
def test_rows_sum_to_one_and_nothing_is_nan(m: tuple[Any, ...], scale: bool, mask: str) -> None:
    q, k, v = m
    s = run(AttentionInput(q=q, k=k, v=v, scale=scale, mask=mask))
    w = s.head.weights
    assert np.isfinite(w).all()
    assert np.isfinite(s.output).all()
    assert ((w >= 0) & (w <= 1)).all()
    has_key = s.allowed.any(axis=1)
    np.testing.assert_allclose(w.sum(axis=1)[has_key], 1.0, atol=1e-12)
    assert (w[~has_key] == 0).all()


@engine
@given(qkv())
def test_causal_upper_triangle_is_exactly_zero(m: tuple[Any, ...]) -> None:
    q, k, v = m
    w = run(AttentionInput(q=q, k=k, v=v, mask="causal")).head.weights
    upper = ~np.tril(np.ones(w.shape, dtype=bool))
    assert (w[upper] == 0.0).all()
    # top-left aligned: query 0 always sees key 0, so no row is ever fully blocked
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)


@engine
@given(arrays(np.float64, st.tuples(dims, dims), elements=values), st.floats(-50, 50))
def test_softmax_is_shift_invariant(scores: np.ndarray[Any, Any], c: float) -> None:
    np.testing.assert_allclose(softmax_rows(scores + c), softmax_rows(scores), atol=1e-12)


@engine
@given(arrays(np.float64, st.integers(1, 8), elements=values))
def test_softmax_preserves_order(scores: np.ndarray[Any, Any]) -> None:
    w = softmax_stage(scores).weights[0]
    for i in range(len(scores)):
        for j in range(len(scores)):
            if scores[i] > scores[j]:
                assert w[i] >= w[j]  # ≥: both may underflow to the same tiny value
            if scores[i] == scores[j]:
                assert w[i] == w[j]


@engine
@given(st.floats(-1e6, 1e6), st.floats(-1000, 1000))
def test_softmax_of_one_entry_is_exactly_one(score: float, stretch: float) -> None:
    assert softmax_stage(np.array([score]), stretch).weights.tolist() == [[1.0]]


@engine
@given(projection(), st.data())
def test_permuting_tokens_permutes_outputs(m: tuple[Any, ...], data: st.DataObject) -> None:
    x, w_q, w_k, w_v = m
    perm = np.array(data.draw(st.permutations(range(x.shape[0]))))
    base = run(AttentionInput(x=x, w_q=w_q, w_k=w_k, w_v=w_v))
    moved = run(AttentionInput(x=x[perm], w_q=w_q, w_k=w_k, w_v=w_v))
    np.testing.assert_allclose(moved.output, base.output[perm], atol=1e-9)
    np.testing.assert_allclose(moved.head.weights, base.head.weights[perm][:, perm], atol=1e-12)


@engine
@given(qkv(), st.booleans())
def test_one_head_is_single_head_attention(m: tuple[Any, ...], scale: bool) -> None:
    q, k, v = m
    s = run(AttentionInput(q=q, k=k, v=v, heads=1, scale=scale))
    # single-head attention written out directly
    scaled = q @ k.T / (np.sqrt(q.shape[1]) if scale else 1.0)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    expected = (e / e.sum(axis=1, keepdims=True)) @ v
    assert len(s.heads) == 1
    np.testing.assert_array_equal(s.output, s.head.output)
    np.testing.assert_allclose(s.output, expected, atol=1e-9)


@engine
@given(projection(), st.data())
def test_identical_rows_of_x_give_identical_rows_of_qkv(
    m: tuple[Any, ...], data: st.DataObject
) -> None:
    x, w_q, w_k, w_v = m
    i = data.draw(st.integers(0, x.shape[0] - 1))
    x = np.vstack([x, x[i]])
    s = run(AttentionInput(x=x, w_q=w_q, w_k=w_k, w_v=w_v))
    for out in (s.q, s.k, s.v, s.output):
        np.testing.assert_array_equal(out[-1], out[i])


@engine
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.data())
def test_heads_are_contiguous_column_blocks(
    h: int, per_k: int, per_v: int, data: st.DataObject
) -> None:
    n = data.draw(dims)
    q, k = data.draw(matrix(n, h * per_k)), data.draw(matrix(n, h * per_k))
    v = data.draw(matrix(n, h * per_v))
    s = run(AttentionInput(q=q, k=k, v=v, heads=h))
    for i, head in enumerate(s.heads):
        single = run(AttentionInput(q=q[:, i * per_k : (i + 1) * per_k],
                                    k=k[:, i * per_k : (i + 1) * per_k],
                                    v=v[:, i * per_v : (i + 1) * per_v]))  # fmt: skip
        np.testing.assert_array_equal(head.weights, single.head.weights)
        np.testing.assert_array_equal(s.output[:, i * per_v : (i + 1) * per_v], single.output)
