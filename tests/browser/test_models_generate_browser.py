"""The model page's generation mode in Chromium (SmolLM2, skipped when it is not
installed), at 1440 and 375 px in light and dark: a link opens it, the tokens added are
the API's, the picked head's new query rows are the API's weights with their numbers
printed and the keys not added yet hatched, the cache's bytes grow as the API says, the
check against recomputing everything is stated; by keyboard a seeded sample, one token
more (said by the live region, kept in the URL) and another head; no console error, no
sideways scroll, axe finds nothing serious; screenshots."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
from axe_support import axe_violations, summary
from models_support import needs_smollm2
from playwright.sync_api import Browser, Page, expect

pytestmark = [pytest.mark.browser, needs_smollm2]

PROMPT = "The capital of France is"
API = "/api/v1/models/smollm2/generate"


def generated(page: Page, count: int) -> None:
    page.locator(f"#generation[data-generated='{count}'][aria-busy='false']").wait_for(
        state="attached", timeout=120_000
    )


def api(page: Page, server_url: str, steps: int, seed: int | None = None) -> Any:
    body: dict[str, Any] = {"text": PROMPT, "steps": steps, "seed": seed}
    r = page.request.post(f"{server_url}{API}", data=body, timeout=120_000)
    assert r.ok, r.text()
    return r.json()


def drawn_rows(page: Page, grid: str) -> list[list[Any]]:
    return page.locator(f"#gen-grid [data-grid='{grid}'] td[data-row]").evaluate_all(
        "tds => tds.map(t => [Number(t.dataset.row), Number(t.dataset.col),"
        " Number(t.dataset.value), t.textContent, t.classList.contains('masked')])"
    )


def check_drawn(page: Page, out: Any, layer: int, head: int) -> None:
    """The tokens, the head's rows, the cache column and the check: the API's numbers."""
    prompt = ["The", " capital", " of", " France", " is"]
    added = [s["token"].replace("\n", "⏎") for s in out["steps"]]
    expect(page.locator("#gen-tokens li")).to_have_text(prompt + added)
    assert page.locator("#gen-tokens li.added").count() == len(added)
    cells = drawn_rows(page, f"weights-gen-l{layer + 1}h{head + 1}")
    assert len(cells) == len(added) * (5 + len(added))
    for i, j, value, text, masked in cells:
        p = out["steps"][i]["position"]
        if j <= p:
            assert value == pytest.approx(out["steps"][i]["weights"][layer][head][j], abs=1e-6)
            assert re.fullmatch(r"0|1|0\.\d\d", text), text
            assert not masked
        else:  # a key not added yet at that step: the causal mask's cell, hatched
            assert (value, text, masked) == (0, "0", True)
    rows = page.locator("#gen-table tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(c => c.textContent))"
    )
    assert [r[3] for r in rows] == [f"{s['cache_bytes']:,} bytes" for s in out["steps"]]
    assert [r[2] for r in rows] == [str(s["position"] + 1) for s in out["steps"]]
    check = page.locator("#gen-check").inner_text()
    power = r"\d\.\d × 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
    assert re.search(rf"to within {power} \(the largest \|difference\|", check), check


@pytest.mark.parametrize(
    ("scheme", "width"), [("light", 1440), ("dark", 1440), ("light", 375), ("dark", 375)]
)
def test_generation_mode_layouts_numbers_and_keyboard(
    browser: Browser, server_url: str, artifacts: Path, scheme: str, width: int
) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                              reduced_motion="reduce")  # fmt: skip
    try:
        page = ctx.new_page()
        page.set_default_timeout(120_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server_url}/models/smollm2?text={quote(PROMPT)}&steps=3")
        generated(page, 1)
        greedy = api(page, server_url, 3)
        assert greedy["steps"][0]["token"] == " Paris"
        check_drawn(page, greedy, 0, 0)
        assert page.locator("#gen-announce").inner_text().startswith("Added 3 tokens: “ Paris”")
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"scrolls sideways at {width} px: {scroll}"
        page.locator("#generation").screenshot(
            path=str(artifacts / f"model-generate-{scheme}-{width}.png")
        )
        if width == 375:
            assert errors == [], errors
            return

        # by keyboard: a seeded sample of 3, then one token more, then another head
        page.locator("input[name=pick][value=sample]").focus()
        page.keyboard.press("Space")
        page.locator("#gen-seed").focus()
        page.keyboard.press("Control+a")
        page.keyboard.type("7")
        page.keyboard.press("Enter")  # submits the form
        generated(page, 2)
        sampled = api(page, server_url, 3, seed=7)
        check_drawn(page, sampled, 0, 0)
        page.wait_for_function("() => /[?&]steps=3&seed=7$/.test(location.search)")
        page.locator("#gen-more").focus()
        page.keyboard.press("Enter")
        generated(page, 3)
        four = api(page, server_url, 4, seed=7)
        check_drawn(page, four, 0, 0)
        added = four["steps"][3]["token"].replace("\n", "⏎")
        said = page.locator("#gen-announce").inner_text()
        assert said.startswith(f"Step 4: added “{added}” as token 9; ")
        assert f"the cache is now {four['steps'][3]['cache_bytes']:,} bytes" in said
        page.wait_for_function("() => /[?&]steps=4&seed=7$/.test(location.search)")
        sizes = [s["cache_bytes"] for s in four["steps"]]
        assert np.all(np.diff(sizes) == four["bytes_per_token"])  # the cache grows a token
        page.locator("#gen-layer").focus()
        page.keyboard.press("End")  # layer 30
        generated(page, 4)
        page.locator("#gen-head").select_option(index=4)  # head 5 (its label "5", its value "4")
        generated(page, 5)
        check_drawn(page, four, 29, 4)
        assert page.locator("#head-title").inner_text() == "Layer 30, head 5"
        words = page.locator("#gen-head-words").inner_text()
        assert words.startswith("Layer 30, head 5 reads key/value head 2")
        page.screenshot(path=str(artifacts / f"model-generate-page-{scheme}.png"), full_page=True)
        assert errors == [], errors
        bad = axe_violations(page)
        assert bad == [], summary(bad)
    finally:
        ctx.close()
