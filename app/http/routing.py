"""``LeanRoute``: the route class of the API, for endpoints that read their own body.

Most API routes take only the ``Request``: they read and cost the body themselves
(``app.http.body``) and return a ``Response`` already encoded by ``app.wire``. For those,
FastAPI's request handler would still solve an empty set of dependencies and inspect the
return value on every call: a running-example ``POST /api/v1/attention`` costs 447 µs of
server CPU with it and 389 µs without (``benchmarks/api.py`` on a quiet machine).
``LeanRoute`` calls such an endpoint directly; any other endpoint (path or query
parameters, dependencies, a model as its return type) keeps FastAPI's handler. OpenAPI
is built from the route's declaration, so the document is the same either way. This is
FastAPI's documented extension point for custom route classes
(``APIRouter(route_class=...)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute


class LeanRoute(APIRoute):
    def takes_only_the_request(self) -> bool:
        """The endpoint's one parameter is the request and it returns a ``Response``."""
        d = self.dependant
        params = (d.path_params, d.query_params, d.header_params, d.cookie_params, d.body_params)
        returns = inspect.signature(self.endpoint, eval_str=True).return_annotation
        return (
            d.request_param_name is not None
            and not any(params)
            and not d.dependencies
            and inspect.iscoroutinefunction(self.endpoint)
            and inspect.isclass(returns)
            and issubclass(returns, Response)
        )

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        if not self.takes_only_the_request():
            return super().get_route_handler()
        endpoint = self.endpoint

        async def handler(request: Request) -> Response:
            response: Response = await endpoint(request)
            return response

        return handler
