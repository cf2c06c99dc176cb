"""The one view model (app.inputs.view): bounds, defaults and the URL/JSON names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.attention import run
from app.figures import check_view
from app.figures.view_fields import STRETCH
from app.inputs.body import AttentionRequest
from app.inputs.errors import FieldError
from app.inputs.view import ViewRequest, ViewState, default_focus
from app.presets import RUNNING_EXAMPLE

STRETCH_MIN, STRETCH_MAX = STRETCH.low, STRETCH.high

APP = Path(__file__).resolve().parents[2] / "app"


def test_default_focus_is_row_1_or_0_for_one_token() -> None:
    assert default_focus(1) == 0
    assert default_focus(2) == 1
    assert default_focus(64) == 1
    assert ViewState().for_tokens(1).focus == 0
    assert ViewState().for_tokens(3).focus == 1
    assert ViewState(focus=2).for_tokens(1).focus == 2  # given: kept (and checked later)
    assert ViewRequest().to_view(1).focus == 0
    assert ViewRequest().to_view(3).focus == 1


def test_query_round_trip_keeps_only_what_differs_from_the_defaults() -> None:
    assert ViewState.from_query({}) == ViewState()
    assert ViewState().to_query() == {}
    assert ViewState(focus=1).to_query() == {}
    view = ViewState(focus=0, head=1, stretch=4.0, row="focus", theme="dark")
    assert view.to_query() == {"focus": "0", "head": "1", "stretch": "4.0", "row": "focus",
                               "theme": "dark"}  # fmt: skip
    assert ViewState.from_query(view.to_query()) == view


def test_json_names_softmax_row_and_the_url_names_row() -> None:
    assert ViewState.from_json({"softmax_row": "focus"}).row == "focus"
    assert ViewState.from_json({"row": "focus"}).row == "focus"
    assert ViewState.from_json({"focus": 2, "stretch": 3, "other": 1}) == ViewState(
        focus=2, stretch=3.0
    )
    request = ViewRequest(softmax_row="focus", focus=0, theme="dark")
    assert request.state() == ViewState(focus=0, row="focus", theme="dark")
    assert request.to_view(3).softmax_row == "focus"


@pytest.mark.parametrize(
    ("params", "field"),
    [({"stretch": "0.05"}, "stretch"), ({"stretch": "65"}, "stretch"), ({"focus": "-1"}, "focus"),
     ({"head": "x"}, "head"), ({"row": "middle"}, "row"), ({"theme": "blue"}, "theme")],
)  # fmt: skip
def test_bad_view_parameters_name_the_parameter(params: dict[str, str], field: str) -> None:
    with pytest.raises(FieldError) as err:
        ViewState.from_query(params)
    assert err.value.field == field


def test_url_and_json_share_the_stretch_bounds() -> None:
    schema = ViewRequest.model_json_schema()["properties"]["stretch"]
    assert (schema["minimum"], schema["maximum"]) == (STRETCH_MIN, STRETCH_MAX)
    assert ViewState.from_query({"stretch": str(STRETCH_MAX)}).stretch == STRETCH_MAX
    with pytest.raises(FieldError, match=r"between 0\.1 and 64"):
        ViewState.from_query({"stretch": "100"})


def test_check_names_focus_and_head_outside_the_stages() -> None:
    stages = run(AttentionRequest.model_validate(RUNNING_EXAMPLE).to_input())
    ViewState().check(stages)
    with pytest.raises(FieldError, match="a query row from 0 to 2, got 3") as err:
        ViewState(focus=3).check(stages)
    assert err.value.field == "focus"
    with pytest.raises(FieldError, match=r"from 0 to 0 \(there is 1 head\), got 1") as err:
        ViewState(head=1).check(stages)
    assert err.value.field == "head"
    # The same rule and words as a JSON view (POST /api/v1/figures names view.focus).
    assert check_view(stages, ViewState(focus=3).figure_view("light", (6,))) == (
        "view.focus",
        "focus must be a query row from 0 to 2, got 3",
    )


def test_only_the_engine_raises_its_input_error() -> None:
    """Input, limit and view problems outside app/attention are FieldErrors."""
    offenders = [
        str(path.relative_to(APP))
        for path in APP.rglob("*.py")
        if "attention" not in path.relative_to(APP).parts[:1]
        and re.search(r"raise InputError\b", path.read_text("utf-8"))
    ]
    assert offenders == []
