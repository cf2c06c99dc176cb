"""The engine's additive options (app.attention.options, app.attention.tiled): each equal to
its lab twin in app.labs, the invariants (kv_heads = heads is multi-head, tiled = one-shot,
RoPE's scores unchanged by a shift), absent options changing nothing, and bad values named."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.attention import AttentionInput, InputError, run
from app.attention.options import alibi_slopes
from app.labs import alibi, flash, grouped, rotary, sinks
from app.presets import RUNNING_EXAMPLE

engine = settings(max_examples=50, deadline=None)
values = st.floats(-20, 20, allow_nan=False, allow_infinity=False, width=64)


def running(**options: Any) -> AttentionInput:
    m = {k: np.asarray(RUNNING_EXAMPLE[k], dtype=np.float64) for k in ("x", "w_q", "w_k", "w_v")}
    return AttentionInput(**m, tokens=tuple(RUNNING_EXAMPLE["tokens"]), **options)


@st.composite
def direct(draw: st.DrawFn) -> AttentionInput:
    heads = draw(st.sampled_from([1, 2, 4]))
    n, d = draw(st.integers(1, 7)), 2 * heads * draw(st.integers(1, 2))
    q, k, v = (draw(arrays(np.float64, (n, d), elements=values)) for _ in range(3))
    return AttentionInput(
        q=q, k=k, v=v, heads=heads, mask=draw(st.sampled_from(["none", "causal"]))
    )


def test_absent_options_change_nothing() -> None:
    plain = run(running(mask="causal", heads=2))
    assert plain.options is None
    assert all(h.bias is None and h.tiles is None for h in plain.heads)
    off = run(running(mask="causal", heads=2, alibi=False))
    assert np.array_equal(off.output, plain.output)


@engine
@given(direct())
def test_kv_heads_equal_heads_is_multi_head(inp: AttentionInput) -> None:
    plain, shared = run(inp), run(replace(inp, kv_heads=inp.heads))
    for a, b in zip(plain.heads, shared.heads, strict=True):
        assert np.array_equal(a.weights, b.weights)
        assert np.array_equal(a.output, b.output)


@engine
@given(direct(), st.data())
def test_kv_heads_pool_as_the_gqa_lab(inp: AttentionInput, data: st.DataObject) -> None:
    g = data.draw(st.sampled_from(grouped.kv_head_options(inp.heads)))
    s = run(replace(inp, kv_heads=g))
    split = [np.stack(np.split(m, inp.heads, axis=1)) for m in (inp.q, inp.k, inp.v)]
    allowed = None if inp.mask == "none" else np.tril(np.ones((len(inp.q),) * 2, bool))
    weights, outputs = grouped.grouped_from_multihead(*split, g, allowed)
    for h, head in enumerate(s.heads):
        np.testing.assert_allclose(head.weights, weights[h], rtol=0, atol=1e-12)
        np.testing.assert_allclose(head.output, outputs[h], rtol=0, atol=1e-12)


@engine
@given(direct(), st.integers(1, 4), st.integers(1, 4), st.data())
def test_tiled_equals_one_shot(inp: AttentionInput, b_r: int, b_c: int, data: Any) -> None:
    padding = tuple(data.draw(st.lists(st.booleans(), min_size=len(inp.k), max_size=len(inp.k))))
    plain = replace(inp, padding=padding)
    s = run(replace(plain, tiling=(b_r, b_c)))
    for a, b in zip(run(plain).heads, s.heads, strict=True):
        np.testing.assert_allclose(b.output, a.output, rtol=0, atol=1e-12)
        assert np.array_equal(b.weights, a.weights)
        assert b.tiles is not None
        assert len(b.tiles) == -(-len(inp.q) // b_r) * -(-len(inp.k) // b_c)


def test_tiling_trace_is_the_labs_to_the_bit() -> None:
    s = run(running(mask="causal", tiling=(2, 1)))
    head = s.head
    out, trace = flash.tiled_attention(head.masked, head.v, 2, 1)
    assert np.array_equal(out, head.output)
    assert head.tiles is not None
    for a, b in zip(head.tiles, trace, strict=True):
        assert (a.rows, a.cols) == (b.rows, b.cols)
        for name in ("m_before", "m_tile", "m_after", "l_before", "l_tile", "l_after", "rescale"):
            assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=False)


def test_tiling_with_a_fully_blocked_row_and_huge_scores() -> None:
    q = np.array([[1e5, 0.0], [1.0, 1.0]])
    k = np.array([[1e5, 0.0], [-1e5, 0.0]])
    v = np.eye(2)
    allowed = np.array([[True, True], [False, False]])
    s = run(AttentionInput(q=q, k=k, v=v, allowed=allowed, tiling=(1, 1)))
    assert s.head.output.tolist() == [[1.0, 0.0], [0.0, 0.0]]
    assert s.warnings  # row 1 has no allowed key


@engine
@given(direct(), st.integers(-1000, 1000), st.sampled_from([1e4, 1e5]))
def test_rope_scores_depend_on_the_offset_only(
    inp: AttentionInput, shift: int, base: float
) -> None:
    n = len(inp.q)
    pos = tuple(float(p) for p in range(n))
    a = run(replace(inp, rope_base=base, positions=pos))
    b = run(replace(inp, rope_base=base, positions=tuple(p + shift for p in pos)))
    for h, (ha, hb) in enumerate(zip(a.heads, b.heads, strict=True)):
        q_h, k_h = np.split(inp.q, inp.heads, axis=1)[h], np.split(inp.k, inp.heads, axis=1)[h]
        exact = rotary.relative_scores(q_h, k_h, np.array(pos), np.array(pos), base)
        bound = 1e-12 * (1 + np.linalg.norm(q_h, axis=1)[:, None] * np.linalg.norm(k_h, axis=1))
        assert np.all(np.abs(ha.scores - exact) <= bound)
        assert np.all(np.abs(hb.scores - exact) <= bound)


def test_rope_rotates_q_and_k_as_the_lab() -> None:
    s = run(running(rope_base=10_000.0, positions=(3.0, 4.0, 5.0)))
    x = np.asarray(RUNNING_EXAMPLE["x"], dtype=np.float64)
    q = x @ np.asarray(RUNNING_EXAMPLE["w_q"], dtype=np.float64)
    assert np.array_equal(s.head.q, rotary.rotate(q, np.array([3.0, 4.0, 5.0])))
    assert np.array_equal(s.q, q)  # the stages' Q stays as projected


def test_alibi_slopes_and_bias_as_the_lab() -> None:
    for heads in range(1, 65):
        assert np.array_equal(np.array(alibi_slopes(heads)), alibi.slopes(heads))
    s = run(running(mask="causal", alibi=True, heads=2))
    assert s.options is not None
    assert s.options.alibi_slopes == (2.0**-4, 2.0**-8)
    for h, head in enumerate(s.heads):
        assert np.array_equal(head.bias, alibi.bias(s.options.alibi_slopes[h], 3, 3))
        np.testing.assert_allclose(head.masked[1, :2], head.scaled[1, :2] + head.bias[1, :2])


@pytest.mark.parametrize(("k", "w"), [(0, 1), (1, 2), (2, 2), (0, 5)])
def test_window_and_sinks_under_the_causal_mask(k: int, w: int) -> None:
    rng = np.random.default_rng(k * 10 + w)
    q, key, v = (rng.normal(size=(6, 2)) for _ in range(3))
    s = run(AttentionInput(q=q, k=key, v=v, mask="causal", window=w, sinks=k or None))
    assert np.array_equal(s.allowed, sinks.allowed(6, k, w))
    assert np.all(s.head.weights[~s.allowed] == 0)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"kv_heads": 3, "heads": 2}, "kv_heads"),
        ({"kv_heads": 0}, "kv_heads"),
        ({"window": 0}, "window"),
        ({"sinks": 1}, "sinks"),
        ({"window": 2, "sinks": -1}, "sinks"),
        ({"alibi": True}, "alibi"),
        ({"rope_base": 1.0}, "rope.base"),
        ({"rope_base": float("nan")}, "rope.base"),
        ({"positions": (0.0, 1.0, 2.0)}, "positions"),
        ({"rope_base": 1e4, "positions": (0.0,)}, "positions"),
        ({"rope_base": 1e4, "heads": 4}, "rope"),
        ({"tiling": (0, 1)}, "tiling.block_rows"),
        ({"tiling": (1, True)}, "tiling.block_cols"),
    ],
)
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as e:
        run(running(**options))
    assert e.value.field == field


def test_one_token() -> None:
    one = AttentionInput(q=np.array([[1.0, 2.0]]), k=np.array([[3.0, 4.0]]), v=np.array([[5.0]]))
    s = run(replace(one, rope_base=1e4, window=1, sinks=1, kv_heads=1, tiling=(1, 1)))
    assert s.head.weights.tolist() == [[1.0]]
    assert s.head.output.tolist() == [[5.0]]
