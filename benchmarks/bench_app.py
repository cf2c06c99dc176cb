"""The app as the benchmark serves it: ``create_app()`` plus one route that exists only
here, ``POST /bench/constant/{case}``, which reads the body and answers pre-encoded bytes
of the size of the real responses for that case. It is the floor the real
endpoint is compared with (same server, same middleware, no parsing, maths or encoding).

Serve with ``uvicorn benchmarks.bench_app:app`` from the repository root; ``bare`` is the
same constant route on a FastAPI app with nothing else (no middleware).
"""

from __future__ import annotations

from fastapi import FastAPI, Request, Response

from app.main import create_app
from benchmarks.cases import CASES, response_size

app = create_app()
# A constant JSON document (`[0]` and trailing spaces) as long as the real responses to
# the varied bodies the benchmark sends (their median size).
CONSTANT = {name: b"[0]" + b" " * (response_size(name) - 3) for name in CASES}


@app.post("/bench/constant/{case}", include_in_schema=False)
async def constant(case: str, request: Request) -> Response:
    """Pre-encoded bytes of the real response's size; the body is read, never parsed."""
    await request.body()
    return Response(CONSTANT[case], media_type="application/json")


# A bare FastAPI app (no middleware, no access log): the issue's floor, "a bare FastAPI
# endpoint that reads the body and returns fixed bytes". Serve as benchmarks.bench_app:bare.
bare = FastAPI()


@bare.get("/healthz", include_in_schema=False)
async def bare_health() -> Response:
    """Only for the benchmark to know the server is up."""
    return Response(b"ok")


@bare.post("/bench/constant/{case}", include_in_schema=False)
async def bare_constant(case: str, request: Request) -> Response:
    await request.body()
    return Response(CONSTANT[case], media_type="application/json")
