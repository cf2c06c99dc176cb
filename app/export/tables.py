"""Stages as JSON and as a zip of CSV files (pure: numpy + stdlib).

JSON (``application/json``)::

    {"format": "attention-lab.stages", "version": 1, "state": <request body>,
     "tokens": [...], "key_tokens": [...], "scale": true, "mask": "none", "heads": 1,
     "divisors": [2.0], "warnings": [...],
     "matrices": {"x": {"title", "rows", "cols", "values"}, ...}}   # in computation order

Blocked cells of ``masked`` are ``null`` in JSON (no NaN or Infinity on the wire) and
``-inf`` in CSV (what numpy.loadtxt, pandas and spreadsheets read as −∞). Numbers are
written at full precision: the shortest decimal that reads back as the same float64,
whole numbers without a decimal point.

CSV zip: ``NN_<name>.csv`` per matrix (NN keeps the computation order), the first row the
column labels (key tokens for the grids), the first column the row labels (tokens), plus
``README.txt`` (what each file is, the conventions) and ``state.json`` (the request body,
to reopen the state with ``POST /api/v1/export`` or ``attention-lab export --state``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from typing import Any

from app.attention import Stages
from app.export.stages import StageMatrix, stage_matrices
from app.inputs.fields import printable

BLOCKED_CSV = "-inf"


def number_text(v: float) -> str:
    """Full precision, whole numbers without ``.0``; −inf as ``-inf``."""
    if math.isinf(v):
        return BLOCKED_CSV if v < 0 else "inf"
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _json_values(m: StageMatrix) -> list[list[float | None]]:
    return [[None if math.isinf(v) else float(v) for v in row] for row in m.values.tolist()]


def stages_json(stages: Stages, state: dict[str, Any]) -> dict[str, Any]:
    """The JSON export: state, labels, settings and every matrix."""
    return {
        "format": "attention-lab.stages",
        "version": 1,
        "state": state,
        "tokens": list(stages.tokens),
        "key_tokens": list(stages.key_tokens),
        "scale": stages.scale,
        "mask": stages.mask,
        "heads": len(stages.heads),
        "divisors": [h.divisor for h in stages.heads],
        "warnings": list(stages.warnings),
        "blocked": "null in `masked` marks a blocked cell (−∞ before the softmax)",
        "matrices": {
            m.name: {
                "title": m.title,
                "rows": list(m.rows),
                "cols": list(m.cols),
                "values": _json_values(m),
            }
            for m in stage_matrices(stages)
        },
    }


# OWASP's CSV injection rule: a cell starting with one of these is a formula to Excel,
# LibreOffice and Google Sheets (=HYPERLINK(...), +cmd, @SUM(1)); a leading ' makes it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(label: str) -> str:
    """A label as a CSV cell that no spreadsheet reads as a formula, and printable."""
    label = printable(label)
    return "'" + label if label.startswith(FORMULA_STARTS) else label


def matrix_csv(m: StageMatrix) -> str:
    """One matrix as CSV: header row of column labels, one row per matrix row. Labels
    (tokens are user text) go through ``csv_text``; numbers are written as numbers."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([f"{m.name} ({m.row_axis} \\ column)", *map(csv_text, m.cols)])
    for label, row in zip(m.rows, m.values.tolist(), strict=True):
        writer.writerow([csv_text(label), *(number_text(v) for v in row)])
    return buf.getvalue()


def _readme(stages: Stages, matrices: list[StageMatrix], names: list[str]) -> str:
    """README.txt: the labels are user text, so each goes through ``printable``."""
    divisors = ", ".join(f"{h.divisor:g}" for h in stages.heads)
    lines = [
        "Attention Lab: every stage of softmax(Q Kᵀ / √d_k) V for one state.",
        f"tokens (queries): {', '.join(map(printable, stages.tokens))}",
        f"key tokens: {', '.join(map(printable, stages.key_tokens))}",
        f"scale: {stages.scale} (divisor per head: {divisors}); mask: {stages.mask}; "
        f"heads: {len(stages.heads)}",
        "",
        "Each CSV: first row = column labels, first column = row labels.",
        f"Blocked cells of `masked` are written {BLOCKED_CSV} (−∞ before the softmax); "
        "their weights are exactly 0.",
        "Numbers are full precision (shortest form that reads back as the same float64).",
        "state.json is the request body: POST it to /api/v1/attention to recompute.",
        "",
        "Files, in the order they are computed:",
        *(
            f"  {n}: {printable(m.title)}, {m.values.shape[0]} × {m.values.shape[1]}"
            for n, m in zip(names, matrices, strict=True)
        ),
    ]
    return "\n".join(lines) + "\n"


def stages_csv_zip(stages: Stages, state: dict[str, Any]) -> bytes:
    """A zip of one CSV per matrix, README.txt and state.json."""
    matrices = stage_matrices(stages)
    names = [f"{i + 1:02d}_{m.name}.csv" for i, m in enumerate(matrices)]
    buf = io.BytesIO()
    files = {
        "README.txt": _readme(stages, matrices, names),
        "state.json": json.dumps(state, ensure_ascii=False, indent=1) + "\n",
    }
    files.update((n, matrix_csv(m)) for n, m in zip(names, matrices, strict=True))
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            # A fixed timestamp: the same state always gives the same bytes.
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text.encode())
    return buf.getvalue()
