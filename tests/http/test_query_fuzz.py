"""Hypothesis fuzzes the query parameters of /, /embed/{n}, /oembed and /api/v1/export:
whatever the URL, the answer is never a 5xx (issue 8), and always carries the security
headers. Values mix the hostile kinds that once were 500s (Unicode digits, 5000-digit
numbers, deep or malformed s=) with arbitrary text."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.fuzz

PARAMS = ("preset", "s", "focus", "head", "stretch", "row", "theme", "editable", "controls",
          "format", "url", "maxwidth", "maxheight")  # fmt: skip


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["x", "w_q", "w_k", "w_v", "q", "k", "v", "heads",
                                       "tokens", "mask", "source"]), children, max_size=4),
    max_leaves=20,
)  # fmt: skip
values = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="0123456789²³¹٣۴", min_size=1, max_size=8),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["9" * 5000, "1e400", "nan", "-inf", "0x10", " 1", "1_000", "+1"]),
    # Past Python's recursion limit (1000), yet short enough that eight such values in
    # one oEmbed URL stay under httpx's 65,536-character limit on a URL.
    st.integers(1, 2500).map(lambda n: _b64(b"[" * n + b"]" * n)),
    json_values.map(lambda v: _b64(json.dumps(v).encode())),
    st.binary(max_size=40).map(_b64),
)
queries = st.dictionaries(st.sampled_from(PARAMS), values, max_size=4)


def _check(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code < 500, (url[:200], r.text[:300])
    assert "content-security-policy" in r.headers


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(query=queries)
def test_page(client: TestClient, query: dict[str, str]) -> None:
    _check(client, "/?" + urlencode(query))


@FUZZ
@given(figure=st.one_of(st.integers(-5, 20).map(str), values), query=queries)
def test_embed(client: TestClient, figure: str, query: dict[str, str]) -> None:
    _check(client, f"/embed/{quote(figure, safe='')}?" + urlencode(query))


@FUZZ
@given(query=queries, inner=queries, fragment=values, embed=st.booleans())
def test_oembed(
    client: TestClient, query: dict[str, Any], inner: dict[str, str], fragment: str, embed: bool
) -> None:
    path = "/embed/6" if embed else "/"
    query["url"] = f"http://testserver{path}?{urlencode(inner)}#fig-{fragment}"
    _check(client, "/oembed?" + urlencode(query))


@FUZZ
@given(query=queries)
def test_export(client: TestClient, query: dict[str, str]) -> None:
    _check(client, "/api/v1/export?" + urlencode(query))
