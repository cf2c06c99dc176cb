"""The app as the benchmark serves it: ``create_app()`` plus one route that exists only
here, ``POST /bench/constant/{case}``, which answers pre-encoded bytes of exactly the size
of the real response for that case without reading the body. It is the floor the real
endpoint is compared with (same server, same middleware, no parsing, maths or encoding).

Serve with ``uvicorn benchmarks.bench_app:app`` from the repository root.
"""

from __future__ import annotations

from fastapi import Response

from app.main import create_app
from benchmarks.cases import CASES, response_bytes

app = create_app()
# A constant JSON document (`[0]` and trailing spaces) as long as the real response.
CONSTANT = {name: b"[0]" + b" " * (len(response_bytes(b)) - 3) for name, b in CASES.items()}


@app.post("/bench/constant/{case}", include_in_schema=False)
async def constant(case: str) -> Response:
    """Pre-encoded bytes of the real response's size; the body is never parsed."""
    return Response(CONSTANT[case], media_type="application/json")
