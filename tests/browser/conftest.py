"""Browser-test fixtures: a live uvicorn server on a free port and one Chromium per session.

Chromium is found at $CHROMIUM_PATH, then ``chromium`` / ``chromium-browser`` on PATH,
then Playwright's own download. With none of them the tests FAIL (never skip) and say
how to get one. Pages are reused across tests (``page`` reloads the app) to stay fast.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_helpers import open_page
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    expect,
    sync_playwright,
)
from server_support import free_port, serving

expect.set_options(timeout=30_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]  # fmt: skip
NO_CHROMIUM = (
    "No Chromium found for the browser tests. Install one (Debian/Ubuntu: "
    "`apt-get install chromium`), or point $CHROMIUM_PATH at a Chromium binary, or run "
    "`python -m playwright install chromium` where downloads are allowed."
)


def find_chromium(playwright: Playwright) -> str:
    """$CHROMIUM_PATH, then chromium / chromium-browser on PATH, then Playwright's build."""
    candidates = [os.environ.get("CHROMIUM_PATH"), shutil.which("chromium"),
                  shutil.which("chromium-browser")]  # fmt: skip
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    bundled = playwright.chromium.executable_path
    if bundled and Path(bundled).exists():
        return bundled
    pytest.fail(NO_CHROMIUM, pytrace=False)


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port),
               "--log-level", "warning"]  # fmt: skip
    with serving("uvicorn", command, port) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        executable = find_chromium(playwright)
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def context(browser: Browser) -> Iterator[BrowserContext]:
    # Reduced motion: Figure 3 stays on its final frame (it would otherwise play once).
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", reduced_motion="reduce"
    )
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    # Every wait is on a condition: a long bound costs nothing when it comes, and a loaded
    # two-core machine needs more than Playwright's 30 s (locators) and 5 s (expect).
    ctx.set_default_timeout(60_000)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def shared_page(context: BrowserContext) -> Page:
    return context.new_page()


@pytest.fixture
def page(shared_page: Page, server_url: str) -> Page:
    """The shared page, opened afresh on the running example with every figure drawn."""
    open_page(shared_page, server_url + "/")
    return shared_page


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
