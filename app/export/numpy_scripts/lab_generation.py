"""Copy as NumPy for the generation lab (I1–I4): decoding against a cache and the one-pass
causal attention it equals, the cache's bytes per token and per request, grouped heads made
by mean-pooling, and windows with sinks, spelled out in numpy for the state copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.export.numpy_scripts.lab_common import literal, script

_SOFTMAX = '''
def attend(q, k, v, allowed=None, bias=None):
    """softmax(Q K^T / sqrt(d) + bias) V, the row maximum subtracted first; a blocked key
    gets weight exactly 0 (e^-inf)."""
    s = q @ k.T / math.sqrt(q.shape[-1])
    if bias is not None:
        s = s + bias
    if allowed is not None:
        s = np.where(allowed, s, -np.inf)
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    w = e / np.where(total > 0, total, 1.0)  # a row with no key left: all zeros, not NaN
    return w, w @ v

'''

_DECODE = """
n = q.shape[0]
steps = []
for t in range(n):  # the cache after appending token t: rows 0 .. t of K and V
    w, z = attend(q[t:t + 1], k[:t + 1], v[:t + 1])
    steps.append({"cached_rows": t + 1, "weights": w[0].tolist(), "output": z[0].tolist()})
full_w, full_z = attend(q, k, v, allowed=np.tril(np.ones((n, n), dtype=bool)))
incremental = np.array([s["output"] for s in steps])
print(json.dumps({"steps": steps, "full_weights": full_w.tolist(), "full_output": full_z.tolist(),
                  "max_abs_difference": float(np.abs(incremental - full_z).max())}))
"""

_CACHE = '''
def bytes_per_token(layers, kv_heads, d_head, bytes_per_value):
    """One key and one value row per layer and key/value head (Kwon et al., PagedAttention)."""
    return 2 * layers * kv_heads * d_head * bytes_per_value

'''

_CACHE_RUN = """
out = {}
for name, c in models.items():
    per = bytes_per_token(c["layers"], c["kv_heads"], c["d_head"], c["bytes_per_value"])
    out[name] = {"bytes_per_token": per, "bytes": per * c["tokens"],
                 "ratio_to_full_heads": c["heads"] / c["kv_heads"]}
print(json.dumps(out))
"""

_SHARED = """
h, n, _ = q.shape
allowed = np.tril(np.ones((n, n), dtype=bool))


def grouped(kv_heads):
    # GQA: each group of h / g consecutive K and V heads replaced by their mean
    size = h // kv_heads
    k_g = k.reshape(kv_heads, size, *k.shape[1:]).mean(axis=1)
    v_g = v.reshape(kv_heads, size, *v.shape[1:]).mean(axis=1)
    return np.stack([attend(q[j], k_g[j // size], v_g[j // size], allowed)[0] for j in range(h)])


multi = grouped(h)  # every head its own K and V
options = [g for g in range(h, 0, -1) if h % g == 0]
print(json.dumps({"kv_heads": kv_heads, "weights": grouped(kv_heads).tolist(),
                  "multi_head_weights": multi.tolist(),
                  "options": [{"kv_heads": g, "times_smaller": h / g,
                               "max_weight_change": float(np.abs(grouped(g) - multi).max())}
                              for g in options]}))
"""

_WINDOWS = """
n = q.shape[0]
i, j = np.arange(n)[:, None], np.arange(n)[None, :]
causal = j <= i
s = q @ k.T / math.sqrt(q.shape[1])
# our example's sink: token 1 scores b above each query's best other key
others = np.where(causal[:, 1:], s[:, 1:], -np.inf).max(axis=1, initial=-np.inf)
bias = np.zeros((n, n))
bias[:, 0] = np.where(np.isfinite(others), others, 0.0) + b - s[:, 0]
rules = {"all": causal, "no token 1": causal & (j >= 1), "window": (i - j >= 0) & (i - j < w),
         "sinks + window": causal & ((j < sinks) | (i - j < w))}
last = {name: attend(q, k, v, allowed, bias)[0][-1].tolist() for name, allowed in rules.items()}
band = ((i - j >= 0) & (i - j < w)).astype(int)
reach, power = band.copy(), band.copy()
for _ in range(layers - 1):
    power = np.minimum(power @ band, 1)
reach = power.astype(bool)
slots = [-1] * w
for p in range(max(0, n - w), n):
    slots[p % w] = p  # token p goes to slot p mod W
print(json.dumps({"last_query_weights": last, "reach": reach.tolist(),
                  "reach_back": layers * (w - 1), "span": w * layers, "buffer": slots}))
"""


def _qkv(q: Any, k: Any, v: Any) -> str:
    return f"q = np.array({literal(q)})\nk = np.array({literal(k)})\nv = np.array({literal(v)})\n"


def decode(q: Any, k: Any, v: Any) -> str:
    """I1: every decoding step against the cache, and the one-pass causal attention."""
    return script("Decoding with a KV cache, step by step", "I1", "generation", "decode",
                  _SOFTMAX, _qkv(q, k, v), _DECODE)  # fmt: skip


def cache(models: Mapping[str, Mapping[str, int]]) -> str:
    """I2: bytes per token and per request of each named model and the learner's."""
    values = f"models = {literal(models)}\n"
    return script("The cache's bytes", "I2", "generation", "cache", _CACHE, values, _CACHE_RUN)


def shared(q: Any, k: Any, v: Any, kv_heads: int) -> str:
    """I3: the multi-head weights and the grouped ones after mean-pooling, every kv_heads."""
    values = _qkv(q, k, v) + f"kv_heads = {int(kv_heads)}\n"
    return script("Shared key/value heads", "I3", "generation", "shared", _SOFTMAX, values,
                  _SHARED)  # fmt: skip


def windows(q: Any, k: Any, v: Any, w: int, layers: int, sinks: int, boost: float) -> str:
    """I4: the last query's weights under four caches, the band's reach, the buffer."""
    values = _qkv(q, k, v) + (
        f"w, layers, sinks = {int(w)}, {int(layers)}, {int(sinks)}\nb = {float(boost)!r}\n"
    )
    return script("Sliding windows and attention sinks", "I4", "generation", "windows",
                  _SOFTMAX, values, _WINDOWS)  # fmt: skip
