"""Copy as NumPy for the rotary lab (J1–J3): RoPE's rotation and the scores at two
placements, each pair's wavelength, and ALiBi's slopes, bias and the weights the bias
alone makes, spelled out in numpy for the state the figure was copied in.
"""

from __future__ import annotations

from typing import Any

from app.export.numpy_scripts.lab_common import literal, script

_ROPE = '''
def thetas(d, base):
    """theta_i = base^(-2i/d), the angle pair i turns per position (RoFormer, Eq. 15)."""
    return np.float64(base) ** (-2.0 * np.arange(d // 2) / d)


def rotate(x, positions, base):
    """Pair (x_2i, x_2i+1) of the row at position m turned by m * theta_i."""
    a = np.asarray(positions, dtype=np.float64)[:, None] * thetas(x.shape[1], base)[None, :]
    cos, sin = np.cos(a), np.sin(a)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out

'''

_ROTATION = """
pos = np.arange(q.shape[0], dtype=np.float64)
here = rotate(q, pos, base) @ rotate(k, pos, base).T
moved = rotate(q, pos + shift, base) @ rotate(k, pos + shift, base).T
print(json.dumps({"scores": here.tolist(), "scores_moved": moved.tolist(),
                  "max_abs_difference": float(np.abs(moved - here).max()),
                  "thetas": thetas(q.shape[1], base).tolist()}))
"""

_ALIBI = '''
def slopes(heads):
    """The ALiBi paper's slopes: 2^(-8h/n) for n a power of two; otherwise the n0 slopes
    of the power of two below, then the first heads - n0 of every other slope of 2 n0."""
    def powers(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
    n0 = 1 << (heads.bit_length() - 1)
    out = powers(n0)
    if n0 < heads:
        out += powers(2 * n0)[0::2][: heads - n0]
    return np.array(out)


def flat_weights(m, n):
    """softmax over keys j <= i of -m (i - j): the weights when every content score is equal."""
    gap = np.arange(n)[:, None] - np.arange(n)[None, :]
    s = np.where(gap >= 0, -m * gap, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

'''

_ALIBI_RUN = """
ms = slopes(heads)
last = [flat_weights(m, n)[-1] for m in ms]
reach = [float((w * np.arange(n - 1, -1, -1)).sum()) for w in last]
print(json.dumps({"slopes": ms.tolist(),
                  "bias": (-ms[head] * (np.arange(n)[:, None] - np.arange(n)[None, :])).tolist(),
                  "weights": flat_weights(ms[head], n).tolist(),
                  "own_weight": [float(w[-1]) for w in last], "mean_distance": reach}))
"""


def rotation(q: Any, k: Any, shift: int, base: float) -> str:
    """J1: q and k, rotated at positions 0 … N − 1 and again after the shift."""
    values = (
        f"q = np.array({literal(q)})\nk = np.array({literal(k)})\n"
        f"shift = {int(shift)}\nbase = {float(base)!r}\n"
    )
    return script("Rotation", "J1", "rotary", "rotation", _ROPE, values, _ROTATION)


def wavelengths(d: int, bases: list[float]) -> str:
    """J2: 2π / θ_i for each pair and each base."""
    values = f"d = {int(d)}\nbases = {literal(bases)}\n"
    run = "print(json.dumps({str(b): (2 * math.pi / thetas(d, b)).tolist() for b in bases}))\n"
    return script("Wavelengths", "J2", "rotary", "wavelengths", _ROPE, values, run)


def alibi(heads: int, head: int, n: int) -> str:
    """J3: the slopes, head ``head``'s bias and weights, each head's locality."""
    values = f"heads, head, n = {int(heads)}, {int(head)}, {int(n)}\n"
    return script("ALiBi", "J3", "rotary", "alibi", _ALIBI, values, _ALIBI_RUN)
