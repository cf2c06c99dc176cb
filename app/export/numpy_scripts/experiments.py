"""Copy as NumPy: a standalone script (numpy and the standard library only) that
reproduces an experiment's numbers for the given parameters and prints them as the API's
JSON. The scripts spell out the procedure of ``app.labs.experiments`` for a reader; the
HTTP tests run them and compare their numbers with the API's.
"""

from __future__ import annotations

from app.labs.experiments import (
    CHUNK_PAIRS,
    CHUNK_SCORES,
    P_MAX_BINS,
    Params,
    SaturationParams,
    ScoreVarianceParams,
)

_HEAD = '''"""{title}

Reproduces POST /api/v1/experiments/{route} for
{body}
with numpy alone. Run: python this_file.py (prints the API's JSON).
"""

import json
import math

import numpy as np

rng = np.random.default_rng({seed})  # PCG64; the draws below come in this exact order


def draw_scores(d_k, m, n):
    """Scores of m random queries (width d_k), each against n random keys: (m, n).

    Given q, the dot products q.k_j with N(0, 1) keys are independent N(0, |q|^2), so
    s = |q| * z with |q|^2 ~ chi-square(d_k) and z ~ N(0, 1) has exactly their
    distribution. The literal version (same distribution, other numbers) would be:
        q = rng.standard_normal((m, d_k)); k = rng.standard_normal((m, n, d_k))
        s = np.einsum("md,mnd->mn", q, k)
    """
    norm2 = rng.chisquare(d_k, size=m)  # (m,)   |q|^2, drawn first
    z = rng.standard_normal((m, n))  # (m, n) then one z per key
    return np.sqrt(norm2)[:, None] * z


def blocks(total, size):
    """Draw in blocks of `size` (the last one shorter), as the server does."""
    return [min(size, total - start) for start in range(0, total, size)]


def softmax_stats(s):
    """Per row of (m, n) scores: the largest softmax weight and the entropy in bits."""
    shifted = s - s.max(axis=1, keepdims=True)
    total = np.exp(shifted).sum(axis=1)
    log_p = shifted - np.log(total)[:, None]
    entropy = -(np.exp(log_p) * log_p).sum(axis=1) / math.log(2.0)
    return 1.0 / total, np.maximum(entropy, 0.0)

'''

_SCORE_VARIANCE = """
d_ks = {d_ks}
draws = {draws}
bins = {bins}

widths = []
for d_k in d_ks:
    s = np.concatenate([draw_scores(d_k, m, 1)[:, 0] for m in blocks(draws, {chunk})])
    counts, edges = np.histogram(s, bins=bins)  # equal bins from min(s) to max(s)
    var = float(np.var(s))  # population variance (ddof 0)
    widths.append({{
        "d_k": d_k, "mean": float(np.mean(s)), "var": var, "var_over_d_k": var / d_k,
        "scaled_var": float(np.var(s / math.sqrt(d_k))),
        "histogram": {{"edges": edges.tolist(), "counts": counts.tolist()}},
    }})
    # Var(q.k) = d_k; the standard error of var/d_k over n draws is sqrt((2 + 6/d_k)/n)
print(json.dumps({{"seed": {seed}, "draws": draws, "widths": widths}}))
"""

_SATURATION = """
d_k, keys, trials, threshold = {d_k}, {keys}, {trials}, {threshold!r}

raw, scaled = [], []
for m in blocks(trials, max(1, {chunk} // keys)):
    s = draw_scores(d_k, m, keys)  # one query and `keys` keys per trial
    raw.append(softmax_stats(s)[0])  # p_max of softmax(s)
    scaled.append(softmax_stats(s / math.sqrt(d_k))[0])  # ... of softmax(s / sqrt(d_k))


def side(p_max):
    saturated = p_max > threshold  # strictly
    gradient = p_max * (1.0 - p_max)  # the softmax gradient factor p(1 - p)
    counts, edges = np.histogram(p_max, bins={bins}, range=(0.0, 1.0))
    return {{
        "saturated_fraction": float(np.mean(saturated)),
        "mean_p_max": float(np.mean(p_max)),
        "mean_saturated_p_one_minus_p": (
            float(np.mean(gradient[saturated])) if saturated.any() else None
        ),
        "p_max_histogram": {{"edges": edges.tolist(), "counts": counts.tolist()}},
    }}


result = {{"unscaled": side(np.concatenate(raw)), "scaled": side(np.concatenate(scaled))}}
print(json.dumps(result))
"""

_SCALING_TABLE = """
d_ks, keys, draws = {d_ks}, {keys}, {draws}

rows = []
for d_k in d_ks:
    cols = {{k: [] for k in ("mean", "var", "raw_max", "raw_h", "scaled_max", "scaled_h")}}
    for m in blocks(draws, max(1, {chunk} // keys)):
        s = draw_scores(d_k, m, keys)  # each draw: one query shared by `keys` keys
        cols["mean"].append(s.mean(axis=1))
        cols["var"].append(s.var(axis=1))  # population variance of the draw's scores
        for name, grid in (("raw", s), ("scaled", s / math.sqrt(d_k))):
            p_max, entropy = softmax_stats(grid)
            cols[name + "_max"].append(p_max)
            cols[name + "_h"].append(entropy)
    c = {{k: np.concatenate(v) for k, v in cols.items()}}
    # all raw scores pooled (equal groups): mean within-draw variance + variance of the means
    pooled_var = np.mean(c["var"]) + np.var(c["mean"])
    rows.append({{
        "d_k": d_k,
        "spread": float(np.mean(np.sqrt(c["var"]))),
        "pooled_spread": float(np.sqrt(pooled_var)),
        "raw_max_weight": float(np.mean(c["raw_max"])),
        "raw_entropy_bits": float(np.mean(c["raw_h"])),
        "scaled_max_weight": float(np.mean(c["scaled_max"])),
        "scaled_entropy_bits": float(np.mean(c["scaled_h"])),
    }})
print(json.dumps({{"max_entropy_bits": math.log2(keys), "rows": rows}}))
"""


def numpy_script(p: Params) -> str:
    """The standalone script for these parameters (every value is a validated number)."""
    if isinstance(p, ScoreVarianceParams):
        body = {"d_ks": list(p.d_ks), "draws": p.draws, "seed": p.seed, "bins": p.bins}
        head = _HEAD.format(title="Score variance: Var(q.k) grows like d_k (Attention Lab, C1).",
                            route="score-variance", body=body, seed=p.seed)  # fmt: skip
        return head + _SCORE_VARIANCE.format(d_ks=list(p.d_ks), draws=p.draws, bins=p.bins,
                                             chunk=CHUNK_PAIRS, seed=p.seed)  # fmt: skip
    if isinstance(p, SaturationParams):
        body = {"d_k": p.d_k, "keys": p.keys, "trials": p.trials, "threshold": p.threshold,
                "seed": p.seed}  # fmt: skip
        head = _HEAD.format(title="Saturation: how often softmax goes one-hot (Attention Lab, C2).",
                            route="saturation", body=body, seed=p.seed)  # fmt: skip
        return head + _SATURATION.format(d_k=p.d_k, keys=p.keys, trials=p.trials,
                                         threshold=p.threshold, chunk=CHUNK_SCORES,
                                         bins=P_MAX_BINS)  # fmt: skip
    body = {"d_ks": list(p.d_ks), "keys": p.keys, "draws": p.draws, "seed": p.seed}
    head = _HEAD.format(title="The scaling table over d_k (Attention Lab, C3).",
                        route="scaling-table", body=body, seed=p.seed)  # fmt: skip
    return head + _SCALING_TABLE.format(d_ks=list(p.d_ks), keys=p.keys, draws=p.draws,
                                        chunk=CHUNK_SCORES)  # fmt: skip
