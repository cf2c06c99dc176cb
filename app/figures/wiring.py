"""Figure 11: self- versus cross-attention, two wirings of the same engine, live.

Two rows of grids, both concrete: self-attention (one sequence feeds Q, K and V; square
weights) and cross-attention (the queries from one sequence, the keys and values from a
second one with its own rows S; weights L_Q × L_K). The row that matches the current state
shows it; the other is computed with the same W^Q, W^K, W^V: in self-attention, the page's
tokens ask a translation's French source (``presets.TRANSLATION_SOURCE``, drawn as S);
in cross-attention, the query sequence attends over itself. The wiring is in the table
alternative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.attention import AttentionInput, HeadStages, InputError, run
from app.figures import fmt, grid
from app.figures.context import Ctx, figure, label_text, table
from app.figures.diagram import dims
from app.figures.style import Json, numbered
from app.presets import TRANSLATION_SOURCE


def _sentence(tokens: list[str]) -> str:
    """'I love LLMs', "J'aime les LLM": a sequence as it reads (the first 6 tokens, then
    '…'; no space after an elided "J'")."""
    shown = tokens[:6]
    text = "".join(t + ("" if t.endswith(("'", "’")) else " ") for t in shown).rstrip()
    return text + (" …" if len(tokens) > 6 else "")


def _source(d_model: int) -> tuple[np.ndarray[Any, Any], list[str]]:
    """The translation's source (``presets.TRANSLATION_SOURCE``) as rows of width d_model:
    its own rows, repeated or cut when the page's width is not 4."""
    rows = np.array(TRANSLATION_SOURCE["x"], dtype=float)
    if rows.shape[1] != d_model:
        rows = np.stack([np.resize(r, d_model) for r in rows])
    return rows, [label_text(t) for t in TRANSLATION_SOURCE["tokens"]]


Other = tuple[HeadStages, list[str], list[str], np.ndarray[Any, Any] | None]


def _other(c: Ctx) -> Other | None:
    """The wiring the state is not in, computed from its numbers (None in direct mode):
    in cross-attention, the query sequence attending over itself; in self-attention, the
    page's tokens asking a second sequence, a French source with its own rows S."""
    st = c.stages
    if st.x is None or st.w_q is None or st.w_k is None or st.w_v is None:
        return None
    # Labels from the context (c.tokens): already made inert text for Plotly.
    tokens = list(c.tokens)
    try:
        if st.cross:
            other = run(AttentionInput(x=st.x, w_q=st.w_q, w_k=st.w_k, w_v=st.w_v,
                                       tokens=tuple(tokens), scale=st.scale))  # fmt: skip
            return other.heads[0], tokens, tokens, None
        source, k_tokens = _source(st.x.shape[1])
        other = run(AttentionInput(
            x=st.x, w_q=st.w_q, w_k=st.w_k, w_v=st.w_v, source_x=source,
            tokens=tuple(tokens), source_tokens=tuple(k_tokens), scale=st.scale,
        ))  # fmt: skip
        return other.heads[0], tokens, k_tokens, source
    except InputError:
        return None


def _weights_grid(c: Ctx, name: str, h: HeadStages, rows: list[str], cols: list[str]) -> Json:
    small = h.weights.size <= grid.MAX_TEXT_CELLS and len(cols) <= grid.MAX_TEXT_COLS
    return grid.grid(
        name, "A", h.weights, rows=rows, cols=cols, theme=c.t.name, role="weights",
        text=fmt.grid(h.weights, dp=2) if small else None,
        row_title="query tokens", col_title="key tokens",
    )  # fmt: skip


def _panels(c: Ctx, other: Other | None) -> list[list[Json]]:
    st = c.stages
    current = {"grid": c.grid("weights")}
    if other is None:
        return [[current]]
    h, rows, cols, source = other
    if st.cross:
        self_row: list[Json] = [
            {"grid": c.grid("x")},
            {"arrow": f"self: {_sentence(c.tokens)} feeds Q, K and V"},
            {"grid": _weights_grid(c, "self.weights", h, rows, cols)},
        ]
        cross_row: list[Json] = [
            {"grid": c.grid("source_x")},
            {"arrow": f"cross (now): {_sentence(c.tokens)} asks, "
                      f"{_sentence(c.key_tokens)} answers"},
            current,
        ]  # fmt: skip
        return [self_row, cross_row]
    assert source is not None
    s_grid = grid.grid(
        "cross.source_x", "S", source, rows=cols, cols=numbered(source.shape[1]),
        theme=c.t.name, text=fmt.grid(source), row_title="source tokens",
        col_title="d_model column",
    )  # fmt: skip
    self_row = [
        {"grid": c.grid("x")},
        {"arrow": f"self (now): {_sentence(c.tokens)} feeds Q, K and V"},
        current,
    ]
    cross_row = [
        {"grid": s_grid},
        {"arrow": f"cross: {_sentence(c.tokens)} asks, {_sentence(cols)} answers"},
        {"grid": _weights_grid(c, "cross.weights", h, rows, cols)},
    ]
    return [self_row, cross_row]


def _shape(l_q: int, l_k: int) -> str:
    return f"{dims(l_q, l_k)}{', square' if l_q == l_k else ' (not square)'}"


def build(c: Ctx) -> dict[str, Any]:
    other = _other(c)
    panels = _panels(c, other)
    words = _sentence(c.tokens)
    if c.stages.cross:
        self_shape, cross_shape = dims(c.l_q, c.l_q), dims(c.l_q, c.l_k)
        now = (
            f"Now: cross-attention. {words} ({c.l_q} query tokens, from X) reads "
            f"{_sentence(c.key_tokens)} ({c.l_k} source tokens, from their own rows S), so "
            f"the weights are {_shape(c.l_q, c.l_k)}."
        )
        if other is not None:
            now += f" Above, self-attention on {words} alone: {_shape(c.l_q, c.l_q)}."
    else:
        self_shape = dims(c.l_q, c.l_q)
        now = (
            f"Now: self-attention. One sequence, {words} ({c.l_q} "
            f"token{'s' if c.l_q != 1 else ''}), feeds Q, K and V, "
            f"so the weights are {_shape(c.l_q, c.l_q)}."
        )
        cross_shape = f"{c.l_q} × L_K"
        if other is not None:
            n_src = len(other[2])
            cross_shape = dims(c.l_q, n_src)
            now += (
                f" Below, cross-attention with the same W^Q, W^K, W^V: {words} asks, and a "
                f"second sequence, the French source {_sentence(other[2])} ({n_src} tokens, "
                f"its own rows S), answers; those weights are {_shape(c.l_q, n_src)}. The "
                'example "Cross-attention" (the Example menu) switches every figure to such a pair.'
            )
    caption = (
        "The same attention computation wired two ways: in self-attention one sequence gives "
        "the queries, keys and values; in cross-attention the queries come from one sequence "
        "(a decoder writing a translation) and the keys and values from another (the "
        "sentence it translates). Each row of weights still sums to 1; only the shape changes."
    )
    if c.blocked_rows:
        caption = caption.replace("sums to 1;", "sums to 1 (unless the mask blocks all of it);")
    return figure(
        11,
        c.titles[11],
        caption,
        f"Two weight grids: self-attention ({self_shape}) and cross-attention ({cross_shape}). "
        f"{now}",
        [],
        {},
        readout=[now],
        panels=panels,
        tables=[
            table(
                "Wirings",
                ["Q from", "K and V from", "weights"],
                ["self-attention", "cross-attention"],
                [["X", "X", self_shape], ["X (the decoder)", "S (the source)", cross_shape]],
            )
        ],
    )
