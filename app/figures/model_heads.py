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


def _domain_high(a: np.ndarray[Any, Any], ordinary: np.ndarray[Any, Any]) -> float:
    """The top of one head's colour scale when special tokens are hidden."""
    cells = a[np.ix_(ordinary, ordinary)]
    return min(1.0, nice_bound(float(cells.max()) if cells.size else 0.0))


def head_grid(
    a: np.ndarray[Any, Any],
    tokens: list[str],
    *,
    name: str,
    theme: str,
    special: np.ndarray[Any, Any],
    mask: np.ndarray[Any, Any] | None,
    hide_special: bool,
    text_cells: int,
) -> Json:
    """One head's (n, n) weights as a grid description."""
    n = a.shape[0]
    ordinary = ~special
    hi = _domain_high(a, ordinary) if hide_special and ordinary.any() else 1.0
    colours = [list(c) for c in palette(theme, "weights")]
    idx = colour_index(a.astype(np.float64), 0.0, hi)
    if hide_special:
        colours.append(list(HIDDEN.get(theme, HIDDEN["light"])))
        idx[special, :] = STEPS
        idx[:, special] = STEPS
    blocked = np.zeros((n, n), dtype=bool) if mask is None else mask.astype(bool)
    idx[blocked] = -1
    small = n * n <= text_cells
    values = np.round(a.astype(np.float64), 6 if small else 4)
    return {
        "grid": name,
        "label": "A",
        "shape": [n, n],
        "rows": tokens,
        "cols": tokens,
        "row_title": "query tokens",
        "col_title": "key tokens",
        "values": values.tolist() if small else values.astype(np.float32),
        "text": [[fmt.weight(float(v)) for v in row] for row in values] if small else None,
        "color": idx.tolist() if small else np.ascontiguousarray(idx.astype(np.int16)),
        "palette": colours,
        "hover": None,
        "uses": [],
        "outline": {},
        "scale": "weights",
        "domain": [0.0, hi],
        "scale_colors": [colours[0][0], colours[STEPS // 2][0], colours[STEPS - 1][0]],
        "masked": blocked.tolist() if blocked.any() else None,
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
    """``[layer][head]`` grid descriptions of ``attentions`` (layers, heads, n, n).

    ``text_cells``: heads with at most this many cells print their weights."""
    flags = np.asarray(special, dtype=bool)
    layers, heads = attentions.shape[:2]
    return [
        [
            head_grid(
                attentions[layer, head],
                tokens,
                name=f"weights-l{layer + 1}h{head + 1}",
                theme=theme,
                special=flags,
                mask=mask,
                hide_special=hide_special and bool(flags.any()),
                text_cells=text_cells,
            )
            for head in range(heads)
        ]
        for layer in range(layers)
    ]
