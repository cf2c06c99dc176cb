"""Helpers for the embed and export browser tests: a host site on another port, console
and CSP recorders, polling.

The live app and Chromium are conftest's session fixtures (found and started once; with
no Chromium the tests FAIL saying how to get one). A "course site" is an ``http.server``
in a thread on another free port, so the embed is cross-origin exactly as on Moodle or
Canvas.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Frame, Page

ROOT = Path(__file__).resolve().parents[2]
# Records CSP violations in every frame, so a test can assert there were none.
CSP_RECORDER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


@pytest.fixture(scope="module")
def embed_app_url(server_url: str) -> str:
    """The live app of the session (conftest's ``server_url``), under the embed tests' name."""
    return server_url


@pytest.fixture(scope="module")
def host_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(url, folder): a static "course site" on another port, serving files from folder."""
    folder = tmp_path_factory.mktemp("host")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # any free port
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", folder
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def embed_browser(browser: Browser) -> Browser:
    """The session's Chromium (conftest's ``browser``); each test module opens its own context."""
    return browser


def console_errors(page: Page) -> list[str]:
    """A live list of console errors and uncaught exceptions on ``page`` (all frames)."""
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def wait_for(target: Page | Frame, expression: str, timeout: float = 15) -> None:
    """Poll ``expression`` with ``evaluate`` until truthy. (``wait_for_function`` evaluates
    a string with eval(), which the embed's CSP rightly refuses.)"""
    deadline = time.monotonic() + timeout
    while not target.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.05)
