"""The page against the spec: the running example's numbers in Figures 3–12, edits, toggles,
focus, cross-attention and the URL round trip, checked against app.attention.run."""

from __future__ import annotations

import copy
import json
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from page_helpers import (
    cell,
    figure_strings,
    figure_tables,
    grid_values,
    open_page,
    set_cell,
    source_text,
    source_texts,
    wait_idle,
)
from playwright.sync_api import Page

from app.attention import Stages, run
from app.inputs.body import AttentionRequest
from app.inputs.link import parse_query
from app.presets import RUNNING_EXAMPLE

pytestmark = pytest.mark.browser


# The chapter's numbers, copied into the repository (tests/unit/data) so the suite runs on a
# fresh clone with nothing beside it.
SPEC_PATH = Path(__file__).resolve().parents[1] / "unit" / "data" / "running-example.json"


SPEC = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
EXPECTED = SPEC["expected"]


def engine(body: dict[str, Any]) -> Stages:
    return run(AttentionRequest.model_validate(body).to_input())


def weights_on_page(page: Page) -> np.ndarray[Any, Any]:
    """Figure 6's first trace: the full-precision weights (None for a blocked cell -> nan)."""
    z = grid_values(page, 6, "weights")
    return np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)


def numbers(cells: list[list[str]]) -> np.ndarray[Any, Any]:
    return np.array([[float(c) for c in row] for row in cells])


def table(page: Page, n: int, starts: str) -> list[list[str]]:
    found = [t["cells"] for t in figure_tables(page, n) if t["caption"].startswith(starts)]
    assert found, f"Figure {n} has no table captioned {starts!r}: {figure_tables(page, n)}"
    return found[0]


def test_default_page_shows_the_running_example_in_every_figure(page: Page) -> None:
    assert np.allclose(weights_on_page(page), EXPECTED["weights_exact"], atol=1e-6)
    for name, key in (("Q", "q"), ("K", "k"), ("V", "v")):
        assert numbers(table(page, 4, name)).tolist() == EXPECTED[key]
    assert numbers(table(page, 7, "Q Kᵀ")).tolist() == EXPECTED["scores"]
    assert numbers(table(page, 7, "Scaled")).tolist() == EXPECTED["scaled"]
    assert numbers(table(page, 7, "A")).tolist() == EXPECTED["weights_2dp"]
    assert numbers(table(page, 8, "Z")).tolist() == EXPECTED["output_2dp"]
    assert [row[1] for row in table(page, 9, "z_2 (love)")] == ["1.63", "0.14", "0.23", "0.63"]
    fig3 = figure_strings(page, 3)
    assert all(s in fig3 for s in ("0.14", "0.63", "0.23", "1.63")), fig3[:500]
    assert "19.382" in figure_strings(page, 6)
    assert page.locator("#fig-3 [data-role=narration]").inner_text().strip()
    assert "3 × 3" in figure_strings(page, 5)
    assert "3 × 4" in figure_strings(page, 10)
    assert "3 × 3" in figure_strings(page, 11)
    assert all(s in figure_strings(page, 12) for s in ("0.9997", "0.0003"))
    for n in range(3, 13):
        # text_content: off-screen panels skip rendering (content-visibility), so inner_text
        # would read them as empty while screen readers and find-in-page still see them
        caption = page.locator(f"#fig-{n} [data-role=caption]").text_content() or ""
        assert caption.strip(), f"Figure {n} has no caption"


EDITS = [("x", 0, 1, 2.0), ("w_q", 2, 0, -1.0), ("w_k", 1, 3, 2.0), ("w_v", 0, 0, 3.0)]


@pytest.mark.parametrize(("matrix", "row", "col", "value"), EDITS)
def test_editing_a_cell_gives_the_engines_weights(
    page: Page, matrix: str, row: int, col: int, value: float
) -> None:
    set_cell(page, cell(matrix, row, col), str(int(value)))
    body = copy.deepcopy(RUNNING_EXAMPLE)
    body[matrix][row][col] = value
    stages = engine(body)
    assert np.allclose(weights_on_page(page), stages.head.weights, atol=1e-12)
    z_on_page = grid_values(page, 8, "output")
    assert np.allclose(z_on_page, stages.output, atol=1e-12)
    if matrix != "w_v":
        assert not np.allclose(stages.head.weights, EXPECTED["weights_exact"], atol=1e-3)


@pytest.mark.parametrize(
    ("scale", "mask", "key"),
    [(True, "none", None), (False, "none", "unscaled"), (True, "causal", "scaled_causal"),
     (False, "causal", "unscaled_causal")],
)  # fmt: skip
def test_scaling_and_causal_toggles_give_the_toggle_table(
    page: Page, scale: bool, mask: str, key: str | None
) -> None:
    if not scale:
        page.uncheck("#scale")
        wait_idle(page)
    if mask != "none":
        page.select_option("#mask", mask)
        wait_idle(page)
    want = SPEC["toggles_2dp"][key] if key else {
        "weights": EXPECTED["weights_2dp"], "output": EXPECTED["output_2dp"]}  # fmt: skip
    assert np.round(weights_on_page(page), 2).tolist() == want["weights"]
    assert np.round(np.array(grid_values(page, 8, "output")), 2).tolist() == want["output"]
    assert numbers(table(page, 8, "Z")).tolist() == want["output"]


def api_figures(server_url: str, body: dict[str, Any], view: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{server_url}/api/v1/figures",
        data=json.dumps({**body, "view": view}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())["figures"]


def assert_page_matches_api(page: Page, server_url: str, view: dict[str, Any]) -> None:
    """Every figure's caption, readout and tables on the page equal a fresh full request's."""
    for key, fig in api_figures(server_url, RUNNING_EXAMPLE, view).items():
        if not page.locator(f"#fig-{key}").count():
            continue
        # text_content, not inner_text: off-screen panels skip rendering (content-visibility)
        assert source_text(page, f"#fig-{key} [data-role=caption]") == fig["caption"]
        readout = source_texts(page, f"#fig-{key} [data-role=readout] li")
        assert readout == fig["readout"], f"Figure {key}'s readout is stale"
        cells = [t["cells"] for t in figure_tables(page, int(key))]
        assert cells == [t["cells"] for t in fig["tables"]], f"Figure {key} is stale"


def test_focus_token_changes_the_explained_row(page: Page, server_url: str) -> None:
    before = page.locator("#fig-6 [data-role=readout] li").first.text_content() or ""
    assert before.startswith("love")
    page.select_option("#focus", "0")
    wait_idle(page)
    after = page.locator("#fig-6 [data-role=readout] li").first.text_content() or ""
    assert after.startswith("I ")
    assert "0.58" in after
    assert [row[1] for row in table(page, 9, "z_1 (I)")] == ["1.21", "0.58", "0.21", "0.21"]
    assert "focus=0" in page.url
    assert_page_matches_api(page, server_url, {"focus": 0, "theme": "light"})
    page.check("input[name=row][value=focus]")
    wait_idle(page)
    page.select_option("#focus", "2")
    wait_idle(page)
    view = {"focus": 2, "theme": "light", "softmax_row": "focus"}
    assert_page_matches_api(page, server_url, view)


def test_padding_blocks_a_key_for_every_query(page: Page) -> None:
    page.check('input[data-padding="2"]')
    wait_idle(page)
    body = {**copy.deepcopy(RUNNING_EXAMPLE), "padding": [False, False, True]}
    weights = weights_on_page(page)
    assert np.allclose(weights, engine(body).head.weights, atol=1e-12)
    assert weights[:, 2].tolist() == [0, 0, 0]


def test_cross_attention_shows_two_by_four_weights(page: Page) -> None:
    page.select_option("#preset", "cross-attention")
    wait_idle(page)
    weights = weights_on_page(page)
    assert weights.shape == (2, 4)
    want = [[0.51, 0.19, 0.19, 0.11], [0.10, 0.46, 0.17, 0.28]]
    assert np.allclose(weights, want, atol=0.006)
    assert page.locator('input[data-matrix="source_x"]').count() == 16


def test_cross_attention_from_the_editor(page: Page) -> None:
    """Tick cross-attention, add a source token with (1, 1, 0, 1), drop the third query."""
    page.check("#cross")
    wait_idle(page)
    page.click("[data-action=add-source]")
    wait_idle(page)
    for col, text in enumerate(["1", "1", "0", "1"]):
        set_cell(page, cell("source_x", 3, col), text)
    page.click("[data-action=remove-token]")
    wait_idle(page)
    body = copy.deepcopy(RUNNING_EXAMPLE)
    body["tokens"], body["x"] = body["tokens"][:2], body["x"][:2]
    body["source"] = {"x": [*RUNNING_EXAMPLE["x"], [1, 1, 0, 1]]}
    assert np.allclose(weights_on_page(page), engine(body).head.weights, atol=1e-12)


def test_url_round_trip_restores_the_state(page: Page, server_url: str) -> None:
    set_cell(page, cell("x", 1, 2), "3")
    page.select_option("#mask", "causal")
    wait_idle(page)
    page.select_option("#focus", "2")
    wait_idle(page)
    page.select_option("#theme", "dark")
    wait_idle(page)
    url, weights = page.url, weights_on_page(page)
    state = parse_query(dict(parse_qsl(urlsplit(url).query)))
    assert (state.body["x"][1][2], state.body["mask"]) == (3, "causal")
    assert (state.view.focus, state.view.theme) == (2, "dark")
    open_page(page, server_url + "/")
    assert page.input_value(cell("x", 1, 2)) == "0"
    open_page(page, url)
    assert page.input_value(cell("x", 1, 2)) == "3"
    assert page.input_value("#mask") == "causal"
    assert page.input_value("#focus") == "2"
    assert page.input_value("#theme") == "dark"
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert np.allclose(weights_on_page(page), weights, equal_nan=True)
    assert page.url == url


def test_adding_and_removing_a_token_resizes_every_figure(page: Page) -> None:
    assert page.locator("input.token").count() == 3
    page.click('[data-action="add-token"]')
    wait_idle(page)
    assert page.locator("input.token").count() == 4
    weights = grid_values(page, 6, "weights")
    assert len(weights) == 4
    assert all(len(row) == 4 for row in weights)
    assert all(abs(sum(row) - 1) < 1e-12 for row in weights)  # the server's softmax rows
    page.click('[data-action="remove-token"]')
    wait_idle(page)
    assert page.locator("input.token").count() == 3
    assert len(grid_values(page, 6, "weights")) == 3
