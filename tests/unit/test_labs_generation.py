"""Decoding with a cache, grouped heads, windows and sinks (app.labs: decoding, grouped,
windows, sinks): incremental = full causal, kv_heads = heads = multi-head, the Mistral 7B
numbers, and what evicting the first token does to the weights."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.labs import decoding, grouped, sinks, windows
from app.labs.attend import attention, causal, softmax_rows

labs = settings(max_examples=60, deadline=None)
values = st.floats(-30, 30, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def qkv(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], ...]:
    n, d_k, d_v = draw(st.integers(1, 7)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    return tuple(draw(arrays(np.float64, shape, elements=values))
                 for shape in ((n, d_k), (n, d_k), (n, d_v)))  # fmt: skip


@labs
@given(qkv())
def test_incremental_decoding_equals_full_causal(m: tuple[np.ndarray[Any, Any], ...]) -> None:
    q, k, v = m
    steps = decoding.incremental(q, k, v)
    weights, output = decoding.full_causal(q, k, v)
    np.testing.assert_allclose(decoding.incremental_output(steps), output, rtol=0, atol=1e-12)
    for s in steps:  # step t reads t + 1 cached keys, exactly row t's allowed keys
        assert s.k_cache.shape[0] == s.t + 1
        np.testing.assert_allclose(s.weights, weights[s.t, : s.t + 1], rtol=0, atol=1e-12)
        assert np.all(weights[s.t, s.t + 1 :] == 0)


def test_one_token_and_huge_scores() -> None:
    q = k = np.array([[1e6]])
    v = np.array([[3.0]])
    (step,) = decoding.incremental(q, k, v)
    assert step.weights.tolist() == [1.0]
    assert step.output.tolist() == [3.0]
    big = np.array([[1e150, 1.0], [1e150, -1e150]])  # scores near 1e300, finite
    _, out = decoding.full_causal(big, big, np.eye(2))
    assert np.isfinite(out).all()


def test_kv_head_options_run_from_heads_down_to_one() -> None:
    assert grouped.kv_head_options(8) == (8, 4, 2, 1)
    assert grouped.kv_head_options(9) == (9, 3, 1)
    assert [grouped.group_of(j, 8, 2) for j in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert grouped.cache_rows(2, 10) == 40
    with pytest.raises(ValueError, match=r"^heads:"):
        grouped.kv_head_options(0)


@st.composite
def heads_state(draw: st.DrawFn) -> tuple[Any, ...]:
    h = draw(st.sampled_from([1, 2, 3, 4, 6]))
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    stack = arrays(np.float64, (h, n, d), elements=values)
    return draw(stack), draw(stack), draw(stack), draw(st.sampled_from(grouped.kv_head_options(h)))


@labs
@given(heads_state())
def test_kv_heads_equal_heads_is_multi_head(state: tuple[Any, ...]) -> None:
    q, k, v, g = state
    weights, outputs = grouped.grouped_attention(q, k, v, causal(q.shape[1], k.shape[1]))
    for j in range(q.shape[0]):  # g = h: head j reads its own K and V
        w, o = attention(q[j], k[j], v[j], causal(q.shape[1], k.shape[1]))
        assert np.array_equal(weights[j], w)
        assert np.array_equal(outputs[j], o)
    pooled_k = grouped.mean_pool(k, g)
    assert pooled_k.shape == (g, *k.shape[1:])
    size = q.shape[0] // g
    np.testing.assert_allclose(pooled_k[0], k[:size].mean(axis=0), atol=1e-12)
    w_g, _ = grouped.grouped_from_multihead(q, k, v, g)
    np.testing.assert_allclose(w_g.sum(axis=-1), 1.0, atol=1e-12)


def test_multi_query_shares_one_head_and_bad_groups_are_refused() -> None:
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3, 2))
    w, _ = grouped.grouped_from_multihead(q, k, v, 1)
    shared = k.mean(axis=0)
    for j in range(4):
        np.testing.assert_allclose(w[j], attention(q[j], shared, v.mean(axis=0))[0], atol=1e-15)
    with pytest.raises(ValueError, match=r"^kv_heads:"):
        grouped.mean_pool(k, 3)
    with pytest.raises(ValueError, match=r"^kv_heads:"):
        grouped.grouped_attention(q, k[:3], v[:3])


def test_band_reach_and_the_papers_span() -> None:
    assert windows.band(4, 2).astype(int).tolist() == [
        [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]  # fmt: skip
    assert windows.band(3, 1).tolist() == np.eye(3, dtype=bool).tolist()
    for w, layers in ((3, 1), (3, 2), (4, 3), (2, 5)):
        r = windows.reach(windows.band(20, w), layers)
        assert int((19 - np.flatnonzero(r[19])).max()) == windows.reach_back(w, layers)
    assert windows.span(4096, 32) == 131_072  # Mistral 7B: "approximately 131K tokens"


def test_rolling_buffer() -> None:
    assert [windows.buffer_slot(i, 4) for i in range(6)] == [0, 1, 2, 3, 0, 1]
    assert windows.buffer_contents(2, 4) == (0, 1, -1, -1)
    assert windows.buffer_contents(10, 4) == (8, 9, 6, 7)  # the last W positions
    assert windows.buffer_saving(32_768, 4096) == 8  # Mistral 7B: "by 8x"
    assert windows.buffer_saving(100, 4096) == 1
    for bad in (lambda: windows.band(3, 0), lambda: windows.span(1, 0),
                lambda: windows.buffer_slot(1, True)):  # fmt: skip
        with pytest.raises(ValueError, match="must be a positive integer"):
            bad()


def test_sinks_keep_the_first_tokens_and_a_window() -> None:
    a = sinks.allowed(6, 1, 2)
    assert a[:, 0].all()
    assert a[5].tolist() == [True, False, False, False, True, True]
    assert np.array_equal(sinks.allowed(6, 0, 2), windows.band(6, 2))
    assert sinks.kept(10, 4, 3) == (0, 1, 2, 3, 8, 9, 10)
    assert sinks.kept(2, 4, 3) == (0, 1, 2)
    with pytest.raises(ValueError, match=r"^sinks:"):
        sinks.allowed(3, -1, 2)


@labs
@given(qkv(), st.integers(1, 3))
def test_evicting_renormalises_the_rest(m: tuple[Any, ...], evict: int) -> None:
    q, k, v = m
    if evict >= k.shape[0]:
        return
    out = sinks.evict_first(q[-1], k, v, evict)
    cut = np.arange(k.shape[0]) < evict
    again, mass = sinks.renormalised(out["weights"][None, :], cut[None, :])
    assert np.all(out["evicted_weights"][:evict] == 0)
    np.testing.assert_allclose(mass[0], out["sink_mass"], atol=1e-15)
    if mass[0] < 1 - 1e-6:  # a share left to renormalise: recomputing = dividing by 1 − mass
        np.testing.assert_allclose(again[0], out["evicted_weights"], atol=1e-9)


def test_a_sink_that_holds_most_of_the_weight() -> None:
    # key 0 scores far above the rest: evicting it hands its share to the others
    q = np.array([1.0, 0.0])
    k = np.array([[8.0, 0.0], [1.0, 0.0], [0.5, 0.0], [0.0, 0.0]])
    v = np.eye(4)[:, :2]
    out = sinks.evict_first(q, k, v)
    assert out["sink_mass"] > 0.9
    np.testing.assert_allclose(
        out["evicted_weights"][1:], softmax_rows(k[1:, :1].T / np.sqrt(2))[0]
    )
    with pytest.raises(ValueError, match=r"^evict:"):
        sinks.evict_first(q, k, v, 4)
