"""Permutation equivariance (LABS.md E1): Attention(PX) = P·Attention(X) within 1e-12,
for random X and P; a causal mask and sinusoidal positions each break it."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.attention import AttentionInput, Stages, run
from app.inputs.body import AttentionRequest
from app.labs.positional import sinusoidal
from app.presets import get_preset

DOG = ("The", "dog", "bit", "the", "man")
TOL = 1e-12  # the spec's per-entry tolerance: equal in arithmetic, not in summation order


def _random(seed: int, n: int, d: int, d_k: int) -> tuple[Any, ...]:
    """X (n, d) i.i.d. N(0, 1) and W^Q, W^K (d, d_k), W^V (d, d) i.i.d. N(0, 1/d) from one
    seed, so Q and K have unit-variance entries and the scaled scores stay near N(0, 1):
    no row goes one-hot, and "breaks" below is never within rounding."""
    rng = np.random.default_rng(seed)
    w = [rng.standard_normal(shape) / np.sqrt(d) for shape in ((d, d_k), (d, d_k), (d, d))]
    return (rng.standard_normal((n, d)), *w)


def _run(x: Any, w: tuple[Any, ...], **kw: Any) -> Stages:
    return run(AttentionInput(x=x, w_q=w[0], w_k=w[1], w_v=w[2], **kw))


cases = st.tuples(st.integers(0, 2**32), st.integers(2, 8), st.integers(1, 8), st.integers(1, 8))


@settings(max_examples=60, deadline=None)
@given(cases, st.data())
def test_attention_of_permuted_tokens_is_the_permuted_attention(
    case: tuple[int, int, int, int], data: st.DataObject
) -> None:
    seed, n, d, d_k = case
    x, *w = _random(seed, n, d, d_k)
    perm = np.array(data.draw(st.permutations(range(n))))
    base, moved = _run(x, tuple(w)), _run(x[perm], tuple(w))
    assert np.abs(moved.output - base.output[perm]).max() <= TOL
    assert np.abs(moved.head.weights - base.head.weights[perm][:, perm]).max() <= TOL


@settings(max_examples=40, deadline=None)
@given(cases)
def test_a_causal_mask_breaks_it(case: tuple[int, int, int, int]) -> None:
    seed, n, d, d_k = case
    x, *w = _random(seed, n, d, d_k)
    perm = np.arange(n)[::-1]  # reversal moves the last token, which saw everything, to the front
    base = _run(x, tuple(w), mask="causal")
    moved = _run(x[perm], tuple(w), mask="causal")
    # The mask's exact zeros sit above the diagonal; permuted back, the original weights
    # have them below it. So the weights cannot be the permuted originals, whatever the
    # numbers (the outputs may still agree to 1e-10 when the values are nearly equal).
    blocked_after = moved.head.weights == 0
    blocked_before = base.head.weights[perm][:, perm] == 0
    assert (blocked_after != blocked_before).any()


@settings(max_examples=40, deadline=None)
@given(cases)
def test_sinusoidal_positions_break_it(case: tuple[int, int, int, int]) -> None:
    seed, n, d, d_k = case
    d = max(d, 2)  # at width 1 PE(pos) = sin(pos): still position-dependent, but keep it plain
    x, *w = _random(seed, n, d, d_k)
    perm = np.arange(n)[::-1]
    pe = sinusoidal(n, d)
    base, moved = _run(x + pe, tuple(w)), _run(x[perm] + pe, tuple(w))
    assert np.abs(moved.output - base.output[perm]).max() > 1e-6


def _dog_bit_man(perm: list[int], **changes: Any) -> Stages:
    body = get_preset("dog-bit-man")["body"]  # type: ignore[index]
    body["x"] = [body["x"][i] for i in perm]
    body["tokens"] = [body["tokens"][i] for i in perm]
    return run(AttentionRequest(**{**body, **changes}).to_input())


SWAP = [0, 4, 2, 3, 1]  # The man bit the dog


def test_dog_keeps_its_output_when_dog_and_man_swap() -> None:
    a, b = _dog_bit_man([0, 1, 2, 3, 4]), _dog_bit_man(SWAP)
    assert b.tokens == ("The", "man", "bit", "the", "dog")
    assert np.abs(b.output[4] - a.output[1]).max() <= TOL  # dog
    assert np.abs(b.output[1] - a.output[4]).max() <= TOL  # man
    # "The" and "the" share an embedding, so without positions they share an output
    assert np.abs(a.output[0] - a.output[3]).max() <= TOL


def test_positions_give_dog_a_different_output_after_the_swap() -> None:
    a = _dog_bit_man([0, 1, 2, 3, 4], positional="sinusoidal")
    b = _dog_bit_man(SWAP, positional="sinusoidal")
    assert np.abs(b.output[4] - a.output[1]).max() > 1e-3
    assert np.abs(a.output[0] - a.output[3]).max() > 1e-3  # The ≠ the now


def test_a_causal_mask_changes_dogs_output_after_the_swap() -> None:
    a, b = _dog_bit_man([0, 1, 2, 3, 4], mask="causal"), _dog_bit_man(SWAP, mask="causal")
    assert np.abs(b.output[4] - a.output[1]).max() > 1e-3


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(5)), st.integers(0, 4), st.integers(0, 4))
def test_e1_swap_exchanges_two_positions_and_outputs_still_travel(
    perm: list[int], i: int, j: int
) -> None:
    """E1's settle: a swap of positions i and j of any order is that order with the two
    entries exchanged; the figure then finds every output unchanged (no positions)."""
    from app.figures.labs import get_lab
    from app.figures.labs.base import FigureContext
    from app.figures.style import theme
    from app.inputs.lab_controls import figure_values

    lab = get_lab("order")
    assert lab is not None
    fig = lab.figure("shuffle")
    assert fig is not None
    swap = f"{min(i, j)},{max(i, j)}" if i != j else ""
    query = {"perm": ",".join(map(str, perm)), **({"swap": swap} if swap else {})}
    values = figure_values(lab, fig, query)
    want = list(perm)
    want[i], want[j] = want[j], want[i]
    assert list(values["perm"]) == want
    assert values["swap"] == ""

    def attention(body: dict[str, Any]) -> Stages:
        return run(AttentionRequest.model_validate(body).to_input())

    spec = fig.build(values, FigureContext(theme=theme("light"), run={"attention": attention}))
    assert spec["readout"][:5] == [f"{DOG[k]}: same values" for k in want]
