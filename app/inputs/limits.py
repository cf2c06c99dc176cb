"""Limits and the cost model: refuse work before doing it.

A request's ``Cost`` is estimated from its *shapes* alone, before the engine runs (and,
for large bodies, before the arrays are parsed): ``cells`` counts the float64 numbers the
server holds for it (inputs, every head's L_Q × L_K grids, the per-head matrices) and
``response_bytes`` the bytes it answers with. ``check_cost`` compares both with the
settings' budget (``max_cells``, ``max_response_bytes``) and raises ``CostError``, which
the app's error handlers turn into a 422 (or the 413 a caller asks for) naming what to
reduce. 422 by default: a fuzzer's schema-invalid body refused for its size is still
"unprocessable", and a link's state is no payload.

``is_heavy`` says which work leaves the event loop (``app.http.admission.offload``): below
``INLINE_CELLS`` a computation takes well under a millisecond, less than a thread hop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from app.inputs.errors import error_detail

# Grids kept per head, each L_Q × L_K: scores, scaled, masked, weights, exps.
GRID_STAGES = 5
# JSON bytes per number on the wire: orjson writes a float64 in up to ~24 characters
# plus a comma; measured 19.6 on random normal data (benchmarks/load.py --cost).
BYTES_PER_NUMBER = 20
# Figures print every cell several times (text, hover, derivations, tables) in one head.
FIGURE_BYTES_PER_CELL = 400
FIGURE_CELLS_PER_CELL = 24
# One tile of the online softmax (the ``tiling`` option) costs about as much time as this
# many cells of the one-shot computation: ~20 small numpy calls per tile, measured 1.1 ms a
# tile against 0.16 µs a cell on the shared 2-core machine (median of a few runs). So a
# request of many tiny tiles is priced by its tiles, not by its few numbers.
TILE_CELLS = 8_000
# Numbers the trace keeps per query row and column tile: m and ℓ before, from the tile,
# after, and the rescale factor.
TRACE_NUMBERS = 7
# Below this many cells work runs inline on the event loop (about 1 ms at most).
INLINE_CELLS = 50_000
# Bodies above this many bytes are parsed in a worker thread, under an admission slot.
INLINE_BODY_BYTES = 256_000


class Budget(Protocol):
    """The settings the cost model reads (``app.settings.Settings`` has them)."""

    @property
    def max_cells(self) -> int: ...

    @property
    def max_response_bytes(self) -> int: ...


@dataclass(frozen=True)
class Cost:
    """What a request costs: float64 cells held, and bytes answered."""

    cells: int
    response_bytes: int

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.cells + other.cells, self.response_bytes + other.response_bytes)


class CostError(ValueError):
    """Work over budget. ``field`` names what to reduce; ``status`` is 413 or 422."""

    def __init__(self, field: str, message: str, status: int = 422) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.status = status

    def detail(self) -> dict[str, Any]:
        """The API's error shape for this error."""
        return error_detail(
            self.field, self.message, "too_costly", ["body", *self.field.split(".")]
        )


def _mb(n: int) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n:,} bytes"


def check_cost(
    cost: Cost, settings: Budget, reduce: str, status: int = 422, field: str | None = None
) -> None:
    """Raise ``CostError`` when ``cost`` is over the settings' budget; its message says
    to reduce ``reduce``, its ``field`` is ``field`` (default: ``reduce``)."""
    field = field or reduce
    if cost.cells > settings.max_cells:
        raise CostError(
            field,
            f"this asks for {cost.cells:,} numbers, more than the limit of "
            f"{settings.max_cells:,} (ATTENTION_LAB_MAX_CELLS); reduce {reduce}",
            status,
        )
    if cost.response_bytes > settings.max_response_bytes:
        raise CostError(
            field,
            f"the answer would be about {_mb(cost.response_bytes)}, more than the limit of "
            f"{_mb(settings.max_response_bytes)} (ATTENTION_LAB_MAX_RESPONSE_BYTES); "
            f"reduce {reduce}",
            status,
        )


def is_heavy(cost: Cost) -> bool:
    """True for work that must leave the event loop (and take an admission slot)."""
    return cost.cells > INLINE_CELLS


@dataclass(frozen=True)
class Shape:
    """The sizes one attention computation is made of."""

    l_q: int
    l_k: int
    d_model: int  # 0 in direct mode (q, k, v given)
    d_k: int
    d_v: int
    heads: int = 1
    d_out: int = 0  # columns of W^O, 0 without it
    cross: bool = False
    # The engine's additive options (0 / False: off, and then they cost nothing)
    rope: bool = False
    alibi: bool = False
    window: bool = False
    kv_heads: int = 0
    col_tiles: int = 0  # ⌈L_K / block_cols⌉ per head with tiling
    tiles: int = 0  # row tiles × column tiles per head with tiling

    @property
    def _tiles_dominate(self) -> bool:
        return self.tiles * TILE_CELLS > self.l_q * self.l_k * GRID_STAGES

    @property
    def field(self) -> str:
        """The input that sets the size: ``heads`` when there are several, else the one
        whose rows are the tokens; ``tiling`` when its tiles cost more than the grids."""
        if self._tiles_dominate:
            return "tiling"
        if self.heads > 1:
            return "heads"
        return "source.x" if self.cross else ("x" if self.d_model else "q")

    @property
    def reduce(self) -> str:
        """What to reduce, biggest factor first, for error messages."""
        tokens = "source.x" if self.cross else ("x" if self.d_model else "q")
        parts = [f"the tokens ({tokens}: L_Q {self.l_q}, L_K {self.l_k})"]
        if self.heads > 1:
            parts.insert(0, f"heads ({self.heads})")
        if self.tiles:
            tiles = f"the tiles ({self.tiles} per head: larger tiling.block_rows and block_cols)"
            parts.insert(0 if self._tiles_dominate else len(parts), tiles)
        parts.append(f"the widths (d_k {self.d_k}, d_v {self.d_v})")
        return " or ".join(parts)


def attention_cost(s: Shape) -> Cost:
    """Cells and response bytes of ``run`` and its JSON (``POST /api/v1/attention``)."""
    grids = s.heads * s.l_q * s.l_k * GRID_STAGES
    per_head = s.l_q * s.d_k + s.l_k * (s.d_k + s.d_v) + s.l_q * s.d_v
    inputs = (s.l_q + (s.l_k if s.cross else 0)) * s.d_model
    inputs += s.d_model * (2 * s.d_k + s.d_v) + s.d_v * s.d_out + s.l_q * s.d_out
    cells = grids + per_head + inputs + _option_cells(s)
    # On the wire: every grid but exps, the per-head matrices, the inputs and the output
    # (head 1 also at the top level).
    wire = s.heads * s.l_q * s.l_k * (GRID_STAGES - 1) + 2 * per_head + inputs
    return Cost(cells, wire * BYTES_PER_NUMBER)


def _option_cells(s: Shape) -> int:
    """What the additive options hold beyond the plain computation: rotated q and k (and
    their angles), a bias grid per head, the window's mask, the pooled K and V, and the
    tiles (each priced as TILE_CELLS, plus its trace)."""
    cells = 2 * (s.l_q + s.l_k) * s.d_k if s.rope else 0
    cells += s.heads * s.l_q * s.l_k if s.alibi else 0
    cells += s.l_q * s.l_k if s.window else 0
    cells += s.l_k * (s.d_k + s.d_v) if s.kv_heads else 0
    cells += s.heads * (s.tiles * TILE_CELLS + TRACE_NUMBERS * s.l_q * s.col_tiles)
    return cells


def figures_cost(s: Shape, figures: int = 11) -> Cost:
    """The engine's cost plus the figures' (one head drawn, every cell explained)."""
    drawn = s.l_q * s.l_k + s.l_q * (s.d_model + s.d_k + s.d_v) + s.l_k * (s.d_k + s.d_v)
    share = max(1, figures) / 11
    extra = Cost(
        int(drawn * FIGURE_CELLS_PER_CELL * share), int(drawn * FIGURE_BYTES_PER_CELL * share)
    )
    engine = attention_cost(s)
    return Cost(engine.cells, 0) + extra


def softmax_cost(rows: int, cols: int) -> Cost:
    """Scores, exponentials and weights held; weights and exponentials answered."""
    n = rows * cols
    return Cost(3 * n, 2 * n * BYTES_PER_NUMBER)


def body_cost(content_length: int) -> Cost:
    """A body not yet parsed: each JSON number takes at least two bytes ("1,")."""
    return Cost(content_length // 2, 0)


def _width(m: Any) -> int:
    return len(m[0]) if m else 0


def request_shape(req: Any) -> Shape:
    """The ``Shape`` of an ``AttentionRequest`` (validated, so rows are rectangular)."""
    direct = req.x is None
    q_rows = req.q if direct else req.x
    k_rows = req.source.x if req.source is not None else (req.k if direct else req.x)
    l_q, l_k = len(q_rows or ()), len(k_rows or ())
    tiling = getattr(req, "tiling", None)  # the options: AttentionOptionsRequest only
    col_tiles = 0 if tiling is None else -(-l_k // tiling.block_cols)
    return Shape(
        l_q=l_q,
        l_k=l_k,
        d_model=0 if direct else _width(req.x),
        d_k=_width(req.q if direct else req.w_q),
        d_v=_width(req.v if direct else req.w_v),
        heads=max(1, int(req.heads)),
        d_out=_width(req.w_o),
        cross=req.source is not None,
        rope=getattr(req, "rope", None) is not None,
        alibi=bool(getattr(req, "alibi", None)),
        window=getattr(req, "window", None) is not None,
        kv_heads=getattr(req, "kv_heads", None) or 0,
        col_tiles=col_tiles,
        tiles=0 if tiling is None else col_tiles * -(-l_q // tiling.block_rows),
    )


def input_cost(numbers: int) -> Cost:
    """An attention body of ``numbers`` numbers, before parsing: its inputs alone."""
    return Cost(numbers, 0)
