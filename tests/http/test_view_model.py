"""The view's surfaces, built and compared with the one declaration (app.figures.view_fields):
the OpenAPI text of every view parameter, the stretch control's bounds and stops in the page
and the embed, the theme menus of the page and the labs, and the defaults in the page's
#initial-state. A hand-written copy of any of them fails here."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.figures.labs import LABS
from app.figures.view_fields import STRETCH, THEME, VIEW_FIELDS, url_defaults
from app.inputs.view import field_doc


class _Inputs(HTMLParser):
    """Every tag with an id (its attributes), and the theme menu's options."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str | None]] = {}
        self.options: list[tuple[str | None, str]] = []
        self._in_theme = False
        self._option: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.by_id[str(found["id"])] = found
        self._in_theme = self._in_theme or found.get("id") == "theme"
        if tag == "option" and self._in_theme:
            self._option = found.get("value")

    def handle_endtag(self, tag: str) -> None:
        self._in_theme = self._in_theme and tag != "select"

    def handle_data(self, data: str) -> None:
        if self._option is not None:
            self.options.append((self._option, data.strip()))
            self._option = None


def _parse(html: str) -> _Inputs:
    parser = _Inputs()
    parser.feed(html)
    return parser


def _check_stretch_control(html: str, value: float) -> None:
    found = _parse(html).by_id
    box, slider = found["stretch"], found["stretch-slider"]
    assert box["type"] == "number"
    assert (float(box["min"] or ""), float(box["max"] or "")) == (STRETCH.low, STRETCH.high)
    assert float(box["value"] or "") == value
    stops = json.loads(slider["data-stops"] or "")
    assert tuple(stops) == STRETCH.stops
    assert (slider["min"], slider["max"], slider["step"]) == ("0", str(len(stops) - 1), "1")
    assert slider["value"] == str(STRETCH.stop_index(value))


@pytest.fixture(scope="module")
def openapi(client: TestClient) -> dict[str, Any]:
    return dict(client.get("/api/v1/openapi.json").json())


def test_every_view_parameter_is_documented_from_the_declaration(
    openapi: dict[str, Any],
) -> None:
    routes = {
        path: {p["name"]: p for p in op["get"].get("parameters", [])}
        for path, op in openapi["paths"].items()
        if "get" in op
    }
    with_a_view = {path: params for path, params in routes.items() if "focus" in params}
    assert {"/", "/embed/{figure}"} <= set(with_a_view)
    for path, params in with_a_view.items():
        for field in VIEW_FIELDS:
            assert params[field.name]["description"] == field_doc(field), (path, field.name)
            assert params[field.name]["required"] is False


def test_the_json_view_is_documented_from_the_declaration(openapi: dict[str, Any]) -> None:
    props = openapi["components"]["schemas"]["ViewRequest"]["properties"]
    assert [k for k in props if k != "figures"] == [f.json_key for f in VIEW_FIELDS]
    for field in VIEW_FIELDS:
        assert props[field.json_key]["description"] == field_doc(field, json=True)


@pytest.mark.parametrize("stretch", [STRETCH.low, 5.0, STRETCH.default, STRETCH.high])
def test_the_page_stretch_control_offers_what_a_link_accepts(
    client: TestClient, stretch: float
) -> None:
    response = client.get(f"/?stretch={stretch}")
    assert response.status_code == 200
    _check_stretch_control(response.text, stretch)
    found = re.search(r'id="initial-state">(.*?)</script>', response.text, re.S)
    assert found
    initial = json.loads(found.group(1))
    assert initial["view"]["stretch"] == stretch
    assert initial["view_defaults"] == url_defaults()


def test_a_link_past_the_stretch_bounds_is_refused_naming_stretch(client: TestClient) -> None:
    assert client.get(f"/embed/12?stretch={STRETCH.high * 1.01}").status_code == 400
    html = client.get(f"/?stretch={STRETCH.low / 2}").text
    assert "stretch: stretch must be between 0.1 and 64" in html


def test_the_embed_stretch_control_offers_what_a_link_accepts(client: TestClient) -> None:
    response = client.get(f"/embed/12?controls=stretch&stretch={STRETCH.low}")
    assert response.status_code == 200
    _check_stretch_control(response.text, STRETCH.low)


@pytest.mark.parametrize("path", ["/?theme=dark", f"/labs/{LABS[0].id}?theme=dark"])
def test_the_theme_menus_list_the_declared_themes(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    options = _parse(response.text).options
    assert options == list(zip(THEME.choices, THEME.labels, strict=True))
    assert 'value="dark" selected' in response.text
