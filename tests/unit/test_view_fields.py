"""The one declaration of the view (app.figures.view_fields): the figures' View, the link's
ViewState, the JSON ViewRequest and the registry's view keys are built from it (change
detectors: each is compared with the declaration, so a second source cannot creep in)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, get_args

import pytest

from app.figures import BUILT_FIGURES, View
from app.figures.registry import VIEW_KEYS, ViewKey, readers_text
from app.figures.view_fields import (
    DRAWN_THEMES,
    STRETCH,
    THEME,
    THEMES,
    VIEW_FIELDS,
    ViewField,
    url_defaults,
)
from app.inputs.errors import FieldError
from app.inputs.view import ViewRequest, ViewState, field_doc


def _outside(field: ViewField[Any]) -> list[str]:
    """Values a link may spell that the field refuses."""
    if field.kind == "choice":
        return ["blue", field.choices[0].upper()]
    assert field.high is not None
    above = str(int(field.high) + 1) if field.kind == "int" else str(field.high * 1.01)
    below = [] if field.kind == "int" else [str(field.low / 2 if field.low else -1)]
    return [above, *below]


def test_the_declaration_names_each_field_once_with_bounds_that_hold_its_default() -> None:
    assert [f.name for f in VIEW_FIELDS] == ["focus", "head", "stretch", "row", "theme"]
    for field in VIEW_FIELDS:
        assert field.problem(field.default) is None, field.name
        assert len(field.labels) in (0, len(field.choices)), field.name
        assert (field.kind == "choice") == bool(field.choices), field.name
    assert ("auto", *DRAWN_THEMES) == THEMES
    assert THEME.choices == THEMES


def test_the_stretch_slider_stops_span_exactly_the_accepted_range() -> None:
    stops = STRETCH.stops
    assert (stops[0], stops[-1]) == (STRETCH.low, STRETCH.high)
    assert list(stops) == sorted(set(stops))
    assert STRETCH.default in stops
    # No stop more than ×2.5 from the next: every part of the range is reachable.
    assert all(b / a <= 2.5 for a, b in itertools.pairwise(stops))
    assert STRETCH.stop_index(STRETCH.default) == stops.index(STRETCH.default)
    assert STRETCH.stop_index(5) == stops.index(4)
    assert STRETCH.stop_index(0.01) == 0
    assert STRETCH.stop_index(1000) == len(stops) - 1


def test_the_figures_view_takes_its_defaults_and_bounds_from_the_declaration() -> None:
    view = View()
    for field in VIEW_FIELDS:
        expected = DRAWN_THEMES[0] if field is THEME else field.default
        assert getattr(view, field.json_key) == expected, field.name
        for bad in _outside(field):
            value: Any = float(bad) if field.kind == "float" else bad
            value = int(bad) if field.kind == "int" else value
            with pytest.raises(ValueError, match=f"^{field.json_key}: {field.name} must"):
                View(**{field.json_key: value})
    with pytest.raises(ValueError, match="theme must be one of light, dark"):
        View(theme="auto")  # type: ignore[arg-type]
    assert {f.name for f in dataclasses.fields(View)} == {
        *(f.json_key for f in VIEW_FIELDS),
        "figures",
    }


def test_a_links_view_takes_its_defaults_bounds_and_messages_from_the_declaration() -> None:
    state = ViewState()
    for field in VIEW_FIELDS:
        if field.name != "focus":  # None: the default focus depends on the tokens
            assert getattr(state, field.name) == field.default, field.name
        for bad in _outside(field):
            with pytest.raises(FieldError) as err:
                ViewState.from_query({field.name: bad})
            assert err.value.field == field.name
            assert str(err.value.message) == field.problem(
                bad if field.kind == "choice" else float(bad)
            )
    assert url_defaults() == {f.name: f.default for f in VIEW_FIELDS}
    assert ViewState().to_query() == {}


def test_the_json_view_takes_its_bounds_defaults_and_text_from_the_declaration() -> None:
    schema = ViewRequest.model_json_schema()["properties"]
    for field in VIEW_FIELDS:
        prop = schema[field.json_key]
        assert prop["description"] == field_doc(field, json=True)
        if field.kind == "choice":
            expected = DRAWN_THEMES if field is THEME else field.choices
            assert tuple(prop["enum"]) == expected
            continue
        number = prop["anyOf"][0] if "anyOf" in prop else prop
        assert (number["minimum"], number["maximum"]) == (field.low, field.high)
    assert tuple(schema["figures"]["anyOf"][0]["items"]["enum"]) == BUILT_FIGURES
    assert ViewRequest().theme == DRAWN_THEMES[0]


def test_the_registry_keys_are_the_fields_some_figures_read() -> None:
    assert set(VIEW_KEYS) == set(get_args(ViewKey))
    assert tuple(f.name for f in VIEW_FIELDS if f.readers == "own") == VIEW_KEYS
    assert readers_text("stretch") == readers_text("row") == "Figure 12"
    assert readers_text("head") == "Figures " + ", ".join(map(str, BUILT_FIGURES[:-1])) + (
        f" and {BUILT_FIGURES[-1]}"
    )
    assert "Figure 12" in field_doc(STRETCH)
    assert field_doc(STRETCH).endswith(": 0.1 to 64; default 8.")
    assert field_doc(THEME) == "The colours of the figures: auto, light or dark; default auto."
    assert field_doc(THEME, json=True).endswith(": light or dark; default light.")
