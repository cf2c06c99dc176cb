"""Helpers for the HTTP tests: the type of the ``make_client`` fixture (tests/conftest.py),
the running example body, the checks every response must pass (error shape naming the
field; no NaN or Infinity), and the ``src`` of the iframes an embed snippet holds."""

from __future__ import annotations

import copy
import json
from html.parser import HTMLParser
from typing import Any, Protocol
from urllib.parse import urlencode

from fastapi.testclient import TestClient
from numpy_scripts import script_json

from app.presets import RUNNING_EXAMPLE

JSON = {"content-type": "application/json"}


class MakeClient(Protocol):
    """The ``make_client`` fixture: a TestClient on a new app with these settings."""

    def __call__(self, *, raise_server_exceptions: bool = True, **settings: Any) -> TestClient: ...


def body(**changes: Any) -> dict[str, Any]:
    """A deep copy of the running example body with ``changes`` applied (None deletes)."""
    out = copy.deepcopy(RUNNING_EXAMPLE)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise AssertionError(f"{name} on the wire")


def strict_json(text: str) -> Any:
    """json.loads that fails on NaN, Infinity and -Infinity."""
    return json.loads(text, parse_constant=_no_constants)


def assert_error(response: Any, field: str, status: int = 422) -> list[dict[str, Any]]:
    """A 4xx JSON error whose detail names ``field`` (exactly, or as its prefix)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    detail = strict_json(response.text)["detail"]
    assert isinstance(detail, list)
    assert detail
    for item in detail:
        assert set(item) >= {"field", "msg", "type", "loc"}
        assert item["msg"]
    fields = [d["field"] for d in detail]
    assert any(f == field or f.startswith((f"{field}[", f"{field}.")) for f in fields), fields
    return list(detail)


class _Frames(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.src: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "iframe":
            self.src.append(dict(attrs).get("src") or "")


def iframe_srcs(html: str) -> list[str]:
    """The ``src`` of every iframe in ``html`` (an oEmbed answer's or a snippet), read
    with the standard HTML parser as an embedding site would."""
    frames = _Frames()
    frames.feed(html)
    return frames.src


def lab_script(
    client: TestClient, lab: str, figure: str, *, prefix: str = "/api/v1/labs", **query: str
) -> Any:
    """A lab figure's "Copy as NumPy" script for ``query``, run in a Python of its own
    (numpy_scripts): the JSON it prints."""
    r = client.get(f"{prefix}/{lab}/numpy/{figure}?{urlencode(query)}")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/x-python")
    assert "import numpy as np" in r.text
    return script_json(r.text)
