"""The multi-head rows of Figure 8 (heads > 1): each head's weights, the head outputs
concatenated side by side, W^O, and the final output concat · W^O, with the arithmetic of
every cell on hover. With one head there is nothing to add.
"""

from __future__ import annotations

from app.figures import derive, fmt, grid
from app.figures.context import Ctx
from app.figures.style import Json, numbered


def _head_weights(c: Ctx, i: int) -> Json:
    h = c.stages.heads[i]
    text = fmt.grid(h.weights, dp=2) if h.weights.size <= grid.MAX_TEXT_CELLS else None
    return grid.grid(
        f"heads.{i}.weights", f"A of head {i + 1}", h.weights, rows=c.tokens,
        cols=c.key_tokens, theme=c.t.name, role="weights", text=text,
        outline={"rows": [c.focus]}, row_title="query tokens", col_title="key tokens",
        masked=~c.stages.allowed,
    )  # fmt: skip


def _concat(c: Ctx) -> Json:
    st = c.stages
    m = st.concat
    widths = [int(h.output.shape[1]) for h in st.heads]
    small = m.size <= grid.MAX_TEXT_CELLS and m.shape[1] <= grid.MAX_TEXT_COLS
    text = [[fmt.output(v) for v in row] for row in m.tolist()] if small else None
    hover = None
    if text is not None:
        owner = [(h, j) for h, w in enumerate(widths) for j in range(w)]
        hover = [
            [
                f"head {h + 1}'s z{fmt.sub2(i + 1, j + 1)} = {text[i][col]}"
                for col, (h, j) in enumerate(owner)
            ]
            for i in range(m.shape[0])
        ]
    return grid.grid(
        "concat", "concat(Z₁ … Zₕ)", m, rows=c.tokens, cols=numbered(m.shape[1]),
        theme=c.t.name, text=text, hover=hover, row_title="query tokens",
        col_title="column (heads side by side)",
    )  # fmt: skip


def _final(c: Ctx) -> list[Json]:
    st = c.stages
    if st.w_o is None:
        return [{"arrow": "no W^O given: the output is the concatenation"}]
    out = st.output
    small = out.size <= grid.MAX_TEXT_CELLS and out.shape[1] <= grid.MAX_TEXT_COLS
    text = [[fmt.output(v) for v in row] for row in out.tolist()] if small else None
    hover = (
        derive.dot_grid(fmt.factors(st.concat), fmt.factors(st.w_o.T), text, "o")
        if text is not None
        else None
    )
    w_o = grid.grid(
        "w_o", "W^O", st.w_o, rows=numbered(st.w_o.shape[0]), cols=numbered(st.w_o.shape[1]),
        theme=c.t.name, text=fmt.grid(st.w_o) if small else None,
        row_title="concat column", col_title="output column",
    )  # fmt: skip
    final = grid.grid(
        "final", "output", out, rows=c.tokens, cols=numbered(out.shape[1]), theme=c.t.name,
        text=text, hover=hover, uses=grid.product_uses("concat", "w_o"),
        outline={"rows": [c.focus]}, row_title="query tokens", col_title="output column",
    )  # fmt: skip
    return [{"op": "×"}, {"grid": w_o}, {"op": "="}, {"grid": final}]


def rows(c: Ctx) -> list[list[Json]]:
    """The extra rows of Figure 8 when there are several heads (else none)."""
    if c.num_heads == 1:
        return []
    heads = [{"grid": _head_weights(c, i)} for i in range(c.num_heads)]
    return [heads, [{"grid": _concat(c)}, *_final(c)]]


def sentence(c: Ctx) -> str | None:
    """What the extra rows show, with the current sizes."""
    if c.num_heads == 1:
        return None
    st = c.stages
    widths = " + ".join(fmt.count(h.output.shape[1]) for h in st.heads)
    tail = (
        f"then W^O ({st.w_o.shape[0]} × {st.w_o.shape[1]}) mixes them into the output "
        f"({st.output.shape[0]} × {st.output.shape[1]})."
        if st.w_o is not None
        else "with no W^O given, that concatenation is the output."
    )
    return (
        f"{c.num_heads} heads: each has its own weights (second row); their outputs sit side "
        f"by side in concat ({st.concat.shape[0]} rows, {widths} = {st.concat.shape[1]} columns), "
        + tail
    )
