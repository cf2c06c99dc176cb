"""The key/value cache of autoregressive decoding: its bytes per token and per request.

Source: Kwon et al., "Efficient Memory Management for Large Language Model Serving with
PagedAttention" (SOSP 2023), §3: each generated token keeps one key and one value vector
per layer, so a token costs

    bytes_per_token = 2 × layers × kv_heads × d_head × bytes_per_value

(the paper's OPT-13B example: 2 × 5120 × 40 × 2 bytes = 800 KB, with 5120 = 40 heads ×
128). Shazeer's "Fast Transformer Decoding: One Write-Head is All You Need" (2019) and
Ainslie et al.'s "GQA" (EMNLP 2023) shrink it by sharing K and V between query heads:
kv_heads < heads divides the cache by ``heads / kv_heads``. Jiang et al.'s "Mistral 7B"
(2023) caps it with a rolling buffer of W positions. Pure Python integers: exact at any size.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.labs.windows import span

KIB = 1024


@dataclass(frozen=True)
class KVConfig:
    """One model's cache-relevant sizes and where each number comes from."""

    name: str
    layers: int
    heads: int  # query heads h
    kv_heads: int  # key/value heads g: h (multi-head), 1 (multi-query), between (grouped)
    d_head: int  # d_k = d_v of one head
    bytes_per_value: int  # 2 for fp16/bf16, 4 for fp32
    context: int  # the longest request the model was trained for, in tokens
    source: str  # the paper or model card these numbers are printed in, by title
    window: int | None = None  # sliding window W (Mistral 7B), None for full attention


@dataclass(frozen=True)
class KVCache:
    """What a cache of ``tokens`` tokens costs for one configuration."""

    bytes_per_token: int  # 2·layers·kv_heads·d_head·bytes_per_value
    bytes: int  # bytes_per_token · tokens (one request, one sequence)
    full_heads_bytes_per_token: int  # the same model with kv_heads = heads
    ratio_to_full_heads: float  # heads / kv_heads: how many times smaller the cache is
    span: int | None  # window · layers: the tokens a position can reach, or None
    buffer_bytes: int | None  # bytes_per_token · min(tokens, window): the rolling buffer


PRESETS: tuple[KVConfig, ...] = (
    KVConfig("OPT-13B", 40, 40, 40, 128, 2, 2048,
             "Kwon et al., \"Efficient Memory Management for Large Language Model Serving "
             "with PagedAttention\" (SOSP 2023), §3; Zhang et al., \"OPT: Open Pre-trained "
             "Transformer Language Models\" (2022), Table 1"),
    KVConfig("Llama-2-7B", 32, 32, 32, 128, 2, 4096,
             "Touvron et al., \"Llama 2: Open Foundation and Fine-Tuned Chat Models\" (2023), "
             "Table 1, and the model card's config.json (meta-llama/Llama-2-7b-hf)"),
    KVConfig("Llama-2-70B", 80, 64, 8, 128, 2, 4096,
             "Touvron et al., \"Llama 2: Open Foundation and Fine-Tuned Chat Models\" (2023), "
             "Table 1 (GQA), and the model card's config.json (meta-llama/Llama-2-70b-hf)"),
    KVConfig("Mistral-7B", 32, 32, 8, 128, 2, 8192,
             "Jiang et al., \"Mistral 7B\" (2023), Table 1", window=4096),
    KVConfig("SmolLM2-135M", 30, 9, 3, 64, 2, 8192,
             "Allal et al., \"SmolLM2: When Smol Goes Big\" (2025), and the model card's "
             "config.json (HuggingFaceTB/SmolLM2-135M, bfloat16)"),
    KVConfig("GPT-2 small", 12, 12, 12, 64, 4, 1024,
             "Radford et al., \"Language Models are Unsupervised Multitask Learners\" (2019), "
             "Table 2 (117M), and the model card's config.json (openai-community/gpt2, float32)"),
)  # fmt: skip


def preset(name: str) -> KVConfig:
    """The named configuration; KeyError naming the known ones otherwise."""
    for c in PRESETS:
        if c.name == name:
            return c
    raise KeyError(f"{name!r} is not one of {', '.join(c.name for c in PRESETS)}")


def check(layers: int, heads: int, kv_heads: int, d_head: int, bytes_per_value: int) -> None:
    """Raise ValueError naming the field for a size below 1 or kv_heads not dividing heads."""
    sizes = {"layers": layers, "heads": heads, "kv_heads": kv_heads, "d_head": d_head,
             "bytes_per_value": bytes_per_value}  # fmt: skip
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}: must be a positive integer, got {value!r}")
    if heads % kv_heads:
        raise ValueError(
            f"kv_heads: {kv_heads} key/value heads must divide heads = {heads} "
            "(each group of heads / kv_heads query heads shares one)"
        )


def bytes_per_token(layers: int, kv_heads: int, d_head: int, bytes_per_value: int) -> int:
    """2 × layers × kv_heads × d_head × bytes_per_value: one K and one V row per layer."""
    return 2 * layers * kv_heads * d_head * bytes_per_value


def ratio_to_full_heads(heads: int, kv_heads: int) -> float:
    """heads / kv_heads: 1 for multi-head, heads for multi-query (one shared K/V head)."""
    return heads / kv_heads


def cache(
    layers: int,
    heads: int,
    kv_heads: int,
    d_head: int,
    bytes_per_value: int,
    tokens: int,
    window: int | None = None,
) -> KVCache:
    """One request of ``tokens`` tokens, checked first (ValueError naming the field)."""
    check(layers, heads, kv_heads, d_head, bytes_per_value)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ValueError(f"tokens: must be a whole number ≥ 0, got {tokens!r}")
    per_token = bytes_per_token(layers, kv_heads, d_head, bytes_per_value)
    return KVCache(
        bytes_per_token=per_token,
        bytes=per_token * tokens,
        full_heads_bytes_per_token=bytes_per_token(layers, heads, d_head, bytes_per_value),
        ratio_to_full_heads=ratio_to_full_heads(heads, kv_heads),
        span=None if window is None else span(window, layers),  # checks window
        buffer_bytes=None if window is None else per_token * min(tokens, window),
    )


def preset_cache(c: KVConfig, tokens: int | None = None) -> KVCache:
    """The cache of ``c`` at ``tokens`` tokens (default: its full context)."""
    n = c.context if tokens is None else tokens
    return cache(c.layers, c.heads, c.kv_heads, c.d_head, c.bytes_per_value, n, c.window)
