"""app.inputs.lab_controls: URL text -> control values, one number grammar, the rules a
control declares (whole, most, permutation, snap) and the one error type of inputs."""

from __future__ import annotations

import pytest

from app.figures.labs import get_lab
from app.figures.labs.controls import Control, integer, number
from app.inputs.errors import FieldError
from app.inputs.lab_controls import ControlError, parse_control
from app.inputs.query import decimal


@pytest.mark.parametrize(
    "text", ["١٢", "１２", "1_2", " 12", "12\n", "0x10", "inf", "nan", "1e400", "", "1.2.3", "--1"]
)
def test_one_grammar_refuses_what_float_would_take(text: str) -> None:
    assert decimal(text) is None
    for c in (number("shift", "shift", 0, -1e9, 1e9, 0.1), integer("seed", "seed", 0, 0, 99)):
        with pytest.raises(ControlError) as caught:
            parse_control(c, text, "page.key")
        assert isinstance(caught.value, FieldError)
        assert caught.value.field == caught.value.key == "page.key"


def test_whole_and_most_rules() -> None:
    dims = get_lab("order").figure("positional-encoding").controls[1]  # type: ignore[union-attr]
    assert parse_control(dims, "0,1,6") == (0, 1, 6)
    with pytest.raises(ControlError, match="whole numbers"):
        parse_control(dims, "0,1.5")
    with pytest.raises(ControlError, match="at most 8"):
        parse_control(dims, ",".join(str(i) for i in range(9)))
    with pytest.raises(ControlError, match="not a number"):
        parse_control(dims, "0, 1")  # the page's script removes spaces; a URL has none


def test_permutation_rule() -> None:
    perm = get_lab("order").figure("shuffle").controls[0]  # type: ignore[union-attr]
    assert parse_control(perm, "2,0,1,4,3") == (2, 0, 1, 4, 3)
    with pytest.raises(ControlError, match=r"0, 1, 2, 3 and 4 once each"):
        parse_control(perm, "0,0,1,2,3")


def test_a_snapped_vector_is_bounded_before_the_snap() -> None:
    q = Control("q", "q", "vector", (0.0, 0.0), -2, 2, 0.05, shape=(2,), extra={"snap": True})
    assert parse_control(q, "1e6,-1e6") == (2, -2)
    with pytest.raises(ControlError, match="1,000,000"):
        parse_control(q, "1e308,0")
