"""One head of scaled dot-product attention and every stage of it (``HeadStages``).

``one_head`` is softmax(Q Kᵀ / √d_k + bias) V for one head's q (L_Q, d_k), k (L_K, d_k) and
v (L_K, d_v), keeping each intermediate grid; ``option_heads`` runs it under the additive
options (``app.attention.options``): shared K/V, rotated q and k, ALiBi's bias, tiling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.attention import ops, options
from app.attention.ops import BoolMatrix, Matrix
from app.attention.tiled import TileTrace, tiled_output


@dataclass(frozen=True)
class HeadStages:
    """One head's stages. Shapes: q (L_Q, d_k), k (L_K, d_k), v (L_K, d_v), grids (L_Q, L_K).

    q, k and v are what the scores and the weighted sum use: rotated under ``rope``, the
    group's mean under ``kv_heads`` (``Stages.q``, ``k``, ``v`` stay as projected)."""

    q: Matrix
    k: Matrix
    v: Matrix
    scores: Matrix  # Q Kᵀ, never masked
    scaled: Matrix  # scores / divisor
    masked: Matrix  # scaled with −inf in blocked cells
    weights: Matrix  # row softmax of masked
    output: Matrix  # weights V, (L_Q, d_v)
    d_k: int
    divisor: float
    exps: Matrix  # e^(masked − exp_shift) per row: the numerators of the softmax
    exp_shift: Matrix  # (L_Q,) what was subtracted before exponentiating (0 unless huge)
    row_sum: Matrix  # (L_Q,) 1, or 0 for a row with no allowed key
    row_entropy: Matrix  # (L_Q,) bits
    row_argmax: tuple[int, ...]  # index of the largest weight per row
    row_max: Matrix  # (L_Q,) the largest weight per row
    bias: Matrix | None = None  # (L_Q, L_K) ALiBi's −m·(i − j), added to scaled before masking
    tiles: tuple[TileTrace, ...] | None = None  # the online softmax's trace, with tiling


def option_heads(
    opts: options.Options,
    qs: list[Matrix],
    ks: list[Matrix],
    vs: list[Matrix],
    mask: BoolMatrix | None,
    scale: bool,
) -> tuple[HeadStages, ...]:
    """Every head under the options: shared K/V, rotated q and k, a bias, tiling."""
    if opts.kv_heads is not None:
        ks, vs = options.shared_kv(ks, opts.kv_heads), options.shared_kv(vs, opts.kv_heads)
    if opts.rope_base is not None:
        qs = [options.rope_rotate(q_h, opts.positions, opts.rope_base) for q_h in qs]
        ks = [options.rope_rotate(k_h, opts.key_positions, opts.rope_base) for k_h in ks]
    l_q, l_k = qs[0].shape[0], ks[0].shape[0]
    slopes = opts.alibi_slopes or (None,) * len(qs)
    return tuple(
        one_head(q_h, k_h, v_h, mask, scale,
                  None if m is None else options.alibi_bias(m, l_q, l_k), opts.tiling)
        for q_h, k_h, v_h, m in zip(qs, ks, vs, slopes, strict=True)
    )  # fmt: skip


def one_head(
    q: Matrix,
    k: Matrix,
    v: Matrix,
    allowed: BoolMatrix | None,
    scale: bool,
    bias: Matrix | None = None,
    tiling: tuple[int, int] | None = None,
) -> HeadStages:
    d_k = q.shape[1]
    div = ops.divisor(d_k, scale)
    scores = ops.scores(q, k)
    scaled = scores / div
    biased = scaled if bias is None else scaled + bias
    masked = biased if allowed is None else ops.apply_mask(biased, allowed)
    top = ops.row_top(masked)  # (L_Q, 1)
    if ops.is_printable(top):  # the usual case: no blocked row, no shift, e^masked shown
        weights = ops.softmax_rows(masked, top)
        exps, shift = np.exp(masked), np.zeros(q.shape[0])
    else:
        weights = ops.softmax_rows(masked)
        shift = ops.exp_shift(masked)
        exps = np.exp(masked - shift[:, None])
    output, tiles = (
        (ops.weighted_sum(weights, v), None) if tiling is None else tiled_output(masked, v, *tiling)
    )
    return HeadStages(
        q=q,
        k=k,
        v=v,
        scores=scores,
        scaled=scaled,
        masked=masked,
        weights=weights,
        output=output,
        d_k=d_k,
        divisor=div,
        exps=exps,
        exp_shift=shift,
        # the ufuncs' own reduce: ndarray.sum and .max without their Python wrappers
        row_sum=np.add.reduce(weights, axis=1),
        row_entropy=ops.entropy_bits(weights),
        row_argmax=tuple(weights.argmax(axis=1).tolist()),
        row_max=np.maximum.reduce(weights, axis=1),
        bias=bias,
        tiles=tiles,
    )
