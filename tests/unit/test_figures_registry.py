"""The figure registry (app/figures/registry.py) against the figures themselves: numbers,
builders, titles, and each fact (reads, inputs, kind, narrow) checked by building."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from engine_spec import arr
from figures_support import figs, stages

import app.figures
from app.figures import ALL_FIGURES, BUILDERS, BUILT_FIGURES
from app.figures.registry import (
    BY_NUMBER,
    FIGURES,
    VIEW_KEYS,
    headings,
    page_lists,
    title,
)
from app.presets import RUNNING_EXAMPLE

FIGURES_DIR = Path(app.figures.__file__).parent
LIVE = [f for f in FIGURES if f.builder is not None]


def test_numbers_are_1_to_13_in_order_and_the_builds_are_3_to_13() -> None:
    assert [f.number for f in FIGURES] == list(range(1, 14))
    assert tuple(range(3, 14)) == BUILT_FIGURES
    assert tuple(range(1, 14)) == ALL_FIGURES
    assert list(BUILDERS) == list(BUILT_FIGURES)
    assert set(BY_NUMBER) == set(range(1, 14))


def test_static_figures_have_no_builder_and_live_ones_one_each() -> None:
    for f in FIGURES:
        assert (f.kind == "static") == (f.builder is None), f.number
    builders = [f.builder for f in LIVE]
    assert len({id(b) for b in builders}) == len(builders), "a builder is registered twice"


def test_every_builder_in_the_figure_modules_is_registered() -> None:
    """Each module-level ``build`` / ``build_<n>`` of app/figures/*.py is in the registry."""
    found = set()
    for path in FIGURES_DIR.glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and (
                node.name == "build" or node.name.removeprefix("build_").isdigit()
            ):
                found.add(f"app.figures.{path.stem}.{node.name}")
    registered = {f"{f.builder.__module__}.{f.builder.__name__}" for f in LIVE if f.builder}
    assert registered == found


def test_built_titles_are_the_registry_titles_for_the_running_example() -> None:
    out = figs(stages())
    assert {int(n): fig["title"] for n, fig in out["figures"].items()} == {
        f.number: f.title for f in LIVE
    }
    assert all(fig["number"] == int(n) for n, fig in out["figures"].items())


@pytest.mark.parametrize("head", [0, 1])
def test_with_two_heads_the_built_titles_are_the_registry_headings(head: int) -> None:
    out = figs(stages(heads=2), head=head)
    built = {int(n): fig["title"] for n, fig in out["figures"].items()}
    assert built == {n: t for n, t in headings(head, 2).items() if n in built}
    assert built[6] == f"{title(6)} (head {head + 1} of 2)"
    assert headings() == {f.number: f.title for f in FIGURES}


def test_title_of_an_unknown_figure_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        title(14)


def _json(fig: dict[str, Any]) -> str:
    return json.dumps(fig, sort_keys=True)


def _changed(view_a: dict[str, Any], view_b: dict[str, Any], **over: Any) -> set[int]:
    a, b = figs(stages(**over), **view_a)["figures"], figs(stages(**over), **view_b)["figures"]
    return {int(n) for n in a if _json(a[n]) != _json(b[n])}


def test_focus_redraws_exactly_the_figures_that_read_it() -> None:
    for row in ("textbook", "focus"):
        changed = _changed({"focus": 0, "softmax_row": row}, {"focus": 2, "softmax_row": row})
        assert changed == {f.number for f in LIVE if f.follows_focus(row)}, row


def test_stretch_and_row_redraw_exactly_the_figures_that_read_them() -> None:
    assert _changed({"stretch": 2.0}, {"stretch": 9.0}) == set(page_lists()["reads"]["stretch"])
    row = _changed({"softmax_row": "textbook"}, {"softmax_row": "focus"})
    assert row == set(page_lists()["reads"]["row"])


@pytest.mark.parametrize("row", ["textbook", "focus"])
def test_inputs_change_exactly_the_figures_that_show_them(row: str) -> None:
    x = [list(r) for r in RUNNING_EXAMPLE["x"]]
    x[0][0] += 1  # new numbers, same shapes
    a = figs(stages(), softmax_row=row)["figures"]
    b = figs(stages(x=arr(x)), softmax_row=row)["figures"]
    changed = {int(n) for n in a if _json(a[n]) != _json(b[n])}
    assert changed == {f.number for f in LIVE if f.shows_inputs(row)}


def test_kind_and_narrow_match_what_the_builders_make() -> None:
    out = figs(stages())["figures"]
    for f in LIVE:
        fig = out[str(f.number)]
        assert (f.kind == "grid") == bool(fig.get("panels")), f.number
        assert f.narrow == ("narrow" in fig), f.number


def test_page_lists_are_the_registry_facts() -> None:
    lists = page_lists()
    assert lists["live"] == list(BUILT_FIGURES)
    assert set(lists["reads"]) == set(VIEW_KEYS)
    assert lists["reads"]["focus"] == [3, 4, 6, 7, 8, 9]
    assert lists["reads"]["stretch"] == lists["reads"]["row"] == lists["row_focus"] == [12]
    assert lists["narrow"] == [5, 10, 12, 13]
