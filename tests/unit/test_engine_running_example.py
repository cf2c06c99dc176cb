"""Every number of the running example "I love LLMs" (running-example.json, FIGURES.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from engine_spec import SPEC, arr, round2, run_example

from app.attention import run
from app.attention.pipeline import AttentionInput

EXPECTED = SPEC["expected"]


def test_projections_are_exact() -> None:
    s = run_example()
    np.testing.assert_array_equal(s.q, arr(EXPECTED["q"]))
    np.testing.assert_array_equal(s.k, arr(EXPECTED["k"]))
    np.testing.assert_array_equal(s.v, arr(EXPECTED["v"]))


def test_scores_divisor_and_scaled() -> None:
    h = run_example().head
    np.testing.assert_array_equal(h.scores, arr(EXPECTED["scores"]))
    assert h.d_k == EXPECTED["d_k"] == 4
    assert h.divisor == EXPECTED["divisor"] == 2
    np.testing.assert_array_equal(h.scaled, arr(EXPECTED["scaled"]))
    # no mask: masked is scaled, cell for cell
    np.testing.assert_array_equal(h.masked, h.scaled)


def test_weights_exact_and_2dp() -> None:
    h = run_example().head
    np.testing.assert_allclose(h.weights, arr(EXPECTED["weights_exact"]), rtol=0, atol=1e-6)
    assert round2(h.weights) == EXPECTED["weights_2dp"]


def test_output_exact_and_2dp() -> None:
    s = run_example()
    np.testing.assert_allclose(s.output, arr(EXPECTED["output_exact"]), rtol=0, atol=1e-6)
    np.testing.assert_allclose(s.head.output, s.output, rtol=0, atol=0)
    assert round2(s.output) == EXPECTED["output_2dp"]


def test_row_statistics() -> None:
    h = run_example().head
    np.testing.assert_allclose(h.row_sum, [1, 1, 1], rtol=0, atol=1e-15)
    assert h.row_argmax == (0, 1, 2)
    np.testing.assert_allclose(h.row_max, [0.576117, 0.628532, 0.628532], atol=1e-6)
    w = arr(EXPECTED["weights_exact"])
    np.testing.assert_allclose(h.row_entropy, -(w * np.log2(w)).sum(axis=1), atol=1e-5)


# FIGURES.md, "Numbers that must hold"


def test_q11_and_attention_is_not_symmetric() -> None:
    s = run_example()
    assert s.q[0, 0] == 2  # Q₁₁ = 2
    assert s.head.scores[1, 2] == 3  # q₂·k₃ = 3
    assert s.head.scores[2, 1] == 2  # q₃·k₂ = 2
    assert round2(s.head.weights[1, 2]) == 0.23  # A₂₃
    assert round2(s.head.weights[2, 1]) == 0.14  # A₃₂


def test_focus_row_exponentials() -> None:
    h = run_example().head
    assert h.exp_shift[1] == 0  # small scores: the exponentials are the textbook ones
    np.testing.assert_allclose(h.exps[1], [2.718, 12.182, 4.482], atol=5e-4)
    assert round(float(h.exps[1].sum()), 3) == 19.382
    assert h.exps[1, 0] == math.e


def test_row_2_of_z_is_63_percent_own_value() -> None:
    s = run_example()
    assert round2(s.output[1]) == [1.63, 0.14, 0.23, 0.63]
    own = s.head.weights[1, 1]
    assert round(own * 100) == 63
    assert round((1 - own) * 100) == 37


def test_identical_rows_of_x_give_identical_rows_of_qkv() -> None:
    x = arr(SPEC["x"])
    x[2] = x[0]
    s = run_example(x=x)
    for m in (s.q, s.k, s.v):
        np.testing.assert_array_equal(m[2], m[0])


def test_shapes_7_queries_over_12_keys() -> None:
    rng = np.random.default_rng(7)
    q, k, v = rng.normal(size=(7, 64)), rng.normal(size=(12, 64)), rng.normal(size=(12, 64))
    s = run(AttentionInput(q=q, k=k, v=v))
    assert s.head.scores.shape == (7, 12)
    assert s.head.weights.shape == (7, 12)
    assert s.output.shape == (7, 64)
    assert s.head.divisor == 8
    assert s.key_tokens == tuple(f"s{i}" for i in range(12))


# The toggle table the chapter never shows

TOGGLES = {
    "unscaled": {"scale": False, "mask": "none"},
    "scaled_causal": {"scale": True, "mask": "causal"},
    "unscaled_causal": {"scale": False, "mask": "causal"},
}


@pytest.mark.parametrize("name", sorted(TOGGLES))
def test_toggle_table(name: str) -> None:
    s = run_example(**TOGGLES[name])
    expected = SPEC["toggles_2dp"][name]
    assert round2(s.head.weights) == expected["weights"]
    assert round2(s.output) == expected["output"]
    assert s.head.divisor == (2 if TOGGLES[name]["scale"] else 1)


def test_causal_mask_never_changes_raw_scores() -> None:
    plain, causal = run_example().head, run_example(mask="causal").head
    np.testing.assert_array_equal(causal.scores, plain.scores)
    np.testing.assert_array_equal(causal.scaled, plain.scaled)
    assert np.isneginf(causal.masked[np.triu_indices(3, 1)]).all()
    assert (causal.weights[np.triu_indices(3, 1)] == 0).all()


# Figure 11: cross-attention, 2 queries against 4 source tokens


def test_cross_attention_example() -> None:
    x = arr(SPEC["x"])
    source = np.vstack([x, [1, 1, 0, 1]])
    s = run_example(x=x[:2], tokens=("I", "love"), source_x=source)
    assert s.cross
    np.testing.assert_array_equal(s.head.scores, [[4, 2, 2, 1], [2, 5, 3, 4]])
    assert s.head.weights.shape == (2, 4)
    assert round2(s.head.weights) == [[0.51, 0.19, 0.19, 0.11], [0.10, 0.46, 0.17, 0.28]]
    assert round2(s.output) == [[1.30, 0.51, 0.30, 0.30], [1.73, 0.10, 0.44, 0.73]]
    assert s.key_tokens == ("s0", "s1", "s2", "s3")


def test_cross_attention_source_tokens_label_the_keys() -> None:
    x = arr(SPEC["x"])
    s = run_example(
        x=x[:2],
        tokens=("I", "love"),
        source_x=np.vstack([x, [1, 1, 0, 1]]),
        source_tokens=("I", "love", "LLMs", "!"),
    )
    assert s.tokens == ("I", "love")
    assert s.key_tokens == ("I", "love", "LLMs", "!")


# Two heads with the chapter's W^O


def test_two_heads_with_w_o() -> None:
    s = run_example(heads=2, w_o=arr(SPEC["w_o_two_heads"]))
    assert len(s.heads) == 2
    for h, cols in zip(s.heads, (slice(0, 2), slice(2, 4)), strict=True):
        assert h.d_k == 2
        assert h.divisor == pytest.approx(math.sqrt(2), abs=1e-15)
        np.testing.assert_array_equal(h.q, arr(EXPECTED["q"])[:, cols])
        np.testing.assert_array_equal(h.k, arr(EXPECTED["k"])[:, cols])
        np.testing.assert_array_equal(h.v, arr(EXPECTED["v"])[:, cols])
    np.testing.assert_array_equal(s.concat, np.hstack([h.output for h in s.heads]))
    np.testing.assert_allclose(s.output, s.concat @ arr(SPEC["w_o_two_heads"]), atol=1e-15)
    assert round2(s.output) == [
        [1.01, 1.01, 0.83, 1.50],
        [0.46, 0.75, 1.16, 2.31],
        [0.75, 1.31, 0.41, 1.87],
    ]
