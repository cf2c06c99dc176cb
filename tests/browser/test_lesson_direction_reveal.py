"""A direction question's reveal shows what changed (issue 28 item 3): "Why divide by √d_k"
step 2 asks which way love's entropy moves when scaling is turned on; once checked, the
step shows its state ("Before") and the changed state ("After the change") that the server
computed, each outlining the row asked about. Out of sight before the prediction; the
same in the site's player (1440 and 375 px, light and dark), the embed and the offline
file (which the SCORM packages carry)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lesson_files import open_offline
from page_helpers import lesson_from_the_start
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

# Each state's outlined row of Figure 6 (the row asked about) and its entropy readout.
STATES = """() => [...document.querySelectorAll(
    ".lesson-step-figures:not(.lesson-away) [data-state]")].map((box) => ({
  state: box.dataset.state,
  row: [...box.querySelectorAll("tr.outlined td")].map((td) => td.textContent.trim()),
  readout: [...box.querySelectorAll(".readout li")].map((li) => li.textContent).join(" | "),
}))"""


def predict_and_check(page: Page) -> list[dict[str, object]]:
    lesson_from_the_start(page)
    page.locator("[data-next]").click()
    page.locator("#lesson-player[data-rendered='1']").wait_for(state="attached")
    after = page.locator(".lesson-step-figures:not(.lesson-away) [data-after]")
    expect(after).to_have_count(1)
    expect(after).to_be_hidden()  # the change is not shown before the prediction
    page.get_by_role("radio", name="up").check()
    page.locator("[data-commit]").click()
    expect(page.locator("[data-reveal]")).to_contain_text("It is up: 0.76 bits → 1.31 bits")
    expect(after).to_be_visible()
    expect(after).to_contain_text("After the change")
    states: list[dict[str, object]] = page.evaluate(STATES)
    return states


def assert_before_and_after(states: list[dict[str, object]]) -> None:
    assert [s["state"] for s in states] == ["before", "after"]
    before, after = states
    assert before["row"], states  # row 2 outlined in both
    assert after["row"], states
    assert before["row"] != after["row"]  # the weights the learner predicted moved
    assert "entropy 0.76 bits" in str(before["readout"])
    assert "entropy 1.31 bits" in str(after["readout"])


@pytest.fixture
def sized(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    width, scheme = request.param
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    assert errors == []
    context.close()


@pytest.mark.parametrize(
    "sized",
    [(1440, "light"), (1440, "dark"), (375, "light"), (375, "dark")],
    indirect=True,
    ids=lambda p: f"{p[0]}px-{p[1]}",
)
def test_the_player_draws_before_and_after(
    sized: Page, server_url: str, artifacts: Path, request: pytest.FixtureRequest
) -> None:
    sized.goto(f"{server_url}/lessons/why-scale")
    assert_before_and_after(predict_and_check(sized))
    width = sized.viewport_size["width"] if sized.viewport_size else 0
    overflow = sized.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at {width} px"
    name = request.node.callspec.id.replace("sized", "").strip("-")
    sized.locator("[data-after]").last.scroll_into_view_if_needed()
    sized.screenshot(path=str(artifacts / f"lesson-direction-{name}.png"))


@pytest.mark.parametrize("sized", [(1440, "light")], indirect=True, ids=["1440px"])
def test_the_embed_draws_before_and_after(sized: Page, server_url: str) -> None:
    sized.goto(f"{server_url}/embed/lesson/why-scale")
    assert_before_and_after(predict_and_check(sized))


@pytest.mark.parametrize("sized", [(1440, "light")], indirect=True, ids=["1440px"])
def test_the_offline_file_draws_before_and_after(sized: Page, tmp_path: Path) -> None:
    # The SCORM packages carry this same document (app/export/scorm.py).
    _, requests = open_offline(sized, tmp_path, "why-scale")
    assert_before_and_after(predict_and_check(sized))
    assert all(url.startswith("file://") for url in requests), requests
