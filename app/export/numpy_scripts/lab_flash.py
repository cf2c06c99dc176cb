"""Copy as NumPy for the flash lab (H1–H3): Algorithm 1's block sizes, the online softmax
tile by tile with its running max and sum, the one-shot softmax it equals, and Theorem 2's
two expressions, spelled out in numpy for the state the figure was copied in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.export.numpy_scripts.lab_common import literal, script

_TILED = '''
def blocks(n, d, m):
    """Algorithm 1, line 1: B_c = ceil(M / 4d) keys and B_r = min(B_c, d) queries per
    tile; T_r row tiles and T_c column tiles."""
    b_c = math.ceil(m / (4 * d))
    b_r = min(b_c, d)
    return {"block_cols": b_c, "block_rows": b_r, "row_tiles": math.ceil(n / b_r),
            "col_tiles": math.ceil(n / b_c)}


def exp_minus(a, b):
    """e^(a - b) with 0 where a = -inf (never -inf - (-inf) = NaN)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    gone, b_safe = np.isneginf(a), np.where(np.isneginf(b), 0.0, b)
    with np.errstate(over="ignore"):
        return np.where(gone, 0.0, np.exp(np.where(gone, 0.0, a) - b_safe))


def tiled(s, v, b_r, b_c):
    """softmax(s) v tile by tile: the outer loop over column tiles j, the inner over row
    tiles i; each row keeps its running max m, sum l and normalised output o. A larger
    score rescales the old l and o by e^(m_old - m_new)."""
    n, n_k = s.shape
    o, m, l = np.zeros((n, v.shape[1])), np.full(n, -np.inf), np.zeros(n)
    trace = []
    for j, c0 in enumerate(range(0, n_k, b_c)):
        c1 = min(c0 + b_c, n_k)
        for i, r0 in enumerate(range(0, n, b_r)):
            r = slice(r0, min(r0 + b_r, n))
            m_tile = s[r, c0:c1].max(axis=1)
            p = exp_minus(s[r, c0:c1], m_tile[:, None])
            m_new = np.maximum(m[r], m_tile)
            old, new = exp_minus(m[r], m_new), exp_minus(m_tile, m_new)
            l_new = old * l[r] + new * p.sum(axis=1)
            total = (l[r] * old)[:, None] * o[r] + new[:, None] * (p @ v[c0:c1])
            o[r] = total / np.where(l_new > 0, l_new, 1.0)[:, None]
            trace.append({"col_tile": j, "row_tile": i, "m": m_new.tolist(),
                          "l": l_new.tolist(), "rescale": old.tolist()})
            m[r], l[r] = m_new, l_new
    return o, trace


def one_shot(s, v):
    """softmax(s) v in one pass, the row maximum subtracted first; a blocked cell is 0."""
    top = s.max(axis=1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(top), top, 0.0))
    return e / e.sum(axis=1, keepdims=True) @ v

'''

_RUN = """
n, d = q.shape
m = max(m, 4 * d)  # one row each of Q, K, V and O must fit on chip
s = q @ k.T / math.sqrt(d)
if causal:
    s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
b = blocks(n, d, m)
out, trace = tiled(s, v, b["block_rows"], b["block_cols"])
ref = one_shot(s, v)
print(json.dumps({**b, "sram": m, "trace": trace, "output": out.tolist(),
                  "one_shot": ref.tolist(),
                  "max_abs_difference": float(np.abs(out - ref).max())}))
"""

_TRAFFIC = '''
def traffic(n, d, m):
    """Theorem 2: standard attention makes Theta(N d + N^2) accesses to high-bandwidth
    memory, FlashAttention Theta(N^2 d^2 / M). Orders of growth, constants left out:
    not counts."""
    return {"n": n, "standard": n * d + n * n, "tiled": n * n * d * d / m}

'''


def flash_state(entry: str, figure: str, tiles: Mapping[str, Any], q: Any, k: Any, v: Any) -> str:
    """H1 and H2: the state's Q, K and V, its tiles, the tiled run and the one-shot one."""
    title = {"H1": "Tiles", "H2": "Online softmax, step by step"}[entry]
    values = (
        f"q = np.array({literal(q)})\nk = np.array({literal(k)})\nv = np.array({literal(v)})\n"
        f"m = {int(tiles['sram'])}  # on-chip memory, in numbers\n"
        f"causal = {bool(tiles['causal'])}\n"
    )
    return script(title, entry, "flash", figure, _TILED, values, _RUN)


def flash_traffic(d: int, sram: int, ns: list[int]) -> str:
    """H3: Theorem 2's expressions over the chart's N."""
    values = f"d, m = {d}, {sram}\nns = {literal(ns)}\n"
    run = "print(json.dumps([traffic(n, d, m) for n in ns]))\n"
    return script("Memory traffic", "H3", "flash", "traffic", _TRAFFIC, values, run)
