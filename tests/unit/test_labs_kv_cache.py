"""The KV cache's bytes (app.labs.kv_cache) against the numbers the sources print."""

from __future__ import annotations

import pytest

from app.labs import kv_cache
from app.labs.kv_cache import KIB, PRESETS, cache, preset, preset_cache


def test_opt_13b_is_the_pagedattention_papers_800_kb_per_token() -> None:
    # PagedAttention §3: "2 (key and value vectors) × 5120 (hidden state size) × 40
    # (number of layers) × 2 (bytes per FP16)" = 800 KB per token
    c = preset_cache(preset("OPT-13B"))
    assert c.bytes_per_token == 2 * 5120 * 40 * 2 == 800 * KIB
    # "up to 2048 tokens … can be as much as 1.6 GB" (binary gigabytes: 1.5625 GiB)
    assert c.bytes == 800 * KIB * 2048
    assert round(c.bytes / 2**30, 1) == 1.6


def test_llama_2_models_per_token() -> None:
    seven, seventy = preset_cache(preset("Llama-2-7B")), preset_cache(preset("Llama-2-70B"))
    assert seven.bytes_per_token == 512 * KIB  # 2·32·32·128·2
    assert seven.ratio_to_full_heads == 1
    # 70B uses GQA with 8 key/value heads for 64 query heads (Llama 2, Table 1)
    assert seventy.bytes_per_token == 2 * 80 * 8 * 128 * 2 == 320 * KIB
    assert seventy.ratio_to_full_heads == 8
    assert seventy.full_heads_bytes_per_token == 8 * seventy.bytes_per_token


def test_mistral_window_span_and_rolling_buffer() -> None:
    m = preset("Mistral-7B")
    assert (m.layers, m.heads, m.kv_heads, m.d_head, m.window, m.context) == (
        32, 32, 8, 128, 4096, 8192)  # fmt: skip
    c = preset_cache(m, tokens=32_768)
    # "a theoretical attention span of approximately 131K tokens"
    assert c.span == 131_072
    # "On a sequence length of 32k tokens, this reduces the cache memory usage by 8x"
    assert c.bytes == 8 * c.buffer_bytes
    assert c.bytes_per_token == 128 * KIB
    assert c.ratio_to_full_heads == 4


def test_smollm2_and_gpt2() -> None:
    smol = preset_cache(preset("SmolLM2-135M"))
    assert smol.bytes_per_token == 2 * 30 * 3 * 64 * 2 == 23_040
    assert smol.ratio_to_full_heads == 3
    gpt2 = preset_cache(preset("GPT-2 small"))
    assert gpt2.bytes_per_token == 2 * 12 * 12 * 64 * 4 == 72 * KIB  # float32 checkpoint
    assert gpt2.bytes == 72 * KIB * 1024


def test_every_preset_names_its_source_and_is_consistent() -> None:
    assert [c.name for c in PRESETS] == [
        "OPT-13B", "Llama-2-7B", "Llama-2-70B", "Mistral-7B", "SmolLM2-135M", "GPT-2 small"
    ]  # fmt: skip
    for c in PRESETS:
        assert '"' in c.source  # a title, quoted
        kv_cache.check(c.layers, c.heads, c.kv_heads, c.d_head, c.bytes_per_value)


def test_multi_query_divides_by_heads() -> None:
    full = cache(4, 8, 8, 16, 2, tokens=10)
    mqa = cache(4, 8, 1, 16, 2, tokens=10)
    assert full.bytes == 8 * mqa.bytes
    assert mqa.ratio_to_full_heads == 8
    assert cache(4, 8, 8, 16, 2, tokens=0).bytes == 0


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((4, 8, 3, 16, 2, 1), "kv_heads"),
        ((0, 8, 8, 16, 2, 1), "layers"),
        ((4, 8, 8, 16, True, 1), "bytes_per_value"),
        ((4, 8, 8, 16, 2, -1), "tokens"),
    ],
)
def test_bad_sizes_name_the_field(args: tuple[int, ...], field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        cache(*args)


def test_bad_window_and_unknown_preset() -> None:
    with pytest.raises(ValueError, match=r"^window:"):
        cache(4, 8, 8, 16, 2, 5, window=0)
    with pytest.raises(KeyError, match="OPT-13B"):
        preset("GPT-5")


def test_huge_sizes_stay_exact_integers() -> None:
    c = cache(10**6, 10**3, 10**3, 10**4, 8, tokens=10**9)
    assert c.bytes == 2 * 10**6 * 10**3 * 10**4 * 8 * 10**9
