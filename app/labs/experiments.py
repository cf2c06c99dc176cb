"""The seeded experiments of the why-scale lab (LABS.md C1–C3), pure numpy.

Every experiment draws from ``numpy.random.default_rng(seed)`` (PCG64) in the order
written below, so the same parameters give the same numbers, bit for bit, on the same
numpy; ``app.export.numpy_scripts.experiments`` writes the same procedure as a standalone script.

**One draw rule.** A query q with d_k i.i.d. N(0, 1) entries against n keys k_j with
i.i.d. N(0, 1) entries gives scores s_j = q·k_j. Given q, the s_j are independent
N(0, ‖q‖²), so s = ‖q‖·z with ‖q‖² ~ χ²(d_k) and z ~ N(0, 1)^n has exactly the same
joint distribution (LABS.md §2 allows this shortcut). It draws n + 1 numbers instead of
(n + 1)·d_k, which is what makes 200,000 draws at four widths take milliseconds. For a
block of m queries (``_draw_scores``), in this order:

1. ``norm2 = rng.chisquare(d_k, size=m)``  (m,)   ‖q‖² of each query
2. ``z = rng.standard_normal((m, n))``     (m, n) one z per key
3. ``s = np.sqrt(norm2)[:, None] * z``      (m, n) raw scores q·k_j

**Chunks.** Work is drawn in blocks so memory stays small and progress can be reported
between blocks: score-variance takes ``CHUNK_PAIRS`` pairs per block; saturation and
scaling-table take ``max(1, CHUNK_SCORES // keys)`` queries per block. Widths run in the
order given, each to the end before the next; the last block of a width may be shorter.
Block sizes depend on the parameters only, never on the machine.

Every ``*_steps`` function is a generator: it yields ``(done, total)`` blocks after each
block and returns the result dict, so a caller can report progress or stop early.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

Vector = NDArray[np.float64]
Matrix = NDArray[np.float64]
Progress = tuple[int, int]  # (blocks done, blocks in total)
Steps = Generator[Progress, None, dict[str, Any]]
T = TypeVar("T")

CHUNK_PAIRS = 20_000  # score-variance: q, k pairs per block
CHUNK_SCORES = 200_000  # saturation, scaling-table: about this many scores per block
P_MAX_BINS = 50  # saturation: equal bins of width 0.02 on [0, 1]
LN2 = math.log(2.0)


@dataclass(frozen=True)
class ScoreVarianceParams:
    d_ks: tuple[int, ...] = (32, 64, 128, 256)
    draws: int = 20_000
    seed: int = 0
    bins: int = 60


@dataclass(frozen=True)
class SaturationParams:
    d_k: int = 128
    keys: int = 64
    trials: int = 500
    threshold: float = 0.99
    seed: int = 0


@dataclass(frozen=True)
class ScalingTableParams:
    d_ks: tuple[int, ...] = (4, 16, 64, 256, 1024)
    keys: int = 8
    draws: int = 200
    seed: int = 0


Params = ScoreVarianceParams | SaturationParams | ScalingTableParams


def _draw_scores(rng: np.random.Generator, d_k: int, m: int, n: int) -> Matrix:
    """(m, n): m independent queries of width d_k, each against n fresh keys (the draw rule)."""
    norm2 = rng.chisquare(d_k, size=m)  # (m,) ‖q‖²
    z = rng.standard_normal((m, n))  # (m, n)
    scores: Matrix = np.sqrt(norm2)[:, None] * z  # (m, n) q·k_j
    return scores


def _blocks(total: int, size: int) -> list[int]:
    """Block sizes: ``size`` each, the last one shorter. (7, 3) -> [3, 3, 1]."""
    return [min(size, total - start) for start in range(0, total, size)]


def _queries_per_block(keys: int) -> int:
    return max(1, CHUNK_SCORES // keys)


def softmax_stats(scores: Matrix) -> tuple[Vector, Vector]:
    """(m, n) scores -> per row the largest softmax weight p_max (m,) and the entropy in
    bits (m,), from the log-softmax so no weight underflows into log(0)."""
    shifted = scores - scores.max(axis=1, keepdims=True)  # (m, n), max 0
    total = np.exp(shifted).sum(axis=1)  # (m,) ≥ 1
    log_p = shifted - np.log(total)[:, None]  # (m, n)
    entropy = -(np.exp(log_p) * log_p).sum(axis=1) / LN2  # (m,)
    p_max: Vector = 1.0 / total  # the largest weight is e^0 / total
    return p_max, np.maximum(entropy, 0.0)


# --- C1: score variance ------------------------------------------------------------------


def score_variance_steps(p: ScoreVarianceParams) -> Steps:
    """Per width in ``d_ks``: ``draws`` raw scores s = q·k in blocks of ``CHUNK_PAIRS``
    (the draw rule with n = 1); then their mean, population variance, var/d_k, the
    variance of s/√d_k and a histogram of s in ``bins`` equal bins from min to max."""
    rng = np.random.default_rng(p.seed)
    sizes = _blocks(p.draws, CHUNK_PAIRS)
    total, done = len(sizes) * len(p.d_ks), 0
    widths = []
    for d_k in p.d_ks:
        parts = []
        for m in sizes:
            parts.append(_draw_scores(rng, d_k, m, 1)[:, 0])  # (m,)
            done += 1
            yield done, total
        s = np.concatenate(parts)  # (draws,)
        counts, edges = np.histogram(s, bins=p.bins)
        var = float(np.var(s))
        widths.append({
            "d_k": d_k, "mean": float(np.mean(s)), "var": var, "var_over_d_k": var / d_k,
            "scaled_var": float(np.var(s / math.sqrt(d_k))),
            "histogram": {"edges": edges, "counts": counts},
        })  # fmt: skip
    return {"seed": p.seed, "draws": p.draws, "widths": widths}


# --- C2: saturation ----------------------------------------------------------------------


def _saturation_side(p_max: Vector, threshold: float) -> dict[str, Any]:
    saturated = p_max > threshold  # strictly
    gradient = p_max * (1.0 - p_max)
    counts, edges = np.histogram(p_max, bins=P_MAX_BINS, range=(0.0, 1.0))
    return {
        "saturated_fraction": float(np.mean(saturated)),
        "mean_p_max": float(np.mean(p_max)),
        "mean_saturated_p_one_minus_p": (
            float(np.mean(gradient[saturated])) if saturated.any() else None
        ),
        "p_max_histogram": {"edges": edges, "counts": counts},
    }


def saturation_steps(p: SaturationParams) -> Steps:
    """``trials`` trials, each one query and ``keys`` keys of width d_k (the draw rule, in
    blocks of ``max(1, CHUNK_SCORES // keys)`` trials). The same scores give p = softmax(s)
    and p′ = softmax(s/√d_k); each side reports the share of trials with p_max > threshold,
    the mean p_max, the mean of p_max(1 − p_max) over saturated trials (None if none) and a
    histogram of p_max in ``P_MAX_BINS`` equal bins on [0, 1]."""
    rng = np.random.default_rng(p.seed)
    sizes = _blocks(p.trials, _queries_per_block(p.keys))
    raw, scaled = [], []
    for i, m in enumerate(sizes):
        s = _draw_scores(rng, p.d_k, m, p.keys)  # (m, keys)
        raw.append(softmax_stats(s)[0])
        scaled.append(softmax_stats(s / math.sqrt(p.d_k))[0])
        yield i + 1, len(sizes)
    return {
        "unscaled": _saturation_side(np.concatenate(raw), p.threshold),
        "scaled": _saturation_side(np.concatenate(scaled), p.threshold),
    }


# --- C3: the scaling table ---------------------------------------------------------------


def _table_row(d_k: int, per_draw: dict[str, Vector]) -> dict[str, Any]:
    """Averages over the draws. The pooled variance of all raw scores (equal groups) is the
    mean of the per-draw variances plus the variance of the per-draw means."""
    pooled_var = np.mean(per_draw["var"]) + np.var(per_draw["mean"])
    return {
        "d_k": d_k,
        "spread": float(np.mean(np.sqrt(per_draw["var"]))),
        "pooled_spread": float(np.sqrt(pooled_var)),
        "raw_max_weight": float(np.mean(per_draw["raw_max"])),
        "raw_entropy_bits": float(np.mean(per_draw["raw_h"])),
        "scaled_max_weight": float(np.mean(per_draw["scaled_max"])),
        "scaled_entropy_bits": float(np.mean(per_draw["scaled_h"])),
    }


def scaling_table_steps(p: ScalingTableParams) -> Steps:
    """Per width in ``d_ks``: ``draws`` draws, each one query shared by ``keys`` keys (the
    draw rule, in blocks of ``max(1, CHUNK_SCORES // keys)`` draws). Per draw: the
    population std of the raw scores (the spread), and the max weight and entropy (bits)
    of softmax(s) and softmax(s/√d_k); each averaged over the draws. ``pooled_spread`` is
    the population std of all raw scores of the width together."""
    rng = np.random.default_rng(p.seed)
    sizes = _blocks(p.draws, _queries_per_block(p.keys))
    total, done = len(sizes) * len(p.d_ks), 0
    rows = []
    for d_k in p.d_ks:
        parts: dict[str, list[Vector]] = {k: [] for k in ("mean", "var", "raw_max", "raw_h",
                                                          "scaled_max", "scaled_h")}  # fmt: skip
        for m in sizes:
            s = _draw_scores(rng, d_k, m, p.keys)  # (m, keys)
            parts["mean"].append(s.mean(axis=1))
            parts["var"].append(s.var(axis=1))
            for side, grid in (("raw", s), ("scaled", s / math.sqrt(d_k))):
                p_max, entropy = softmax_stats(grid)
                parts[f"{side}_max"].append(p_max)
                parts[f"{side}_h"].append(entropy)
            done += 1
            yield done, total
        rows.append(_table_row(d_k, {k: np.concatenate(v) for k, v in parts.items()}))
    return {"max_entropy_bits": math.log2(p.keys), "rows": rows}


# --- running, and what a run costs -------------------------------------------------------


def steps(p: Params) -> Steps:
    """The generator for any experiment's parameters."""
    if isinstance(p, ScoreVarianceParams):
        return score_variance_steps(p)
    if isinstance(p, SaturationParams):
        return saturation_steps(p)
    return scaling_table_steps(p)


def run_to_end(gen: Generator[Any, None, T]) -> T:
    """Exhaust a ``*_steps`` generator and return its result."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            result: T = stop.value
            return result


def run_experiment(p: Params) -> dict[str, Any]:
    """The experiment's result, start to end."""
    return run_to_end(steps(p))


def experiment_cells(p: Params) -> int:
    """Numbers the run draws and pushes through softmax (its time): per query 1 + n
    drawn, and 2·n softmax cells when there are keys."""
    if isinstance(p, ScoreVarianceParams):
        return len(p.d_ks) * p.draws * 2
    if isinstance(p, SaturationParams):
        return p.trials * (1 + 3 * p.keys)
    return len(p.d_ks) * p.draws * (1 + 3 * p.keys)


def held_cells(p: Params) -> int:
    """Float64 numbers held at once (its memory): one block's arrays (~5 per score) plus
    what is kept per draw until the end."""
    if isinstance(p, ScoreVarianceParams):
        return 2 * p.draws + 3 * min(p.draws, CHUNK_PAIRS) + 2 * p.bins
    queries = p.trials if isinstance(p, SaturationParams) else p.draws
    block = min(queries, _queries_per_block(p.keys)) * p.keys
    return 5 * block + 12 * queries + 2 * P_MAX_BINS


def response_bytes(p: Params) -> int:
    """An upper estimate of the JSON size: ~25 bytes a number."""
    if isinstance(p, ScoreVarianceParams):
        return 200 + len(p.d_ks) * (200 + 50 * p.bins)
    if isinstance(p, SaturationParams):
        return 400 + 2 * 50 * P_MAX_BINS
    return 100 + 250 * len(p.d_ks)


def blocks_total(p: Params) -> int:
    """How many ``(done, total)`` steps the run yields: the progress bar's length."""
    if isinstance(p, ScoreVarianceParams):
        return len(p.d_ks) * len(_blocks(p.draws, CHUNK_PAIRS))
    if isinstance(p, SaturationParams):
        return len(_blocks(p.trials, _queries_per_block(p.keys)))
    return len(p.d_ks) * len(_blocks(p.draws, _queries_per_block(p.keys)))


def iterate(gen: Steps) -> Iterator[Progress | dict[str, Any]]:
    """Every ``(done, total)`` of a run, then its result dict as the last item."""
    while True:
        try:
            yield next(gen)
        except StopIteration as stop:
            yield stop.value
            return
