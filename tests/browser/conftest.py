"""Browser-test fixtures: a live uvicorn server on a free port and one Chromium per session.

Chromium is found at $CHROMIUM_PATH, then ``chromium`` / ``chromium-browser`` on PATH,
then Playwright's own download. With none of them the tests FAIL (never skip) and say
how to get one. Pages are reused across tests (``page`` reloads the app) to stay fast.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_until_up(url: str, process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server at {url} did not start within {timeout} s")


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port),
               "--log-level", "warning"]  # fmt: skip
    env = {**os.environ, "ATTENTION_LAB_LOG_LEVEL": "warning"}
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        executable = find_chromium(playwright)
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class ConsoleLog:
    """Console errors and uncaught exceptions seen by a page."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def attach(self, page: Page) -> None:
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))


@pytest.fixture(scope="session")
def context(browser: Browser) -> Iterator[BrowserContext]:
    # Reduced motion: Figure 3 stays on its final frame (it would otherwise play once).
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", reduced_motion="reduce"
    )
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def shared_page(context: BrowserContext) -> tuple[Page, ConsoleLog]:
    page = context.new_page()
    log = ConsoleLog()
    log.attach(page)
    return page, log


@pytest.fixture
def console(shared_page: tuple[Page, ConsoleLog]) -> ConsoleLog:
    return shared_page[1]


@pytest.fixture
def page(shared_page: tuple[Page, ConsoleLog], server_url: str) -> Page:
    """The shared page, opened afresh on the running example with every figure drawn."""
    page = shared_page[0]
    open_page(page, server_url + "/")
    return page


def open_page(page: Page, url: str) -> None:
    page.goto(url)
    wait_idle(page)


def wait_idle(page: Page, timeout: float = 15_000) -> None:
    """Wait until <main aria-busy="false">: every figure shows the latest state."""
    page.wait_for_function(
        "document.querySelector('main').getAttribute('aria-busy') === 'false'", timeout=timeout
    )


def figure_data(page: Page, n: int) -> Any:
    """The `data` of the Plotly graph inside #fig-n."""
    return page.evaluate(f"document.querySelector('#fig-{n} .js-plotly-plot').data")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# Opens the figure's "as tables" section (tables are built when opened), then reads them.
TABLES_JS = """async n => {
  const details = document.querySelector(`#fig-${n} details.tables`);
  if (!details.open) {
    const opened = new Promise(r => details.addEventListener('toggle', r, {once: true}));
    details.open = true;
    await opened;
  }
  return [...details.querySelectorAll('table.data-table')].map(t => ({
    caption: t.caption ? t.caption.textContent : '',
    cells: [...t.tBodies[0].rows].map(r => [...r.cells].filter(c => c.tagName === 'TD')
                                                      .map(c => c.textContent))}));
}"""


def figure_tables(page: Page, n: int) -> list[dict[str, Any]]:
    """The data tables of Figure n: caption and the cells' text, row by row."""
    return list(page.evaluate(TABLES_JS, n))


def figure_strings(page: Page, n: int) -> str:
    """Everything Figure n shows as text: the panel's text plus the graph's data and layout."""
    return str(
        page.evaluate(
            """n => { const p = document.querySelector(`#fig-${n}`);
                      const g = p.querySelector('.js-plotly-plot');
                      return p.textContent + JSON.stringify(g ? [g.data, g.layout] : []); }""",
            n,
        )
    )


def set_cell(page: Page, selector: str, text: str) -> None:
    """Type into an editor input and commit with Enter, then wait for the figures."""
    page.fill(selector, text)
    page.press(selector, "Enter")
    wait_idle(page)


def cell(matrix: str, row: int, col: int) -> str:
    return f'input[data-matrix="{matrix}"][data-row="{row}"][data-col="{col}"]'
