"""The engine agrees with PyTorch to 1e-9 in float64, masks and heads included.

``torch.nn.functional.scaled_dot_product_attention`` checks single-head attention with
``attn_mask`` and ``is_causal``; ``torch.nn.MultiheadAttention`` checks the multi-head
semantics (heads are contiguous column blocks of the projected Q, K, V; W^O after the
concatenation). PyTorch is an optional extra (``pip install -e '.[torch]'``): without it
these tests are skipped, never failed.

Convention difference: for a query row with no allowed key PyTorch returns NaN (or, in
some kernels, zeros); the engine returns all-zero weights and a warning. Only rows with at
least one allowed key are compared; the engine's own behaviour for blocked rows is
tested in test_engine_masks_softmax.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from engine_spec import SPEC, arr, run_example

from app.attention import AttentionInput, run

torch = pytest.importorskip(
    "torch", reason="PyTorch is optional: pip install -e '.[torch]' to compare against it"
)
F = torch.nn.functional

TOL = 1e-9
Array = np.ndarray[Any, Any]


def t(a: Array) -> Any:
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def sdpa(q: Array, k: Array, v: Array, **kwargs: Any) -> Array:
    out = F.scaled_dot_product_attention(t(q), t(k), t(v), **kwargs)
    return np.asarray(out.numpy())


def random_qkv(seed: int, l_q: int, l_k: int, d_k: int, d_v: int) -> tuple[Array, ...]:
    rng = np.random.default_rng(seed)
    return (rng.normal(scale=3, size=(l_q, d_k)), rng.normal(scale=3, size=(l_k, d_k)),
            rng.normal(size=(l_k, d_v)))  # fmt: skip


def test_running_example_matches_sdpa() -> None:
    s = run_example()
    np.testing.assert_allclose(s.output, sdpa(s.q, s.k, s.v), rtol=0, atol=TOL)


@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize(("l_q", "l_k"), [(3, 3), (5, 8), (8, 5), (1, 1)])
def test_causal_matches_is_causal(scale: bool, l_q: int, l_k: int) -> None:
    q, k, v = random_qkv(l_q * 10 + l_k, l_q, l_k, 6, 5)
    s = run(AttentionInput(q=q, k=k, v=v, mask="causal", scale=scale))
    expected = sdpa(q, k, v, is_causal=True, scale=None if scale else 1.0)
    np.testing.assert_allclose(s.output, expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", range(5))
def test_padding_and_allowed_match_a_boolean_attn_mask(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    l_q, l_k = 6, 7
    q, k, v = random_qkv(seed, l_q, l_k, 4, 3)
    padding = tuple(bool(b) for b in rng.random(l_k) < 0.3)
    allowed = rng.random((l_q, l_k)) < 0.7
    s = run(AttentionInput(q=q, k=k, v=v, mask="causal", padding=padding, allowed=allowed))
    # SDPA's boolean attn_mask: True = may attend, the engine's `allowed` convention
    mask = np.tril(np.ones((l_q, l_k), dtype=bool)) & allowed & ~np.array(padding)[None, :]
    np.testing.assert_array_equal(s.allowed, mask)
    expected = sdpa(q, k, v, attn_mask=torch.from_numpy(mask))
    rows = mask.any(axis=1)  # PyTorch's convention differs for rows with no allowed key
    assert rows.sum() >= 1
    np.testing.assert_allclose(s.output[rows], expected[rows], rtol=0, atol=TOL)
    assert (s.output[~rows] == 0).all()


def test_running_example_causal_matches_sdpa_weights() -> None:
    s = run_example(mask="causal")
    scores = t(s.q) @ t(s.k).T / 2
    scores = scores.masked_fill(~torch.ones(3, 3, dtype=torch.bool).tril(), float("-inf"))
    np.testing.assert_allclose(s.head.weights, scores.softmax(dim=-1).numpy(), atol=TOL)


def mha(e: int, heads: int, w_q: Array, w_k: Array, w_v: Array, w_o: Array) -> Any:
    """nn.MultiheadAttention with the engine's weights (torch stores W transposed)."""
    m = torch.nn.MultiheadAttention(e, heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        m.in_proj_weight.copy_(torch.cat([t(w_q).T, t(w_k).T, t(w_v).T]))
        m.out_proj.weight.copy_(t(w_o).T)
    return m.eval()


def test_two_heads_running_example_matches_multihead_attention() -> None:
    w_o = arr(SPEC["w_o_two_heads"])
    s = run_example(heads=2, w_o=w_o)
    m = mha(4, 2, arr(SPEC["w_q"]), arr(SPEC["w_k"]), arr(SPEC["w_v"]), w_o)
    x = t(arr(SPEC["x"]))[None]
    out, per_head = m(x, x, x, need_weights=True, average_attn_weights=False)
    np.testing.assert_allclose(s.output, out[0].detach().numpy(), rtol=0, atol=TOL)
    for i, h in enumerate(s.heads):
        np.testing.assert_allclose(h.weights, per_head[0, i].detach().numpy(), atol=TOL)


@pytest.mark.parametrize("heads", [1, 2, 4, 8])
@pytest.mark.parametrize("causal", [False, True])
def test_multihead_cross_attention_with_padding(heads: int, causal: bool) -> None:
    rng = np.random.default_rng(heads)
    e, l_q, l_k = 8, 5, 7
    x, source = rng.normal(size=(l_q, e)), rng.normal(size=(l_k, e))
    w_q, w_k, w_v, w_o = (rng.normal(size=(e, e)) for _ in range(4))
    padding = (False, True, False, False, True, False, False)
    mask = "causal" if causal else "none"
    s = run(AttentionInput(x=x, source_x=source, w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o,
                           heads=heads, padding=padding, mask=mask))  # fmt: skip
    m = mha(e, heads, w_q, w_k, w_v, w_o)
    # MultiheadAttention's masks say where NOT to attend (the opposite of SDPA's)
    blocked = ~np.tril(np.ones((l_q, l_k), dtype=bool)) if causal else None
    out, _ = m(t(x)[None], t(source)[None], t(source)[None],
               key_padding_mask=torch.tensor([padding]),
               attn_mask=None if blocked is None else torch.from_numpy(blocked))  # fmt: skip
    rows = s.allowed.any(axis=1)  # rows with no allowed key differ by convention
    np.testing.assert_allclose(s.output[rows], out[0].detach().numpy()[rows], rtol=0, atol=TOL)
