"""The lab pages in Chromium: every entry A1–C4 responds to its controls and shows the
spec's anchors; keyboard use, links that reopen the same numbers, progress and Cancel,
the share toolbar, embeds, no console errors, dark mode, 375 px, axe-core."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_support import axe_violations
from page_helpers import (
    element_source_text,
    open_all_tables,
    open_page,
    scroll_still,
    source_text,
    wait_idle,
    wait_until,
)
from playwright.sync_api import BrowserContext, Page, Route, expect
from playwright.sync_api import Error as PlaywrightError

from app.attention import run
from app.figures.labs import LABS as REGISTRY
from app.inputs.body import AttentionRequest
from app.presets import get_preset

pytestmark = pytest.mark.browser

LABS = ("one-query", "step-by-step", "why-scale")


@pytest.fixture(scope="module")
def lab_page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    yield page
    page.close()


@pytest.fixture
def lab(lab_page: Page, server_url: str) -> Any:
    """open(path) opens a lab page and waits until every figure is drawn."""

    def open_lab(path: str) -> Page:
        lab_page.set_viewport_size({"width": 1280, "height": 900})
        lab_page.emulate_media(color_scheme="light")
        open_page(lab_page, server_url + path)
        return lab_page

    yield open_lab
    assert lab_page.errors == []  # type: ignore[attr-defined]


def caption(page: Page, fig: str) -> str:
    return source_text(page, f"#{fig} [data-role=caption]")


def table_cells(page: Page, fig: str, which: str = "primary-tables") -> list[list[str]]:
    rows = page.locator(f"#{fig} [data-role={which}] table").first.locator("tbody tr")
    return [r.locator("td").all_inner_texts() for r in rows.all()]


def commit(page: Page, selector: str, text: str) -> None:
    page.fill(selector, text)
    page.press(selector, "Enter")
    wait_idle(page)


# ---- one-query


def test_a1_anchor_and_scores_change_the_weights(lab: Any) -> None:
    page = lab("/labs/one-query")
    assert [r[2] for r in table_cells(page, "softmax-table")] == ["0.665", "0.245", "0.090"]
    commit(page, "#softmax-table--scores-0", "4")
    weights = [r[2] for r in table_cells(page, "softmax-table")]
    assert weights[0] != "0.665"
    assert "scores=4%2C1%2C0" in page.url or "scores=4,1,0" in page.url
    page.fill("#softmax-table--shift-range", "2")
    wait_idle(page)
    assert [r[2] for r in table_cells(page, "softmax-table")] == weights  # a common shift
    assert "shift=2" in page.url


def test_a1_keyboard_only(lab: Any) -> None:
    page = lab("/labs/one-query")
    page.focus("#softmax-table--values-2")
    page.keyboard.press("Control+a")
    page.keyboard.type("9")
    page.keyboard.press("Enter")
    wait_idle(page)
    assert table_cells(page, "softmax-table")[2][3] == "9.000"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "softmax-table--shift-range"
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    assert page.input_value("#softmax-table--shift") == "0.1"


def test_a2_asks_before_it_shows_then_answers(lab: Any) -> None:
    """A2 hides its chart and answer until a guess is checked (keyboard: a radio group
    and a Check button; the result in a status region), then follows q."""
    page = lab("/labs/one-query#alignment")
    for role in ("caption", "plot-box", "readout"):
        assert not page.is_visible(f"#alignment [data-role={role}]"), role
    page.click("#alignment [data-role=check]")  # no choice yet: asked to pick one
    assert "Pick one answer first" in source_text(page, "#alignment [data-role=result]")
    page.focus("#" + page.get_attribute('#alignment label[data-text="k_3 = (−1, 0)"]', "for"))
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.role") == "check"
    page.keyboard.press("Enter")
    result = source_text(page, "#alignment [data-role=result]")
    assert "You predicted k_3 = (−1, 0). It is k_1 = (1, 0)." in result
    assert "k_1 has the largest dot product with q, 1" in result
    assert page.is_visible("#alignment [data-role=plot-box]")
    assert "k_1 0.576" in caption(page, "alignment")
    commit(page, "#alignment--q-0", "0")
    commit(page, "#alignment--q-1", "1.5")
    assert "Now: k_2 = (0, 1)." in source_text(page, "#alignment [data-role=result]")
    assert "perpendicular" in source_text(page, "#alignment [data-role=readout]")


def test_a3_anchor_and_untied_values(lab: Any) -> None:
    page = lab("/labs/one-query#worked-query")
    assert [r[3] for r in table_cells(page, "worked-query")] == ["0.3369", "0.3019", "0.3611"]
    assert "√d_k = √3 = 1.7321" in source_text(page, "#worked-query [data-role=readout]")
    assert page.is_disabled("#worked-query--v-0-0")
    page.uncheck("#worked-query--tied")
    wait_idle(page)
    assert page.is_enabled("#worked-query--v-0-0")
    commit(page, "#worked-query--v-0-0", "2")
    zeta = page.locator("#worked-query [data-role=primary-tables] table").nth(1).inner_text()
    body = {**get_preset("who-is-the-best")["body"]}  # type: ignore[index]
    body["v"] = [[2, 0.5, 0.6], *body["v"][1:]]
    expected = run(AttentionRequest.model_validate(body).to_input()).output[0]
    assert "(" + ", ".join(f"{x:.4f}" for x in expected) + ")" in zeta


def test_a4_strength_moves_the_entropy(lab: Any) -> None:
    page = lab("/labs/one-query#discriminate")
    before = caption(page, "discriminate")
    assert "Commit" in before
    page.fill("#discriminate--c-range", "0.5")
    wait_idle(page)
    after = caption(page, "discriminate")
    assert after != before
    assert "Strength c = 0.5" in after
    assert page.locator("#discriminate table.grid td[data-row]").count() == 9


def test_a5_one_map_makes_scores_symmetric(lab: Any) -> None:
    page = lab("/labs/one-query#two-maps")
    badges = page.locator("#two-maps .grid-badge")
    expect(badges.first).to_have_text("not symmetric")
    page.select_option("#two-maps--maps", "one")
    wait_idle(page)
    expect(badges.first).to_have_text("symmetric")
    page.hover("#two-maps [data-grid=scores] td[data-row='0'][data-col='2']")
    mirror = page.locator("#two-maps [data-grid=scores] td[data-row='2'][data-col='0']")
    expect(mirror).to_have_class("used")


# ---- step-by-step


def step_count(page: Page) -> str:
    return page.inner_text("#stepper [data-role=step-count]")


def test_b1_rests_on_the_final_frame_and_steps_back_and_forward(lab: Any) -> None:
    page = lab("/labs/step-by-step")
    assert step_count(page) == "Step 5 of 5"  # idle: the final frame (no autoplay here)
    assert "0.196·[0, −1] + 0.804·[1, 2] = [0.804, 1.413]" in caption(page, "stepper")
    for _ in range(4):
        page.click("#stepper [data-step=back]")
    wait_idle(page)
    assert step_count(page) == "Step 1 of 5"
    assert "= −9 − 9 = −18" in caption(page, "stepper")
    assert "step=1" in page.url  # "step" is only B1's, so its key is bare
    derivation = source_text(page, "#stepper [data-role=derivation]")
    assert derivation == "Highlighted: s_22 = q_2·k_2 = 1·1 + 1·1 = 1 + 1 = 2"
    outlined = page.locator("#stepper [data-grid=scores] td.cell-outlined")
    assert outlined.count() == 1
    assert (outlined.get_attribute("data-row"), outlined.get_attribute("data-col")) == ("1", "1")
    page.click("#stepper [data-step=forward]")
    wait_idle(page)
    assert "√2 ≈ 1.414, giving the scaled rows [−12.73, 0] and [0, 1.414]" in caption(
        page, "stepper"
    )
    page.click("#stepper [data-step=forward]")
    wait_idle(page)
    assert "token 1 (row 1) is [−12.73, −∞], with weights [1, 0]" in caption(page, "stepper")
    ghost = page.locator("#stepper [data-grid=ghost] td[data-row]")
    # row 1 unmasked: its tiny weight is not rounded into a 0 nor its large one into a 1
    assert ghost.all_inner_texts() == ["3.0 × 10⁻⁶", ">0.9999"]
    page.select_option("#stepper--mask", "none")
    wait_idle(page)
    assert page.locator("#stepper [data-grid=ghost]").count() == 0
    assert step_count(page) == "Step 3 of 5"  # a toggle keeps the step


def test_b1_play_and_replay_end_on_the_final_frame(
    context: BrowserContext, server_url: str
) -> None:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.clock.install()  # the player's ticks run on the test's clock, not the wall's
    try:
        open_page(page, server_url + "/labs/step-by-step?step=2")
        assert step_count(page) == "Step 2 of 5"  # a link's step is kept, not autoplayed
        page.click("#stepper [data-step=replay]")
        assert step_count(page) == "Step 1 of 5"
        assert page.get_attribute("#stepper [data-step=play]", "aria-pressed") == "true"
        page.clock.run_for(1400)
        assert step_count(page) == "Step 2 of 5"
        page.click("#stepper [data-step=play]")  # pause: the frame shown is recorded
        wait_idle(page)
        assert page.get_attribute("#stepper [data-step=play]", "aria-pressed") == "false"
        page.click("#stepper [data-step=play]")
        page.clock.run_for(1400 * 5)
        wait_idle(page)
        assert step_count(page) == "Step 5 of 5"
        assert page.inner_text("#stepper [data-step=play]") == "▶ Play"
        assert "step=" not in page.url  # the final frame is the default state
        assert errors == []
    finally:
        page.close()


def step_slider(page: Page) -> tuple[str, str, str]:
    """B1's step slider: (position, the label beside it, its aria-valuetext)."""
    slider = page.locator("#stepper--step")
    label = page.inner_text("#stepper [data-control=step] output")
    return slider.input_value(), label, slider.get_attribute("aria-valuetext") or ""


@contextlib.contextmanager
def b1_at_its_first_frame(browser: Any, server_url: str) -> Iterator[Page]:
    """Lab B1 with motion welcome (so it autoplays) and a fake clock, on frame 1 of 5."""
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900}, reduced_motion="no-preference"
    )
    page = ctx.new_page()
    page.clock.install()
    try:
        open_page(page, server_url + "/labs/step-by-step#stepper")
        expect(page.locator("#stepper [data-role=step-count]")).to_have_text("Step 1 of 5")
        yield page
    finally:
        ctx.close()


def test_b1_step_slider_follows_the_playing_frame(browser: Any, server_url: str) -> None:
    """Issue 10: while the player plays (by itself, then by Play and Replay) the step
    slider and its label move with the frame shown, not only when the player stops."""
    with b1_at_its_first_frame(browser, server_url) as page:
        seen = [step_slider(page)]
        for n in range(2, 5):  # autoplay: each tick is a frame, and the slider follows
            page.clock.run_for(1400)
            expect(page.locator("#stepper [data-role=step-count]")).to_have_text(f"Step {n} of 5")
            seen.append(step_slider(page))
        assert [position for position, _, _ in seen] == ["0", "1", "2", "3"]
        assert len({label for _, label, _ in seen}) == 4  # a new label for each frame
        assert all(label == text for _, label, text in seen)  # read out as shown
        page.clock.run_for(1400 * 2)
        wait_idle(page)
        assert step_slider(page)[0] == "4"
        assert "step=" not in page.url  # ended on the default frame: nothing to record
        page.click("#stepper [data-step=replay]")
        assert step_slider(page)[0] == "0"
        page.clock.run_for(1400)
        assert step_slider(page)[0] == "1"
        page.click("#stepper [data-step=play]")  # pause on frame 2: recorded once
        wait_idle(page)
        assert step_slider(page) == seen[1]
        assert "step=2" in page.url
        assert page.get_attribute("#stepper [data-step=play]", "aria-pressed") == "false"


def test_b1_plays_once_in_view_when_motion_is_welcome(browser: Any, server_url: str) -> None:
    with b1_at_its_first_frame(browser, server_url) as page:
        assert page.get_attribute("#stepper [data-step=play]", "aria-pressed") == "true"
        page.clock.run_for(1400 * 5)
        expect(page.locator("#stepper [data-role=step-count]")).to_have_text("Step 5 of 5")
        assert page.get_attribute("#stepper [data-step=play]", "aria-pressed") == "false"


def test_b1_any_length_up_to_8(lab: Any) -> None:
    page = lab("/labs/step-by-step")
    page.select_option("#stepper--L", "5")
    wait_idle(page)
    assert page.locator("#stepper [data-control=q] tbody tr").count() == 5
    assert page.inner_text("#stepper [data-control=q] tbody tr:nth-child(5) th") == "token 5"
    assert page.locator("#stepper [data-grid=output] tbody tr").count() == 5
    assert "L=5" in page.url
    commit(page, "#stepper--q-4-0", "-4")  # a new row is editable and travels in the URL
    assert "q=3%2C-3%3B1%2C1%3B2%2C0%3B0%2C2%3B-4%2C1" in page.url
    assert page.input_value("#stepper--q-4-0") == "-4"
    page.click("#stepper [data-step=back]")
    wait_idle(page)
    assert page.locator("#stepper [data-grid=weights] tbody tr").count() == 5
    page.select_option("#stepper--L", "2")
    wait_idle(page)
    assert page.locator("#stepper [data-control=q] tbody tr").count() == 2
    assert "q=" not in page.url  # back to the preset's own two rows


def test_b2_position_and_mask(lab: Any) -> None:
    page = lab("/labs/step-by-step#per-position")
    assert "LLMs (row 3) reads 3 of 3 keys" in caption(page, "per-position")
    # the rows are named by their tokens once the state is drawn; the URL counts from 0
    options = page.locator("#per-position--focus option:not([hidden])").all_inner_texts()
    assert options == ["I (row 1)", "love (row 2)", "LLMs (row 3)"]
    page.select_option("#per-position--focus", "1")
    wait_idle(page)
    page.select_option("#per-position--mask", "causal")
    wait_idle(page)
    assert "love (row 2) reads 2 of 3 keys" in caption(page, "per-position")
    outlined = page.locator("#per-position [data-grid=scores] td.cell-outlined")
    assert outlined.count() == 2


def test_b2_on_the_cross_attention_preset(lab: Any) -> None:
    page = lab("/labs/step-by-step?preset=cross-attention&per-position.focus=1#per-position")
    assert "L_Q × L_K = 2 × 4, not square" in caption(page, "per-position")


# ---- why-scale


def test_c1_slider_previews_then_refines(lab: Any) -> None:
    page = lab("/labs/why-scale")
    assert "20,000 draws of s = q·k at d_k = 64" in caption(page, "score-histogram")
    page.focus("#score-histogram--dk")
    page.keyboard.press("ArrowRight")  # input (preview) then change (full run)
    wait_idle(page)
    text = caption(page, "score-histogram")
    assert "at d_k = 128" in text
    assert "preview" not in text.lower()
    assert "score-histogram.dk=128" in page.url
    page.check("#score-histogram--scale")
    wait_idle(page)
    assert "against the N(0, 1) curve" in caption(page, "score-histogram")
    quotes = source_text(page, "#score-histogram [data-role=quotes]")
    assert "The course module “Attention” measured" in quotes
    assert "This run measured" in quotes


def test_c1_reproduce_the_module(lab: Any) -> None:
    page = lab("/labs/why-scale?reproduce=1")
    page.click("#score-histogram details.tables summary")  # tables are built when opened
    rows = page.locator("#score-histogram details.tables table tbody tr")
    # The tables are built on the details' toggle event, a task after the click: wait.
    expect(rows).to_have_count(4)
    assert "200,000 draws" in caption(page, "score-histogram")


def test_c2_progress_and_cancel(lab: Any) -> None:
    page = lab("/labs/why-scale#saturation")
    assert "35 %" in source_text(page, "#saturation [data-role=quotes]")
    assert "34.6 %" in caption(page, "saturation")  # this run, seed 0
    before = caption(page, "saturation")
    held: list[Route] = []  # the run's answer is held back, so Cancel always comes first

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/labs/why-scale/figures.ndjson*", hold)
    try:
        page.fill("#saturation--trials", "6")  # 10,000 trials
        page.dispatch_event("#saturation--trials", "change")
        progress = page.locator("#saturation [data-role=progress]")
        progress.wait_for(state="visible", timeout=5000)
        page.click("#saturation [data-action=cancel]")
        wait_idle(page)
        assert progress.is_hidden()
        assert caption(page, "saturation") == before
        assert "cancelled" in page.inner_text("#announce").lower()
    finally:
        page.unroute("**/labs/why-scale/figures.ndjson*")
        for route in held:  # the cancelled fetch has usually released it already
            with contextlib.suppress(PlaywrightError):
                route.abort()


def test_c2_a_large_run_completes_and_hides_the_bar(lab: Any) -> None:
    page = lab("/labs/why-scale?trials=10000&saturation.keys=512#saturation")
    assert "10,000 trials at d_k = 128 with 512 keys" in caption(page, "saturation")
    assert page.locator("#saturation [data-role=progress]").is_hidden()


def test_c2_share_against_log2_dk_chart_and_its_table(lab: Any) -> None:
    page = lab("/labs/why-scale#saturation")
    traces = page.evaluate(
        "() => document.querySelector('#saturation .js-plotly-plot').data"
        ".filter(t => t.xaxis === 'x3').map(t => t.x.length)"
    )
    assert traces == [7, 7]
    page.click("#saturation details.tables summary")  # the table alternative
    sweep = page.locator("#saturation details.tables table").nth(1)
    expect(sweep.locator("tbody tr")).to_have_count(7)  # built on toggle, a task later
    assert element_source_text(sweep.locator("tbody tr").first.locator("th")) == "d_k = 16"
    assert "the scaled share is at most 0.0 %" in caption(page, "saturation")
    page.uncheck("#saturation--sweep")
    wait_idle(page)
    assert page.locator("#saturation details.tables table").count() == 1
    assert "sweep=0" in page.url


def test_c3_widths_change_the_table(lab: Any) -> None:
    page = lab("/labs/why-scale#scaling-table")
    assert len(table_cells(page, "scaling-table")) == 5
    page.uncheck("#scaling-table [data-control=dks] input[value='1024']")
    wait_idle(page)
    assert len(table_cells(page, "scaling-table")) == 4
    assert "dks=4%2C16%2C64%2C256" in page.url or "dks=4,16,64,256" in page.url


def test_c4_width_moves_the_marker(lab: Any) -> None:
    page = lab("/labs/why-scale#flat-line")
    assert "0.665, 0.245, 0.090 at every width" in caption(page, "flat-line")
    page.focus("#flat-line--d")
    page.keyboard.press("End")
    wait_idle(page)
    assert "At d = 1024" in caption(page, "flat-line")
    assert "e^20 ≈ 4.852 × 10⁸" in source_text(page, "#flat-line [data-role=readout]")


# ---- across pages


def test_a_link_reopens_the_same_numbers(lab: Any, server_url: str) -> None:
    page = lab("/labs/why-scale")
    commit(page, "#score-histogram--seed", "11")
    first = caption(page, "score-histogram")
    url = page.url
    page.goto("about:blank")
    open_page(page, url)
    assert caption(page, "score-histogram") == first
    assert page.input_value("#score-histogram--seed") == "11"


def test_share_toolbar_link_embed_and_numpy(lab: Any, server_url: str) -> None:
    page = lab("/labs/why-scale?trials=1000#saturation")
    page.click("#saturation [data-share=link]")
    expect(page.locator("#saturation [data-role=share-status]")).to_contain_text("copied")
    link = page.evaluate("navigator.clipboard.readText()")
    # the figure in the query (what the server and an oEmbed client see) and the fragment
    assert link == f"{server_url}/labs/why-scale?trials=1000&figure=saturation#saturation"
    page.click("#saturation [data-share=embed]")
    expect(page.locator("#saturation [data-role=share-status]")).to_contain_text("Embed code")
    snippet = page.evaluate("navigator.clipboard.readText()")
    assert f'src="{server_url}/embed/labs/why-scale/saturation?trials=1000"' in snippet
    page.click("#saturation [data-share=numpy]")
    expect(page.locator("#saturation [data-role=share-status]")).to_contain_text("NumPy")
    script = page.evaluate("navigator.clipboard.readText()")
    assert "import numpy" in script
    assert "'trials': 1000" in script
    with page.expect_download() as download:
        page.click("#saturation [data-share=png]")
    assert download.value.suggested_filename == "attention-lab-saturation.png"


def test_a_lab_link_naming_its_figure_reopens_scrolled_to_it(lab: Any, server_url: str) -> None:
    """``?figure=<name>`` alone (a link whose fragment was lost) opens at the figure, and
    the address keeps naming it as the controls change; an unknown one opens at the top."""
    page = lab("/labs/why-scale?trials=1000&figure=flat-line")
    top = page.evaluate("document.getElementById('flat-line').getBoundingClientRect().top")
    assert page.evaluate("window.scrollY") > 500
    assert 0 <= top < 120, top
    commit(page, "#score-histogram--seed", "11")
    wait_until(page, "() => /seed=11/.test(location.search)")
    assert "figure=flat-line" in page.url
    assert page.url.endswith("#flat-line")
    page = lab("/labs/why-scale?figure=nope")
    assert page.evaluate("window.scrollY") < 50
    expect(page.locator("#main")).to_contain_text("figure: the lab")


@pytest.mark.parametrize(
    ("path", "fig"), [("/labs/step-by-step", "per-position"), ("/labs/one-query", "two-maps")]
)
def test_grids_only_figures_save_png_svg_and_html(lab: Any, path: str, fig: str) -> None:
    page = lab(f"{path}#{fig}")
    for kind in ("png", "svg"):
        with page.expect_download() as download:
            page.click(f"#{fig} [data-share={kind}]")
        assert download.value.suggested_filename == f"attention-lab-{fig}.{kind}"
    svg = download.value.path().read_text()
    assert svg.startswith("<svg")  # the server's SVG of the grids, laid out for its size
    with page.expect_download() as download:
        page.click(f"#{fig} [data-share=html]")
    lab_id = path.rsplit("/", 1)[1]
    assert download.value.suggested_filename == f"attention-lab-{lab_id}-{fig}.html"
    assert f'<section id="{fig}"' in download.value.path().read_text()


def test_b1_embed_has_the_player(lab_page: Page, server_url: str) -> None:
    open_page(lab_page, f"{server_url}/embed/labs/step-by-step/stepper?step=4")
    assert lab_page.inner_text("[data-role=step-count]") == "Step 4 of 5"
    lab_page.click("[data-step=back]")
    assert lab_page.inner_text("[data-role=step-count]") == "Step 3 of 5"
    assert "[−12.73, −∞]" in lab_page.inner_text("[data-role=caption]")
    assert lab_page.errors == []  # type: ignore[attr-defined]


def test_embed_with_controls_recomputes_on_the_server(lab_page: Page, server_url: str) -> None:
    open_page(lab_page, f"{server_url}/embed/labs/one-query/softmax-table?controls=1")
    assert "0.665" in lab_page.inner_text("[data-role=primary-tables]")
    commit(lab_page, "#softmax-table--scores-0", "0")  # scores (0, 1, 0)
    assert "0.576" in lab_page.inner_text("[data-role=primary-tables]")
    assert "scores=0%2C1%2C0" in lab_page.get_attribute("#open-link", "href")  # type: ignore[operator]
    commit(lab_page, "#softmax-table--scores-1", "99")
    assert lab_page.locator("[data-role=error]").is_visible()
    assert "scores" in lab_page.inner_text("[data-role=error]")
    errors = lab_page.errors  # type: ignore[attr-defined]
    assert [e for e in errors if "422" not in e] == []  # the refused value's fetch, only
    errors.clear()
    open_page(lab_page, f"{server_url}/embed/labs/step-by-step/stepper?controls=1")
    lab_page.select_option("#stepper--L", "3")
    wait_idle(lab_page)
    assert lab_page.locator("[data-grid=output] tbody tr").count() == 3
    lab_page.click("[data-step=back]")  # the settled frame becomes the step control
    wait_idle(lab_page)
    assert lab_page.inner_text("[data-role=step-count]") == "Step 4 of 5"
    assert lab_page.input_value("#stepper--step") == "3"
    assert lab_page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("figure", ["one-query/softmax-table", "step-by-step/stepper",
                                    "why-scale/score-histogram"])  # fmt: skip
def test_embeds_draw_with_no_console_errors(lab_page: Page, server_url: str, figure: str) -> None:
    open_page(lab_page, f"{server_url}/embed/labs/{figure}")
    assert lab_page.locator("[data-role=caption]").inner_text()
    assert lab_page.locator(".js-plotly-plot, table.grid").count() >= 1
    assert lab_page.errors == []  # type: ignore[attr-defined]


def _axe(page: Page) -> list[dict[str, Any]]:
    open_all_tables(page, "details")  # every <details>, once each has toggled
    assert page.locator("details.tables table.data-table").count() >= 1  # built when opened
    return axe_violations(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lab_id", LABS)
def test_axe_dark_mode_and_phone_width(
    lab: Any, lab_page: Page, server_url: str, lab_id: str, scheme: str, artifacts: Path
) -> None:
    # Opened once, already in the scheme (``lab`` opens light: the dark case reloaded).
    page = lab_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    open_page(page, f"{server_url}/labs/{lab_id}")
    assert page.evaluate("document.documentElement.dataset.theme") == scheme
    bad = _axe(page)
    summary = [
        (v["id"], [(n["target"], n.get("failureSummary")) for n in v["nodes"][:3]]) for v in bad
    ]
    assert bad == [], summary
    page.set_viewport_size({"width": 375, "height": 800})
    page.reload()
    wait_idle(page)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{lab_id} scrolls sideways by {overflow} px at 375 px"
    # Chart texts show the notation as Plotly's sub/superscripts, none as typed (p_max, √d_k).
    raw = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot text')].map(t => t.textContent)"
        ".filter(t => /[A-Za-z]_[A-Za-z0-9]|[A-Za-z0-9]\\^|√d_/.test(t))"
    )
    assert raw == [], raw
    page.screenshot(path=str(artifacts / f"lab-{lab_id}-{scheme}-375.png"), full_page=True)


def test_index_and_404(lab_page: Page, server_url: str) -> None:
    open_page(lab_page, server_url + "/labs")
    cards = lab_page.locator(".lab-card")
    assert cards.count() == len(REGISTRY)  # ten: the rotary lab is the last
    coming = sum(lab.status == "coming" for lab in REGISTRY)
    assert lab_page.locator(".lab-card[data-status=coming]").count() == coming
    lab_page.click(".lab-card[data-lab=why-scale] h2 a")  # "Why scale by √d_k", in MathML
    wait_idle(lab_page)
    assert lab_page.url.endswith("/labs/why-scale")
    response = lab_page.goto(server_url + "/labs/nope")
    assert response is not None
    assert response.status == 404
    assert lab_page.errors == [
        "Failed to load resource: the server responded with a status of 404 (Not Found)"
    ]  # type: ignore[attr-defined]
    lab_page.errors.clear()  # type: ignore[attr-defined]


PIXEL_JS = """([x, y]) => { const p = document.querySelector('#alignment .js-plotly-plot');
  const fl = p._fullLayout; const r = p.getBoundingClientRect();
  return [r.left + fl.xaxis._offset + fl.xaxis.l2p(x),
          r.top + fl.yaxis._offset + fl.yaxis.l2p(y)]; }"""

# True once the point sits where it sat one animation frame ago (polled every frame).
PIXEL_STILL_JS = (
    "([x, y]) => { const at = JSON.stringify(("
    + PIXEL_JS
    + ")([x, y])); const still = at === window.__pixelAt; window.__pixelAt = at; return still; }"
)
Q_NEAR_JS = """([x, y]) => {
  const at = (i) => Number(document.getElementById(`alignment--q-${i}`).value);
  return Math.abs(at(0) - x) <= 0.1 && Math.abs(at(1) - y) <= 0.1;
}"""


def test_a2_drag_the_tip_of_q(lab: Any) -> None:
    page = lab("/labs/one-query#alignment")
    # the chart shows after a guess
    page.check("#" + page.get_attribute('#alignment label[data-text="k_1 = (1, 0)"]', "for"))
    page.click("#alignment [data-role=check]")
    # the chart, below the question, in view (the section is taller than the window)
    page.locator("#alignment .js-plotly-plot").scroll_into_view_if_needed()
    # the chart was drawn hidden and is fitted to its box once shown (after Plotly's own
    # timer: data-fit="done"), then the scroll settles and the point stays where it is
    page.wait_for_selector("#alignment [data-role=plot][data-fit=done]", state="attached")
    scroll_still(page)
    wait_until(page, PIXEL_STILL_JS, [1, 0])
    start = page.evaluate(PIXEL_JS, [1, 0])
    end = page.evaluate(PIXEL_JS, [0, 1.5])
    page.mouse.move(start[0] - 1, start[1])
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=4)
    page.mouse.move(end[0], end[1], steps=4)
    page.mouse.up()
    wait_until(page, Q_NEAR_JS, [0, 1.5])  # the drag's last move has reached the inputs
    wait_idle(page)
    x, y = float(page.input_value("#alignment--q-0")), float(page.input_value("#alignment--q-1"))
    assert abs(x) <= 0.1
    assert abs(y - 1.5) <= 0.1
    assert round(x / 0.05, 6).is_integer()  # snapped onto the 0.05 grid by the server
    assert "Now: k_2 = (0, 1)." in source_text(page, "#alignment [data-role=result]")
