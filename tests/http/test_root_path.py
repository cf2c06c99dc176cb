"""The app under a root path (``/attention``, behind a proxy that strips it): every URL it
writes starts with the prefix, through the ASGI app, whichever way the root arrives.

Two ways, one scope (``app.http.mount``): ``ATTENTION_LAB_ROOT_PATH`` (the app's
``MountedAt`` sets ``root_path`` and prefixes the path; requests come in stripped, as from
the proxy) and a server's root path (uvicorn's ``--root-path``: ``root_path`` set and the
path already prefixed, which ``TestClient(root_path=...)`` with a prefixed URL mimics).
The browser test (tests/browser/test_root_path_browser.py) goes through a real proxy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx2 as httpx
import pytest
from api_helpers import MakeClient, body
from fastapi.testclient import TestClient

from app.figures.labs import LABS
from app.main import create_app
from app.settings import Settings

ROOT = "/attention"
BASE = "http://testserver" + ROOT
HTML = {"accept": "text/html"}
READY = [lab.id for lab in LABS if lab.status == "ready"]
# Every page a person opens: the page, the labs, embeds, errors, the API docs.
PAGES = [
    "/", "/?preset=cross-attention#fig-7", "/labs", "/sources", "/glossary",
    *[f"/labs/{lab}" for lab in READY],
    "/embed/6", "/embed/3?editable=1&controls=stretch", "/embed/labs/one-query/alignment",
    "/embed/99", "/labs/no-such-lab", "/no-such-page", "/api/v1/docs",
]  # fmt: skip
# An attribute holding a URL: href, src, action, data-plotly-src, content of a URL meta.
URL_ATTRIBUTE = re.compile(r'\s(href|src|action|data-[\w-]*src|data-root)="([^"]*)"')


class Prefixed:
    """A client that asks for app paths (``/labs``) the way one root-path setup delivers
    them to the app: stripped (the setting) or prefixed by the server (uvicorn)."""

    def __init__(self, client: TestClient, prefix_paths: bool) -> None:
        self.client, self.prefix = client, ROOT if prefix_paths else ""

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.client.get(self.prefix + path, **kw)

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        return self.client.request(method, self.prefix + path, **kw)


@pytest.fixture(scope="module", params=["setting", "server"])
def site(request: pytest.FixtureRequest) -> Iterator[Prefixed]:
    if request.param == "setting":
        client = TestClient(create_app(Settings(root_path=ROOT)))
    else:  # uvicorn --root-path: the scope's root_path, the path prefixed
        client = TestClient(create_app(Settings()), root_path=ROOT)
    with client:
        yield Prefixed(client, prefix_paths=request.param == "server")


def site_urls(html: str) -> list[tuple[str, str]]:
    """(attribute, URL) of every URL attribute naming this site (not a fragment, data: or
    another site)."""
    found = []
    for attribute, value in URL_ATTRIBUTE.findall(html):
        value = value.replace("&amp;", "&")
        if attribute == "data-root" or value.startswith(("#", "data:", "mailto:")):
            continue
        if "://" in value and not value.startswith("http://testserver"):
            continue
        found.append((attribute, value))
    return found


def in_app(url: str) -> str:
    """The app's path of a URL under the prefix (fails when the URL is outside it)."""
    path = url.removeprefix("http://testserver")
    assert path.startswith(ROOT + "/"), f"{url} is not under {ROOT}/"
    return path[len(ROOT) :]


@pytest.mark.parametrize("page", PAGES)
def test_every_url_a_page_names_starts_with_the_root_path_and_answers(
    site: Prefixed, page: str
) -> None:
    response = site.get(page, headers=HTML)
    assert response.status_code in (200, 400, 404), page
    html = response.text
    urls = site_urls(html)
    assert len(urls) >= 3, (page, urls)  # the pattern still finds the page's links
    for attribute, url in urls:
        path = in_app(url)
        if path.startswith("/static/"):  # every asset is there through the prefix
            fetched = site.get(path.split("#")[0])
            assert fetched.status_code == 200, (page, attribute, url)
    if "data-root=" in html:  # every page and embed tells its scripts the root
        assert f'data-root="{ROOT}"' in html, page


def test_the_pages_link_to_each_other_under_the_prefix(site: Prefixed) -> None:
    html = site.get("/", headers=HTML).text
    hrefs = {url for attribute, url in site_urls(html) if attribute == "href"}
    assert {f"{ROOT}/", f"{ROOT}/labs", f"{ROOT}/api/v1/docs"} <= hrefs
    labs = site.get("/labs", headers=HTML).text
    assert {f"{ROOT}/labs/{lab}" for lab in READY} <= {url for _, url in site_urls(labs)}
    embed = site.get("/embed/6", headers=HTML).text
    (open_link,) = re.findall(r'id="open-link"|href="([^"]*)"[^>]*id="open-link"', embed)[:1]
    assert open_link.replace("&amp;", "&").startswith(f"{ROOT}/?"), open_link


def test_the_oembed_discovery_link_and_its_answer_carry_the_prefix(site: Prefixed) -> None:
    html = site.get("/?preset=i-love-llms", headers=HTML).text
    (href,) = re.findall(
        r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"', html
    )
    href = href.replace("&amp;", "&")
    assert href.startswith(f"{BASE}/oembed?")
    assert parse_qs(urlsplit(href).query)["url"] == [f"{BASE}/?preset=i-love-llms"]
    answer = site.get(in_app(href)).json()
    (src,) = re.findall(r'src="([^"]+)"', answer["html"])
    assert src.replace("&amp;", "&") == f"{BASE}/embed/6?preset=i-love-llms"
    assert answer["provider_url"] == f"{BASE}/"
    assert site.get(in_app(src.replace("&amp;", "&")), headers=HTML).status_code == 200


def test_oembed_of_a_lab_and_the_lab_api_links_carry_the_prefix(site: Prefixed) -> None:
    page = f"{BASE}/labs/one-query#alignment"
    answer = site.get(f"/oembed?url={quote(page, safe='')}").json()
    (src,) = re.findall(r'src="([^"]+)"', answer["html"])
    assert src.startswith(f"{BASE}/embed/labs/one-query/alignment")
    links = site.get("/api/v1/labs/one-query/figures?figures=alignment").json()["links"]
    assert links["alignment"]["link"].startswith(f"{BASE}/labs/one-query")
    assert links["alignment"]["embed_url"].startswith(f"{BASE}/embed/labs/one-query/")


@pytest.mark.parametrize("outside", ["http://testserver/embed/6", "http://testserver/attentionx/"])
def test_oembed_refuses_a_url_outside_the_prefix(site: Prefixed, outside: str) -> None:
    response = site.get(f"/oembed?url={quote(outside, safe='')}")
    assert response.status_code == 404
    (error,) = response.json()["detail"]
    assert error["field"] == "url"
    assert "testserver/attention" in error["msg"]


def test_redirects_land_under_the_prefix(site: Prefixed) -> None:
    moved = site.get("/labs/one-query/figures.json?figures=alignment", follow_redirects=False)
    assert moved.status_code == 308
    location = moved.headers["location"]
    assert location == f"{ROOT}/api/v1/labs/one-query/figures?figures=alignment"
    assert site.get(location.removeprefix(ROOT)).status_code == 200
    slash = site.get("/labs/", follow_redirects=False)
    assert slash.headers["location"] == f"{BASE}/labs"
    # Starlette's own slash redirect builds its URL from the path, which holds the prefix
    extra = site.get("/labs/one-query/", follow_redirects=False)
    assert extra.headers["location"] == f"{BASE}/labs/one-query"


def test_openapi_names_the_prefix_as_its_server_and_swagger_loads_it(site: Prefixed) -> None:
    document = site.get("/api/v1/openapi.json").json()
    assert document["servers"][0] == {"url": ROOT}
    docs = site.get("/api/v1/docs").text
    assert f'"url": "{ROOT}/api/v1/openapi.json"' in docs.replace("&#34;", '"')


def test_the_middleware_knows_its_routes_under_the_prefix(site: Prefixed) -> None:
    """CSP, the JSON-body check, gzip, JSON errors and the marked cache see the app's path."""
    embed = site.get("/embed/6", headers=HTML).headers
    assert "frame-ancestors *" in embed["content-security-policy"]
    assert "x-frame-options" not in embed
    page = site.get("/", headers=HTML).headers
    assert page["x-frame-options"] == "SAMEORIGIN"
    not_json = site.request("POST", "/api/v1/attention", content=b"x=1",
                            headers={"content-type": "text/plain"})  # fmt: skip
    assert not_json.status_code == 415
    raw = site.request(
        "POST", "/api/v1/attention", json=body(), headers={"accept-encoding": "gzip"}
    )
    assert raw.status_code == 200
    assert "content-encoding" not in raw.headers  # the numeric API is never gzipped
    assert "content-encoding" in site.get("/", headers={**HTML, "accept-encoding": "gzip"}).headers
    missing = site.get("/api/v1/nothing-here", headers=HTML)
    assert missing.headers["content-type"].startswith("application/json")
    openapi = site.get("/api/v1/openapi.json").headers
    assert openapi["cache-control"].startswith("public")


def test_a_public_url_names_the_prefix_itself(make_client: MakeClient) -> None:
    """ATTENTION_LAB_PUBLIC_URL includes the sub-path; links start with it, not the Host."""
    client = make_client(public_url="https://uni.example.edu/attention", root_path=ROOT)
    html = client.get("/", headers=HTML).text
    (href,) = re.findall(r'json\+oembed" href="([^"]+)"', html)
    href = href.replace("&amp;", "&")
    public = "https://uni.example.edu/attention"
    assert href.startswith(f"{public}/oembed?")
    assert parse_qs(urlsplit(href).query)["url"] == [f"{public}/"]
    answer = client.get(f"/oembed?url={quote(public + '/#fig-7', safe='')}").json()
    assert f'src="{public}/embed/7"' in answer["html"]
    bare = client.get(f"/oembed?url={quote(public, safe='')}").json()  # no trailing slash
    assert f'src="{public}/embed/6"' in bare["html"]
    assert client.get("/labs/", follow_redirects=False).headers["location"] == f"{public}/labs"


def test_without_a_root_path_nothing_changes(client: TestClient) -> None:
    html = client.get("/", headers=HTML).text
    assert 'data-root=""' in html
    assert all(not url.startswith(ROOT) for _, url in site_urls(html))
    assert '<a href="/labs">Labs</a>' in html
    assert "servers" not in client.get("/api/v1/openapi.json").json()


def test_a_server_root_path_wins_over_the_setting() -> None:
    """uvicorn's --root-path (the scope's root_path) is the one source at request time."""
    with TestClient(create_app(Settings(root_path="/other")), root_path=ROOT) as client:
        html = client.get(f"{ROOT}/labs", headers=HTML).text
    assert f'data-root="{ROOT}"' in html
    assert "/other" not in html
