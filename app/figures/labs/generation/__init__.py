"""Lab `generation` (issue 31, item 1): the KV cache, shared heads, windows and sinks. One
module per figure: ``decode`` (I1, decoding step by step), ``cache`` (I2, the cache's
bytes), ``shared`` (I3, multi-query and grouped-query attention) and ``windows`` (I4,
sliding windows and sinks); what they share in ``common``.

PURE. The maths is ``app.labs`` (decoding, kv_cache, grouped, windows, sinks, attend);
these modules only lay the numbers out.
"""

from __future__ import annotations

from app.figures.labs.base import Lab
from app.figures.labs.generation.cache import CACHE
from app.figures.labs.generation.decode import DECODE
from app.figures.labs.generation.shared import SHARED
from app.figures.labs.generation.windows import WINDOWS

FIGURES = (DECODE, CACHE, SHARED, WINDOWS)

LAB = Lab(
    id="generation",
    title="The KV cache, shared heads, windows and sinks",
    summary="Decode token by token against a cache, count its bytes, share key/value heads, "
    "and keep only a window and a few sink tokens.",
    entries="I1–I4",
    status="ready",
    figures=FIGURES,
    main_figure=(6, "The attention weight matrix"),
    intro="How a model writes text one token at a time without recomputing the past: the "
    "keys and values it keeps, what they cost, and three ways to keep fewer, each exact.",
)
