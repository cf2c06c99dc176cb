"""A real model's attention as grids: every layer × head of one sentence, for the model
page (``/models/{id}``) to draw with ``static/js/grid.js``.

One grid description per head (the fields of ``app.figures.grid``): rows are the queries,
columns the keys, both the model's tokens; values are that head's weights as the model
computed them (never renormalised). Small heads print their weights (``fmt.weight``, 2
decimals); larger ones are drawn as colour blocks. Colours are the weights' one scale.

Two views, both honest about what they show:

- ``hide_special=False``: the product's fixed 0 … 1 weight scale;
- ``hide_special=True``: the rows and columns of special tokens ([CLS], [SEP]) are drawn
  grey (their numbers unchanged), and each head's colours run from 0 to a 1-2-5 step just
  above its largest weight between ordinary tokens, so the rest of the pattern shows.

Generation (``generation_grid``): one head's new query rows, one per token added, over
every token so far; the keys not yet in the cache at a step are the causal mask's cells.

Causal models: blocked cells (a key after its query) are ``masked`` and drawn hatched with
the legend naming them, as on the main page.

The small heatmaps need only their colours: ``mini_maps`` sends every head's palette
indices as one short string (one character per cell, ``CODE_BASE`` + index, blocked cells
``CODE_BASE − 1``), so 72 heads of 128 tokens are about 1.2 MB, not 7.7 MB of numbers and
colour strings; one head's full grid (numbers printed, hover) is ``head_grids`` sliced.

PURE: numpy and the figures' own modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import STEPS, colour_index, grid, nice_bound, palette

Json = dict[str, Any]

# Special tokens' cells when they are hidden: a neutral grey per theme, with its ink.
HIDDEN = {"light": ("#bdbdbd", "#000000"), "dark": ("#4a4a4a", "#ffffff")}


def _domain_highs(a: np.ndarray[Any, Any], special: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """(layers, heads): the top of each head's colour scale when special tokens are
    hidden, a 1-2-5 step at or above its largest weight between ordinary tokens."""
    ordinary = ~special
    inner = a[..., ordinary, :][..., ordinary]
    tops = inner.max(axis=(-2, -1)) if inner.size else np.zeros(a.shape[:2])
    return np.array([[min(1.0, nice_bound(float(t))) for t in row] for row in tops])


CODE_BASE = 49  # "1": index 0; "0" is a blocked cell; "R" is the hidden grey (index 33)


def _colours(
    a: np.ndarray[Any, Any],
    flags: np.ndarray[Any, Any],
    mask: np.ndarray[Any, Any] | None,
    theme: str,
    hide: bool,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[list[str]], np.ndarray[Any, Any]]:
    """Every cell's palette index (−1: blocked), each head's scale top, the palette and
    the blocked cells, for all heads at once."""
    highs = _domain_highs(a, flags) if hide else np.ones(a.shape[:2])
    idx = colour_index(a / highs[..., None, None], 0.0, 1.0)
    colours = [list(c) for c in palette(theme, "weights")]
    if hide:
        colours.append(list(HIDDEN.get(theme, HIDDEN["light"])))
        idx[..., flags, :] = STEPS
        idx[..., :, flags] = STEPS
    n = a.shape[2]
    blocked = np.zeros((n, n), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    idx[..., blocked] = -1
    return idx, highs, colours, blocked


def _hidden(special: list[bool], hide_special: bool) -> tuple[np.ndarray[Any, Any], bool]:
    flags = np.asarray(special, dtype=bool)
    return flags, hide_special and bool(flags.any()) and not bool(flags.all())


def mini_maps(
    attentions: np.ndarray[Any, Any],
    *,
    special: list[bool],
    mask: np.ndarray[Any, Any] | None,
    theme: str = "light",
    hide_special: bool = False,
) -> Json:
    """Every head's colours only, for the small heatmaps: ``codes[layer][head]`` a string
    of n·n characters (row after row; ``CODE_BASE`` + palette index, ``CODE_BASE`` − 1 for
    a blocked cell), ``domains[layer][head]`` each head's scale, and what they share."""
    flags, hide = _hidden(special, hide_special)
    a = np.asarray(attentions, dtype=np.float64)
    idx, highs, colours, blocked = _colours(a, flags, mask, theme, hide)
    codes = (idx + CODE_BASE).astype(np.uint8)
    layers, heads, n = a.shape[0], a.shape[1], a.shape[2]
    return {
        "shape": [n, n],
        "palette": colours,
        "scale_colors": [colours[0][0], colours[STEPS // 2][0], colours[STEPS - 1][0]],
        "masked": blocked.tolist() if blocked.any() else None,
        "domains": [[[0.0, float(highs[i, j])] for j in range(heads)] for i in range(layers)],
        "codes": [
            [codes[i, j].tobytes().decode("ascii") for j in range(heads)] for i in range(layers)
        ],
    }


def head_grids(
    tokens: list[str],
    attentions: np.ndarray[Any, Any],
    *,
    special: list[bool],
    mask: np.ndarray[Any, Any] | None,
    theme: str = "light",
    hide_special: bool = False,
    text_cells: int = 400,
) -> list[list[Json]]:
    """``[layer][head]`` grid descriptions of ``attentions`` (layers, heads, n, n), built
    for every head at once (72 heads × their cells: one numpy pass, not one per cell).

    ``text_cells``: heads with at most this many cells print their weights."""
    flags, hide = _hidden(special, hide_special)
    a = np.asarray(attentions, dtype=np.float64)
    layers, heads, n = a.shape[0], a.shape[1], a.shape[2]
    idx, highs, colours, blocked = _colours(a, flags, mask, theme, hide)
    masked = blocked.tolist() if blocked.any() else None
    small = n * n <= text_cells
    values = np.round(a, 6 if small else 2)  # large heads: drawn as blocks, 2 decimals on hover
    if small:
        cells: Any = values.tolist()
        colour: Any = idx.tolist()
        text: Any = np.array(fmt.weight_grid(values.reshape(-1, n)), dtype=object)
        text = text.reshape(layers, heads, n, n).tolist()
    else:
        cells, colour = values.astype(np.float32), idx.astype(np.int16)
        text = None
    scale = [colours[0][0], colours[STEPS // 2][0], colours[STEPS - 1][0]]

    def one(layer: int, head: int) -> Json:
        return {
            "grid": f"weights-l{layer + 1}h{head + 1}",
            "label": "A",
            "shape": [n, n],
            "rows": tokens,
            "cols": tokens,
            "row_title": "query tokens",
            "col_title": "key tokens",
            "values": cells[layer][head],
            "text": text[layer][head] if text is not None else None,
            "color": colour[layer][head],
            "palette": colours,
            "hover": None,
            "uses": [],
            "outline": {},
            "scale": "weights",
            "domain": [0.0, float(highs[layer, head])],
            "scale_colors": scale,
            "masked": masked,
        }

    return [[one(layer, head) for head in range(heads)] for layer in range(layers)]


def generation_grid(
    tokens: list[str],
    added: int,
    rows: list[np.ndarray[Any, Any]],
    *,
    name: str,
    theme: str = "light",
) -> Json:
    """One head's attention while generating: row s is step s's new query (the token
    added at position ``len(tokens) - added + s``) over the keys cached then, positions
    0 … its own; the later keys, not yet in the cache, are masked with weight 0, which
    makes the grid the last ``added`` rows of the whole causal sequence's weights.
    ``tokens``: the prompt's and then the added tokens' labels; ``rows``: each step's
    weights (length position + 1)."""
    n = len(tokens)
    values = np.zeros((added, n))
    for s, row in enumerate(rows):
        values[s, : len(row)] = row
    later = np.arange(n)[None, :] > (n - added + np.arange(added))[:, None]
    shown = np.round(values, 6)
    return grid(
        name,
        "A",
        shown,
        rows=tokens[n - added :],
        cols=tokens,
        theme=theme,
        role="weights",
        text=fmt.weight_grid(shown),
        row_title="new query (one per step)",
        col_title="cached keys",
        masked=later,
    )
