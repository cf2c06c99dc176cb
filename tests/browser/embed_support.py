"""Helpers for the embed and export browser tests: Chromium, a live app, a host on another port.

Kept apart from ``conftest.py`` (the page's fixtures) so the two never conflict. Chromium is
$CHROMIUM_PATH, else ``chromium`` / ``chromium-browser`` on PATH; with none the tests FAIL
with a message saying how to get one. The app runs as a real uvicorn process on a free
port; a "course site" is a ``http.server`` in a thread on another free port, so the embed
is cross-origin exactly as on Moodle or Canvas.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Frame, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]  # fmt: skip
NO_CHROMIUM = (
    "No Chromium found for the browser tests: set $CHROMIUM_PATH to a Chromium binary or "
    "install one so that `chromium` or `chromium-browser` is on PATH "
    "(Debian/Ubuntu: apt-get install chromium)."
)
# Records CSP violations in every frame, so a test can assert there were none.
CSP_RECORDER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM_PATH"), shutil.which("chromium"),
                      shutil.which("chromium-browser")):  # fmt: skip
        if candidate and Path(candidate).exists():
            return candidate
    pytest.fail(NO_CHROMIUM, pytrace=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(url: str, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the app at {url} did not start within {timeout} s")


@pytest.fixture(scope="module")
def embed_app_url() -> Iterator[str]:
    """A live app (uvicorn subprocess) on a free port; stopped at the end of the module."""
    port = free_port()
    env = {**os.environ, "ATTENTION_LAB_LOG_LEVEL": "warning"}
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port),
           "--log-level", "warning"]  # fmt: skip
    process = subprocess.Popen(cmd, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def host_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(url, folder): a static "course site" on another port, serving files from folder."""
    folder = tmp_path_factory.mktemp("host")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
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
def embed_browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


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
