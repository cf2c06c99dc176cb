"""Run scaled dot-product attention end to end and keep every intermediate stage.

``run(AttentionInput) -> Stages`` is the one function the API, the figures, the exports
and the tests share, so every surface shows the same numbers. Inputs arrive as numpy
arrays; shape errors are raised as ``InputError`` naming the offending field.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from app.attention import ops, options
from app.attention.errors import InputError
from app.attention.head import HeadStages, one_head, option_heads
from app.attention.heads import merge_heads, split_heads
from app.attention.ops import BoolMatrix, Matrix

MASKS = ("none", "causal")
__all__ = ["AttentionInput", "HeadStages", "InputError", "Stages", "run"]


@dataclass(frozen=True)
class AttentionInput:
    """Everything one attention computation depends on.

    Projection mode gives ``x`` and ``w_q, w_k, w_v`` (and optionally ``source_x`` for
    cross-attention); direct mode gives ``q, k, v``. Exactly one mode is used.
    """

    x: Matrix | None = None
    w_q: Matrix | None = None
    w_k: Matrix | None = None
    w_v: Matrix | None = None
    source_x: Matrix | None = None
    # The positional encoding already added to x (L_Q, d_model), or None: x is what the
    # projections see. ``with_positional`` adds it (and the source's own to source_x).
    positional: Matrix | None = None
    q: Matrix | None = None
    k: Matrix | None = None
    v: Matrix | None = None
    tokens: tuple[str, ...] | None = None
    source_tokens: tuple[str, ...] | None = None
    key_tokens: tuple[str, ...] | None = None  # direct mode: labels of the keys
    scale: bool = True
    mask: str = "none"
    padding: tuple[bool, ...] | None = None
    allowed: BoolMatrix | None = None
    heads: int = 1
    w_o: Matrix | None = None
    # Additive options (app.attention.options), each off by default:
    rope_base: float | None = None  # rotary embedding on q and k of every head
    positions: tuple[float, ...] | None = None  # the queries' positions for it (0 … L_Q − 1)
    alibi: bool = False  # −m·(i − j) on each head's scores (needs the causal mask)
    window: int | None = None  # keys with |i − j| < W only
    sinks: int | None = None  # … and the first k keys (needs a window)
    kv_heads: int | None = None  # K and V mean-pooled into this many shared heads
    tiling: tuple[int, int] | None = None  # (block_rows, block_cols): the online softmax

    def with_positional(self, pe: Matrix | None, source_pe: Matrix | None = None) -> AttentionInput:
        """This input with ``pe`` (L_Q, d_model) added to x and ``source_pe`` (L_K, d_model)
        to source_x; unchanged when both are None."""
        if pe is None and source_pe is None:
            return self
        if self.x is None or pe is None or pe.shape != self.x.shape:
            raise InputError("positional", "the positional encoding must match x's shape")
        source_x = self.source_x
        if source_pe is not None:
            if source_x is None or source_pe.shape != source_x.shape:
                raise InputError("positional", "the source's encoding must match source.x")
            source_x = source_x + source_pe
        return replace(self, x=self.x + pe, source_x=source_x, positional=pe)


@dataclass(frozen=True)
class Stages:
    """The whole computation: inputs as used, per-head stages and the final output."""

    tokens: tuple[str, ...]
    key_tokens: tuple[str, ...]
    x: Matrix | None  # as projected: X + PE when positions are on
    source_x: Matrix | None
    positional: Matrix | None  # (L_Q, d_model) the PE added to x, or None
    w_q: Matrix | None
    w_k: Matrix | None
    w_v: Matrix | None
    w_o: Matrix | None
    q: Matrix  # (L_Q, d_k·h) all heads side by side
    k: Matrix
    v: Matrix
    allowed: BoolMatrix  # (L_Q, L_K) True where a query may see a key
    heads: tuple[HeadStages, ...]
    concat: Matrix  # (L_Q, d_v) the head outputs side by side
    output: Matrix  # concat, or concat W^O when w_o is given
    scale: bool
    mask: str
    warnings: tuple[str, ...] = field(default=())
    options: options.Options | None = None  # the additive options as used, None without

    @property
    def cross(self) -> bool:
        return self.source_x is not None

    @property
    def head(self) -> HeadStages:
        """Head 1: what the single-head figures show."""
        return self.heads[0]


def run(inp: AttentionInput) -> Stages:
    """Compute every stage of softmax(Q Kᵀ / √d_k) V for ``inp``."""
    q, k, v = _qkv(inp)
    l_q, l_k = q.shape[0], k.shape[0]
    opts = options.resolve(inp, l_q, l_k, q.shape[1] // inp.heads)  # None: no option given
    tokens = _labels(inp.tokens, l_q, "tokens", "t")
    key_tokens = _key_labels(inp, tokens, l_k)
    allowed = _allowed(inp, l_q, l_k)
    if opts is not None and opts.window is not None:
        allowed = allowed & options.window_allowed(l_q, l_k, opts.window, opts.sinks)
    # None: every cell allowed, so `masked` is `scaled` itself (no copy, no −inf)
    unmasked = inp.mask == "none" and inp.padding is None and inp.allowed is None
    unmasked = unmasked and (opts is None or opts.window is None)
    mask = None if unmasked or allowed.all() else allowed
    qs, ks, vs = split_heads(q, inp.heads), split_heads(k, inp.heads), split_heads(v, inp.heads)
    if opts is None:
        heads = tuple(
            one_head(q_h, k_h, v_h, mask, inp.scale)
            for q_h, k_h, v_h in zip(qs, ks, vs, strict=True)
        )
    else:
        heads = option_heads(opts, qs, ks, vs, mask, inp.scale)
    concat = heads[0].output if len(heads) == 1 else merge_heads([h.output for h in heads])
    output = concat if inp.w_o is None else concat @ _checked_w_o(inp.w_o, concat.shape[1])
    return Stages(
        tokens=tokens,
        key_tokens=key_tokens,
        x=inp.x,
        source_x=inp.source_x,
        positional=inp.positional,
        w_q=inp.w_q,
        w_k=inp.w_k,
        w_v=inp.w_v,
        w_o=inp.w_o,
        q=q,
        k=k,
        v=v,
        allowed=allowed,
        heads=heads,
        concat=concat,
        output=output,
        scale=inp.scale,
        mask=inp.mask,
        warnings=() if mask is None else _blocked_row_warnings(allowed, tokens),
        options=opts,
    )


def _qkv(inp: AttentionInput) -> tuple[Matrix, Matrix, Matrix]:
    """Q, K, V from whichever mode the input uses, with every shape checked."""
    projection = not (inp.x is None and inp.w_q is None and inp.w_k is None
                      and inp.w_v is None and inp.source_x is None)  # fmt: skip
    direct = not (inp.q is None and inp.k is None and inp.v is None)
    if projection and direct:
        raise InputError(
            "q", "give either x, w_q, w_k, w_v (projection) or q, k, v (direct), not both"
        )
    if direct:
        q, k, v = _require(inp.q, "q"), _require(inp.k, "k"), _require(inp.v, "v")
        if k.shape[1] != q.shape[1]:
            raise InputError(
                "k", f"K has {k.shape[1]} columns but Q has {q.shape[1]}; Q and K must share d_k"
            )
        if v.shape[0] != k.shape[0]:
            raise InputError(
                "v", f"V has {v.shape[0]} rows but K has {k.shape[0]}; each key needs one value row"
            )
    elif projection:
        x = _require(inp.x, "x")
        w_q, w_k, w_v = _require(inp.w_q, "w_q"), _require(inp.w_k, "w_k"), _require(inp.w_v, "w_v")
        src = x if inp.source_x is None else inp.source_x
        d_model = x.shape[1]
        if src.shape[1] != d_model:
            raise InputError(
                "source.x",
                f"source rows have {src.shape[1]} numbers but x rows have {d_model}; "
                "both must be d_model wide",
            )
        for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
            if w.shape[0] != d_model:
                raise InputError(
                    name,
                    f"{name} has {w.shape[0]} rows but x has {d_model} columns (d_model); "
                    "they must match to multiply",
                )
        if w_k.shape[1] != w_q.shape[1]:
            raise InputError(
                "w_k",
                f"w_k has {w_k.shape[1]} columns but w_q has {w_q.shape[1]}; "
                "Q and K must share d_k",
            )
        q, k, v = ops.project(x, w_q), ops.project(src, w_k), ops.project(src, w_v)
    else:
        raise InputError("x", "give x, w_q, w_k, w_v (projection mode) or q, k, v (direct mode)")
    _check_heads(inp.heads, q.shape[1], v.shape[1])
    return q, k, v


def _require(m: Matrix | None, name: str) -> Matrix:
    if m is None:
        raise InputError(name, f"{name} is required in this mode")
    return m


def _check_heads(h: int, d_k: int, d_v: int) -> None:
    if h < 1:
        raise InputError("heads", f"heads must be at least 1, got {h}")
    if d_k % h or d_v % h:
        raise InputError("heads", f"heads = {h} must divide d_k = {d_k} and d_v = {d_v}")


def _checked_w_o(w_o: Matrix, d_v: int) -> Matrix:
    if w_o.shape[0] != d_v:
        raise InputError(
            "w_o",
            f"w_o has {w_o.shape[0]} rows but the concatenated heads have {d_v} columns (d_v)",
        )
    return w_o


def _labels(given: tuple[str, ...] | None, n: int, name: str, prefix: str) -> tuple[str, ...]:
    if given is None:
        return tuple(f"{prefix}{i}" for i in range(n))
    if len(given) != n:
        raise InputError(name, f"{len(given)} labels given for {n} rows")
    return given


def _key_labels(inp: AttentionInput, tokens: tuple[str, ...], l_k: int) -> tuple[str, ...]:
    """Key labels: direct mode's ``key_tokens``, the source's own, else the query tokens
    when keys are the same sequence."""
    if inp.key_tokens is not None:
        if inp.q is None:
            raise InputError(
                "key_tokens",
                "key_tokens labels the keys of direct mode (q, k, v); in projection mode the "
                "keys are the tokens, or source.tokens for cross-attention",
            )
        return _labels(inp.key_tokens, l_k, "key_tokens", "s")
    if inp.source_tokens is not None:
        return _labels(inp.source_tokens, l_k, "source.tokens", "s")
    if inp.source_x is None and l_k == len(tokens):
        return tokens
    return _labels(None, l_k, "source.tokens", "s")


def _allowed(inp: AttentionInput, l_q: int, l_k: int) -> BoolMatrix:
    """AND of the mask, the padding and the custom matrix: True where query i may see key j."""
    if inp.mask not in MASKS:
        raise InputError("mask", f"mask must be one of {', '.join(MASKS)}, got {inp.mask!r}")
    allowed = ops.causal_allowed(l_q, l_k) if inp.mask == "causal" else np.ones((l_q, l_k), bool)
    if inp.padding is not None:
        if len(inp.padding) != l_k:
            raise InputError(
                "padding", f"padding has {len(inp.padding)} entries but there are {l_k} keys"
            )
        allowed = allowed & ~np.asarray(inp.padding, dtype=bool)[None, :]
    if inp.allowed is not None:
        if inp.allowed.shape != (l_q, l_k):
            raise InputError(
                "allowed",
                f"allowed is {inp.allowed.shape[0]} × {inp.allowed.shape[1]} but the weights "
                f"are {l_q} × {l_k} (L_Q × L_K)",
            )
        allowed = allowed & inp.allowed
    return allowed


def _blocked_row_warnings(allowed: BoolMatrix, tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        f"row {i} ({tokens[i]!r}) has no allowed key: its weights and output are all zero"
        for i in np.flatnonzero(~allowed.any(axis=1))
    )
