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

Causal models: blocked cells (a key after its query) are ``masked`` and drawn hatched with
the legend naming them, as on the main page.

PURE: numpy and the figures' own modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.figures import fmt
from app.figures.grid import STEPS, colour_index, nice_bound, palette

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
    flags = np.asarray(special, dtype=bool)
    hide = hide_special and bool(flags.any()) and not bool(flags.all())
    a = np.asarray(attentions, dtype=np.float64)
    layers, heads, n = a.shape[0], a.shape[1], a.shape[2]
    highs = _domain_highs(a, flags) if hide else np.ones((layers, heads))
    idx = colour_index(a / highs[..., None, None], 0.0, 1.0)
    colours = [list(c) for c in palette(theme, "weights")]
    if hide:
        colours.append(list(HIDDEN.get(theme, HIDDEN["light"])))
        idx[..., flags, :] = STEPS
        idx[..., :, flags] = STEPS
    blocked = np.zeros((n, n), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    idx[..., blocked] = -1
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
