"""The notation parser (app.notation) and the Jinja filter ``math`` (app.templating): the
shared case list (tests/notation_cases.json, also read by tests/js/notation.test.mjs) and
the filter's escaping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from markupsafe import Markup

from app.notation import patterns, plotly_markup, script_runs, spoken, tokens
from app.templating import environment

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent.parent / "notation_cases.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:30] for c in CASES])
def test_shared_cases(case: dict[str, Any]) -> None:
    assert [list(t) for t in tokens(case["text"])] == case["tokens"]


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:30] for c in CASES])
def test_shared_cases_in_plotly_markup_and_spoken(case: dict[str, Any]) -> None:
    """The twins of notation_core.js plotlyMarkup and spokenText, on the same cases."""
    assert plotly_markup(case["text"]) == case["plotly"]
    assert spoken(case["text"]) == case["spoken"]


def test_plotly_markup_escapes_all_but_the_notation() -> None:
    assert plotly_markup("√d_k & W^Q <b>") == "√d<sub>k</sub> &amp; W<sup>Q</sup> &lt;b&gt;"
    assert plotly_markup("blocked: e^−∞ = 0") == "blocked: e<sup>−∞</sup> = 0"
    assert spoken("Download W^Q") == "Download W Q"


def test_the_vocabulary_is_closed() -> None:
    found = [t[2] for c in CASES for t in tokens(c["text"]) if t[0] == "math"]
    for source in ("W^Q", "W^K", "W^V", "W^O", "d_k", "d_v", "d_model", "d_ff", "L_Q", "L_K"):
        assert source in found
    for source in ("q_2", "k_1", "v_3", "z_2", "x_1", "s_23", "p_j", "q_i", "k_j", "√d_k"):
        assert source in found
    assert {"√d_v", "√2", "e^1.5", "e^20", "e^−2", "10^8", "e^−∞", "p_max"} <= set(found)
    assert patterns()[0].name == "root of a size"  # √d_k before d_k


def render(text: object) -> str:
    return str(environment.from_string("{{ t|math }}").render(t=text))


def test_filter_writes_mathml() -> None:
    assert (
        render("W^Q")
        == '<math alttext="W^Q" aria-label="W Q"><msup><mi>W</mi><mi>Q</mi></msup></math>'
    )
    assert render("÷ √d_k") == (
        '÷ <math alttext="√d_k" aria-label="square root of d k">'
        "<msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></math>"
    )
    assert (
        render("e^−2")
        == '<math alttext="e^−2" aria-label="e to the −2"><msup><mi>e</mi><mn>−2</mn></msup></math>'
    )
    assert (
        render("k_1 (I)")
        == '<math alttext="k_1" aria-label="k 1"><msub><mi>k</mi><mn>1</mn></msub></math> (I)'
    )


def test_filter_escapes_everything_else() -> None:
    assert render("<script>d_k</script> & W^{O}") == (
        '&lt;script&gt;<math alttext="d_k" aria-label="d k">'
        "<msub><mi>d</mi><mi>k</mi></msub></math>&lt;/script&gt; &amp; W^{O}"
    )
    assert render("\"a\" 'b'") == "&#34;a&#34; &#39;b&#39;"
    assert render(None) == ""
    assert render(3) == "3"


def test_filter_leaves_markup_alone() -> None:
    assert render(Markup("<b>d_k</b>")) == "<b>d_k</b>"
    assert isinstance(environment.filters["math"]("d_k"), Markup)


def test_script_runs_set_the_notation_for_a_medium_without_mathml() -> None:
    """An exported SVG has no MathML: the same vocabulary as raised and lowered runs."""
    assert script_runs("divided by √d_k") == [("divided by √d", 0), ("k", -1)]
    assert script_runs("W^Q and z_2 (love)") == [
        ("W", 0), ("Q", 1), (" and z", 0), ("2", -1), (" (love)", 0)
    ]  # fmt: skip
    assert script_runs("e^−2") == [("e", 0), ("−2", 1)]
    assert script_runs("plain words") == [("plain words", 0)]


def test_spoken_filter_writes_an_attribute_in_words() -> None:
    template = environment.from_string('<input aria-label="{{ t|spoken }}">')
    assert template.render(t="W^Q row 1, d_k column 2 & √d_k") == (
        '<input aria-label="W Q row 1, d k column 2 &amp; square root of d k">'
    )
    assert template.render(t=None) == '<input aria-label="">'
