"""The interactive API docs work in a real Chromium with no internet and the site's CSP.

A live uvicorn serves the app on a free port; every request that is not to that server
is aborted and recorded, and the docs page is served with the Content-Security-Policy the
site sends (no inline script). Swagger UI must render the API's operations, prefill the
running example as the request body, and a "Try it out" execute must answer 200.
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

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; frame-ancestors 'self'")  # fmt: skip
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium() -> str:
    found = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    found = found or shutil.which("chromium-browser")
    if not found:
        pytest.fail("No Chromium found: set CHROMIUM_PATH or install Debian's `chromium`.")
    return found


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port),
         "--log-level", "warning"],
        cwd=ROOT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def test_docs_render_offline_under_the_csp(server: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    foreign: list[str] = []
    errors: list[str] = []

    def only_local(route: Any) -> None:
        url = route.request.url
        if not url.startswith(server):
            foreign.append(url)
            route.abort()
        elif url.endswith("/api/v1/docs"):
            response = route.fetch()
            route.fulfill(response=response,
                          headers={**response.headers, "content-security-policy": CSP})  # fmt: skip
        else:
            route.continue_()

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=ARGS)
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", only_local)
        page.goto(f"{server}/api/v1/docs")
        page.wait_for_selector("#operations-attention-attention_api_v1_attention_post")
        text = page.inner_text("#swagger-ui")
        assert "/api/v1/softmax" in text
        assert "/api/v1/presets/{preset_id}" in text
        page.click("#operations-attention-attention_api_v1_attention_post .opblock-summary")
        body = page.wait_for_selector("textarea.body-param__text")
        assert '"I"' in body.input_value()  # the running example is the prefilled body
        page.click("#operations-attention-attention_api_v1_attention_post .execute")
        status = page.wait_for_selector(".live-responses-table tr.response .response-col_status")
        assert status.inner_text().strip() == "200"
        browser.close()
    assert foreign == []
    assert errors == []
