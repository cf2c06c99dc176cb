"""SmolLM2-135M in numpy: what it predicts, what its trace holds, and that it agrees with an
independent implementation on the same file.

The independent one is transformers' Llama loaded from the GGUF file itself
(``from_pretrained(folder, gguf_file=…)``: its own dequantization and its own undoing of
the conversion's RoPE permutation), eager attention in float32; it runs when torch,
transformers and accelerate are installed (``pip install -e '.[transformers]'``) and
skips otherwise. Every head's weights, every position's logits, each layer's input, and
q, k (rotated by transformers' own RoPE) and v must agree to 1e-4.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from models_support import needs_smollm2, smollm2_file

from app.models import registry, smollm
from app.models.errors import ModelInputError

pytestmark = needs_smollm2
TOL = 1e-4
TEXTS = [
    "The capital of France is",
    "def add(a, b):\n    return a + b  # 2 numbers",
    "Naïve café owners in 東京 don't mind emoji 🙂, they said in 2017.",
]


@functools.cache
def model() -> smollm.SmolLM2:
    found = registry.get("smollm2")
    assert isinstance(found, smollm.SmolLM2)
    return found


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("The capital of France is", " Paris"),
        ("One, two, three,", " four"),
        ("The opposite of hot is", " cold"),
        ("Monday, Tuesday,", " Wednesday"),
    ],
)
@pytest.mark.slow
def test_the_top_next_token(prompt: str, expected: str) -> None:
    m = model()
    logits = m.logits(m.ids(prompt))[0]
    assert m.bpe.decode([int(np.argmax(logits))]) == expected


def test_the_trace_holds_every_head_and_its_q_k_v() -> None:
    trace = model().trace(TEXTS[1])
    n = len(trace.tokens)
    assert "".join(trace.tokens) == TEXTS[1]
    assert trace.attentions.shape == (30, 9, n, n)
    assert trace.queries is not None
    assert trace.keys is not None
    assert trace.values is not None
    assert trace.queries.shape == (30, 9, n, 64)
    assert trace.keys.shape == trace.values.shape == (30, 3, n, 64)
    assert len(trace.layer_inputs) == 30
    assert trace.layer_inputs[0].shape == (n, 576)
    assert trace.mask is not None
    np.testing.assert_allclose(trace.attentions.sum(-1), 1, atol=1e-5)
    assert np.all(trace.attentions[:, :, trace.mask] == 0)  # blocked: exactly 0
    # Grouped-query attention: query head j reads key head j // 3, scaled by √64.
    for layer in (0, 29):
        for j in range(9):
            scores = trace.queries[layer, j] @ trace.keys[layer, j // 3].T / 8
            scores[trace.mask] = -np.inf
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            weights /= weights.sum(-1, keepdims=True)
            np.testing.assert_allclose(trace.attentions[layer, j], weights, atol=1e-5)


@pytest.mark.slow
def test_late_layers_sink_onto_the_first_token() -> None:
    for text in ("I love LLMs because they can write poems about cats.", TEXTS[2]):
        weights = model().trace(text).attentions
        later = weights[:, :, 3:, 0].mean(axis=(1, 2))  # per layer, queries from the 4th on
        assert later[-1] > 0.5  # last layer: more than half the weight on token 0
        assert later[0] < 0.3  # the first layer does not do it
        assert later[3:9].min() > 0.5


def test_texts_it_cannot_take_name_the_text() -> None:
    with pytest.raises(ModelInputError, match="at most 128") as info:
        model().ids("word " * 200)
    assert info.value.field == "text"
    with pytest.raises(ModelInputError, match="not a character"):
        model().ids("a\ud800b")


def test_the_weights_are_kept_small() -> None:
    # Blocks as stored plus float32 scales: far from the 540 MB of float32 weights.
    assert model().nbytes < 120e6


def test_a_file_of_another_architecture_is_refused() -> None:
    with pytest.raises(ValueError, match="head_count_kv is 9, expected 3"):
        smollm.SmolLM2._check({**_metadata(), "llama.attention.head_count_kv": 9})


@functools.cache
def _metadata() -> dict[str, Any]:
    from app.models import gguf_file

    return gguf_file.read(smollm2_file()).metadata


@functools.cache
def reference() -> Any:
    """transformers' Llama from the same GGUF file (float32, eager attention)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    torch.set_num_threads(1)
    file = smollm2_file()
    hf = transformers.AutoModelForCausalLM.from_pretrained(
        str(file.parent), gguf_file=file.name, attn_implementation="eager", dtype=torch.float32
    )
    return hf.eval()


def _reference_run(text: str) -> dict[str, Any]:
    """transformers' weights, logits, layer inputs and q, k, v (rotated by its own RoPE)."""
    hf, ids = reference(), model().ids(text)  # first: it skips without transformers
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    caught: dict[str, list[Any]] = {"h": [], "q": [], "k": [], "v": []}
    hooks = []
    for layer in hf.model.layers:
        hooks.append(layer.input_layernorm.register_forward_hook(
            lambda _m, _i, out: caught["h"].append(out[0])))  # fmt: skip
        for name in "qkv":
            proj = getattr(layer.self_attn, f"{name}_proj")
            hooks.append(proj.register_forward_hook(
                lambda _m, _i, out, name=name: caught[name].append(out[0])))  # fmt: skip
    try:
        with torch.no_grad():
            out = hf(torch.tensor([ids]), output_attentions=True)
            n = len(ids)
            cos, sin = hf.model.rotary_emb(caught["q"][0][None], torch.arange(n)[None])
            split = [[t.reshape(n, -1, 64).transpose(0, 1) for t in caught[x]] for x in "qkv"]
            rotated = [
                apply_rotary_pos_emb(q[None], k[None], cos, sin)
                for q, k in zip(*split[:2], strict=True)
            ]
    finally:
        for hook in hooks:
            hook.remove()
    return {
        "weights": np.stack([a[0].numpy() for a in out.attentions]),
        "logits": out.logits[0].numpy(),
        "inputs": [h.numpy() for h in caught["h"]],
        "q": np.stack([q[0].numpy() for q, _ in rotated]),
        "k": np.stack([k[0].numpy() for _, k in rotated]),
        "v": np.stack([v.numpy() for v in split[2]]),
    }


@pytest.mark.parametrize("text", TEXTS)
def test_it_agrees_with_transformers_llama_on_the_same_file(text: str) -> None:
    ref, m = _reference_run(text), model()
    trace = m.trace(text)
    assert np.abs(trace.attentions - ref["weights"]).max() < TOL
    assert np.abs(m.logits(m.ids(text), last=len(trace.tokens)) - ref["logits"]).max() < TOL
    assert np.abs(np.stack(trace.layer_inputs) - np.stack(ref["inputs"])).max() < TOL
    for ours, theirs in (
        (trace.queries, ref["q"]),
        (trace.keys, ref["k"]),
        (trace.values, ref["v"]),
    ):
        assert ours is not None
        assert np.abs(ours - theirs).max() < TOL


def test_a_heads_weights_are_transformers_projections() -> None:
    attention = reference().model.layers[7].self_attn
    head = model().head(7, 4)  # query head 4 reads key/value head 1
    rows = slice(4 * 64, 5 * 64)
    np.testing.assert_array_equal(head.W_q, attention.q_proj.weight.detach().numpy()[rows].T)
    np.testing.assert_array_equal(head.W_k, attention.k_proj.weight.detach().numpy()[64:128].T)
    np.testing.assert_array_equal(head.W_v, attention.v_proj.weight.detach().numpy()[64:128].T)
    for bias in (head.b_q, head.b_k, head.b_v):
        assert not bias.any()


def test_a_heads_note_says_what_its_body_holds() -> None:
    from app.models import head_state, minilm

    assert head_state.note(smollm.SPEC) == head_state.ROPE_NOTE
    assert "rotated q" in head_state.ROPE_NOTE
    assert head_state.note(minilm.SPEC) == head_state.NOTE


@pytest.mark.slow  # a forward pass of SmolLM2 or more: seconds alone
def test_cached_generation_equals_recomputing_the_whole_sequence() -> None:
    from app.models import generation

    m = model()
    prompt = "The capital of France is"
    steps = generation.generate(m, prompt, 4)
    assert "".join(s.text for s in steps).startswith(" Paris")
    ids = m.ids(prompt) + [s.token for s in steps]
    _, full = m.run(ids)  # no cache: every position at once
    for i, s in enumerate(steps):
        assert s.position == len(ids) - len(steps) + i
        recomputed = np.stack([w[:, s.position, : s.position + 1] for w in full["weights"]])
        assert np.abs(s.weights - recomputed).max() < 1e-5
        assert s.cache_bytes == generation.bytes_per_token() * (s.position + 1)
    assert generation.bytes_per_token() == 2 * 30 * 3 * 64 * 4  # 46,080 bytes a token


@pytest.mark.slow
def test_seeded_generation_repeats_and_bounds_are_named() -> None:
    from app.models import generation

    m = model()
    first = [s.token for s in generation.generate(m, "Once upon a time", 3, seed=7)]
    assert [s.token for s in generation.generate(m, "Once upon a time", 3, seed=7)] == first
    for steps, words in ((0, "1 to 32"), (33, "1 to 32")):
        with pytest.raises(ModelInputError, match=words) as info:
            generation.generate(m, "Hi", steps)
        assert info.value.field == "steps"
    with pytest.raises(ModelInputError, match="at most 3 more"):
        generation.check_steps(125, 4)
