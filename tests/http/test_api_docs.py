"""OpenAPI at /api/v1/openapi.json (every request field described, with an example; the
running example is the example body) and offline interactive docs at /api/v1/docs."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.paths import static_dir
from app.presets import RUNNING_EXAMPLE
from app.web.docs import SWAGGER_UI_VERSION


@pytest.fixture(scope="module")
def openapi(client: TestClient) -> dict[str, Any]:
    r = client.get("/api/v1/openapi.json")
    assert r.status_code == 200
    return dict(r.json())


def _ref(spec: dict[str, Any], ref: str) -> dict[str, Any]:
    return dict(spec["components"]["schemas"][ref.rsplit("/", 1)[-1]])


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if "$ref" in node else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def request_models(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every schema reachable from a request body, by name."""
    todo = set()
    for ops in spec["paths"].values():
        for op in ops.values():
            todo |= _refs(op.get("requestBody", {}))
    models: dict[str, dict[str, Any]] = {}
    while todo:
        ref = todo.pop()
        name = ref.rsplit("/", 1)[-1]
        if name not in models:
            models[name] = _ref(spec, ref)
            todo |= _refs(models[name])
    return models


def test_every_request_field_has_a_description_and_an_example(openapi: dict[str, Any]) -> None:
    models = request_models(openapi)
    assert {"AttentionRequest", "Source", "SoftmaxRequest"} <= set(models)
    missing = [
        f"{name}.{field}: {what}"
        for name, model in models.items()
        for field, prop in model.get("properties", {}).items()
        for what in ("description", "examples")
        if not prop.get(what)
    ]
    assert missing == []


def test_request_models_forbid_unknown_fields(openapi: dict[str, Any]) -> None:
    for name, model in request_models(openapi).items():
        assert model.get("additionalProperties") is False, name


def test_running_example_is_the_example_body(openapi: dict[str, Any]) -> None:
    assert _ref(openapi, "AttentionRequest")["examples"][0] == RUNNING_EXAMPLE
    content = openapi["paths"]["/api/v1/attention"]["post"]["requestBody"]["content"]
    examples = content["application/json"]["examples"]
    first = next(iter(examples))
    assert first == "i-love-llms"
    assert examples[first]["value"] == RUNNING_EXAMPLE
    assert "cross-attention" in examples


def test_example_bodies_are_accepted(client: TestClient, openapi: dict[str, Any]) -> None:
    for path in ("/api/v1/attention", "/api/v1/softmax"):
        content = openapi["paths"][path]["post"]["requestBody"]["content"]
        for name, example in content["application/json"]["examples"].items():
            r = client.post(path, json=example["value"])
            assert r.status_code == 200, (path, name, r.text)


def test_errors_are_documented(openapi: dict[str, Any]) -> None:
    for path in ("/api/v1/attention", "/api/v1/softmax"):
        responses = openapi["paths"][path]["post"]["responses"]
        assert {"200", "400", "413", "415", "422"} <= set(responses)
        for code in ("400", "413", "415", "422"):
            schema = responses[code]["content"]["application/json"]["schema"]
            assert schema["$ref"].endswith("/ErrorResponse")


class _Assets(HTMLParser):
    """Collects src/href values, inline script bodies and inline event handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts: list[str] = []
        self.handlers: list[str] = []
        self._in_code_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]
        self.handlers += [k for k, _ in attrs if k.startswith("on")]
        self._in_code_script = (
            tag == "script" and "src" not in a and a.get("type") != "application/json"
        )

    def handle_data(self, data: str) -> None:
        if self._in_code_script and data.strip():
            self.inline_scripts.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in_code_script = False


def test_docs_page_uses_only_local_assets(client: TestClient) -> None:
    r = client.get("/api/v1/docs")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    page = _Assets()
    page.feed(r.text)
    assert page.inline_scripts == []  # the CSP forbids inline script code
    assert page.handlers == []
    vendor = f"/static/vendor/swagger-ui-{SWAGGER_UI_VERSION}/"
    assert f"{vendor}swagger-ui-bundle.js" in page.urls
    assert f"{vendor}swagger-ui.css" in page.urls
    assert "/static/js/swagger-init.js" in page.urls
    for url in page.urls:
        assert url.startswith("/"), url
        assert not url.startswith("//"), url
        assert client.get(url).status_code == 200, url
    assert not re.search(r"https?://", r.text)


def test_docs_init_script_points_at_the_local_openapi_and_no_validator() -> None:
    init = (static_dir() / "js" / "swagger-init.js").read_text(encoding="utf-8")
    assert "validatorUrl: null" in init
    assert not re.search(r"https?://", init)


def test_vendored_swagger_ui_has_its_licence_beside_it() -> None:
    vendor = Path(static_dir()) / "vendor" / f"swagger-ui-{SWAGGER_UI_VERSION}"
    names = {p.name for p in vendor.iterdir()}
    assert {"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"} <= names
    assert "Apache License" in (vendor / "LICENSE").read_text(encoding="utf-8")
    assert not any(n.endswith(".map") for n in names)


@pytest.mark.parametrize("path", ["/", "/labs", "/lessons", "/models", "/sources"])
def test_the_footer_links_the_readable_docs_not_the_raw_document(
    client: TestClient, path: str
) -> None:
    """A reader who follows "API" gets the interactive docs (which link the JSON)."""
    page = client.get(path)
    assert page.status_code == 200
    footer = page.text[page.text.index('<footer class="site-footer">') :]
    footer = footer[: footer.index("</footer>")]
    assert re.findall(r'href="([^"]+)"', footer) == ["/api/v1/docs"]
