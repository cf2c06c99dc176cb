"""LeanRoute calls an endpoint that takes only the request and returns a Response
directly, and leaves every other endpoint to FastAPI's handler (app/http/routing.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.http.routing import LeanRoute
from app.main import create_app
from app.settings import Settings


async def raw(request: Request) -> Response:
    return Response(await request.body(), media_type="application/json")


async def with_query(request: Request, n: int) -> Response:
    return Response(str(n))


async def returns_a_dict(request: Request) -> dict[str, Any]:
    return {"ok": True}


def synchronous(request: Request) -> Response:
    return Response(b"sync")


def routes() -> dict[str, LeanRoute]:
    router = APIRouter(route_class=LeanRoute)
    router.add_api_route("/raw", raw, methods=["POST"])
    router.add_api_route("/query", with_query)
    router.add_api_route("/dict", returns_a_dict)
    router.add_api_route("/sync", synchronous)
    return {r.path: r for r in router.routes if isinstance(r, LeanRoute)}


def test_only_request_only_endpoints_returning_a_response_are_lean() -> None:
    lean = {path: route.takes_only_the_request() for path, route in routes().items()}
    assert lean == {"/raw": True, "/query": False, "/dict": False, "/sync": False}
    handlers = {path: route.get_route_handler().__qualname__ for path, route in routes().items()}
    assert handlers["/raw"] == "LeanRoute.get_route_handler.<locals>.handler"
    assert not handlers["/query"].startswith("LeanRoute")


def test_lean_and_fastapi_handlers_answer_alike() -> None:
    app = FastAPI()
    router = APIRouter(route_class=LeanRoute)
    for path, endpoint in (("/raw", raw), ("/query", with_query), ("/dict", returns_a_dict)):
        router.add_api_route(path, endpoint, methods=["POST"] if path == "/raw" else ["GET"])
    app.include_router(router)
    client = TestClient(app)
    assert client.post("/raw", content=b"[1,2]").content == b"[1,2]"
    assert client.get("/query", params={"n": 3}).text == "3"
    assert client.get("/query", params={"n": "x"}).status_code == 422  # FastAPI's validation
    assert client.get("/dict").json() == {"ok": True}


def test_the_attention_endpoint_is_served_lean() -> None:
    def api_routes(routes: list[Any]) -> list[APIRoute]:
        found: list[APIRoute] = []
        for r in routes:
            inner = getattr(r, "original_router", None)
            found += api_routes(inner.routes) if inner is not None else [r]
        return found

    app = create_app(Settings())
    served = {
        (r.path, m): isinstance(r, LeanRoute) and r.takes_only_the_request()
        for r in api_routes(app.router.routes)
        if isinstance(r, APIRoute)
        for m in r.methods
    }
    assert served[("/api/v1/attention", "POST")] is True
    assert served[("/api/v1/softmax", "POST")] is True
    assert served[("/api/v1/presets/{preset_id}", "GET")] is False  # a path parameter
