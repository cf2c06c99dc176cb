"""The notebook widget in a real JupyterLab (from PyPI, the test extra) in Chromium.

JupyterLab runs with ``--no-browser`` on a free port with a token, in a temporary folder
holding one notebook: cell 1 shows ``Figure(6)``, cell 2 sets ``fig.scale = False``. The
grid must be drawn by the bundled renderer (a ``table.grid`` with the chapter's weights,
tests/unit/data/running-example.json) and repaint in place after cell 2. Then the theme
is switched to JupyterLab Dark (Settings > Theme): the widget reports it and the kernel
redraws the figure in the dark palette. Screenshots of both go to test-artifacts/.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import Browser, Page, expect
from server_support import free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SPEC: dict[str, Any] = json.loads(
    (ROOT / "tests" / "unit" / "data" / "running-example.json").read_text(encoding="utf-8")
)
CELLS = ["from attention_lab.widget import Figure\nfig = Figure(6)\nfig", "fig.scale = False"]


def _printed(weights: list[list[float]]) -> list[str]:
    return [f"{w:.2f}" for row in weights for w in row]


def _wait_up(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api", timeout=2) as response:  # no token needed
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"jupyter lab at {url} did not start within {timeout} s")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(base URL, token) of a JupyterLab serving a folder with widget.ipynb."""
    here = tmp_path_factory.mktemp("lab")  # Jupyter's own files and its log
    served = here / "notebooks"  # what the file browser shows: the notebook alone
    served.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nbformat.write(nb, served / "widget.ipynb")
    token, port = secrets.token_hex(16), free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
               p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
           "JUPYTER_CONFIG_DIR": str(here / ".config"), "JUPYTER_RUNTIME_DIR": str(here / ".run"),
           "JUPYTERLAB_SETTINGS_DIR": str(here / ".settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(here / ".workspaces"),
           "OPENBLAS_NUM_THREADS": "1"}  # fmt: skip
    # --allow-root: CI runs as root; the server listens on 127.0.0.1 with a token.
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={served}", "--LabApp.news_url=", "--allow-root",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]  # fmt: skip
    log = (here / "lab.log").open("wb")
    process = subprocess.Popen(command, cwd=served, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(url, process)
        yield url, token
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def _weights(page: Page) -> list[str]:
    cells = page.locator('.attention-lab-widget table.grid[data-grid="weights"] td[data-row]')
    return [t.strip() for t in cells.all_inner_texts()]


def _run_cell(page: Page, index: int) -> None:
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(index)
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")


def test_widget_draws_and_repaints_in_jupyterlab(lab: tuple[str, str], browser: Browser) -> None:
    url, token = lab
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1200, "height": 900}, color_scheme="light")
    context.set_default_timeout(90_000)
    page = context.new_page()
    try:
        page.goto(f"{url}/lab/tree/widget.ipynb?token={token}")
        # The kernel is up when the status bar says so (the toolbar's indicator starts idle).
        expect(page.locator(".jp-StatusBar-TextItem", has_text="| Idle")).to_be_visible(
            timeout=120_000
        )
        _run_cell(page, 0)
        expect(
            page.locator('.attention-lab-widget table.grid[data-grid="weights"]')
        ).to_be_visible()
        assert _weights(page) == _printed(SPEC["expected"]["weights_2dp"])
        widget = page.locator(".attention-lab-widget")
        expect(widget).to_have_attribute("data-theme", "light")
        widget.screenshot(path=str(ARTIFACTS / "widget-jupyterlab-light.png"))
        page.screenshot(path=str(ARTIFACTS / "widget-jupyterlab-light-page.png"))
        table = page.locator('.attention-lab-widget table.grid[data-grid="weights"]')
        table.evaluate("t => { t.dataset.same = 'yes'; }")  # gone if the table were rebuilt
        _run_cell(page, 1)
        unscaled = _printed(SPEC["toggles_2dp"]["unscaled"]["weights"])
        page.wait_for_function(
            """(want) => [...document.querySelectorAll(
                 '.attention-lab-widget table.grid[data-grid="weights"] td[data-row]')]
                 .map(td => td.innerText.trim()).join() === want.join()""",
            arg=unscaled,
        )
        assert table.get_attribute("data-same") == "yes"  # repainted in place
        light_bg = table.locator("td[data-row]").first.evaluate(
            "td => getComputedStyle(td).backgroundColor"
        )
        # JupyterLab Dark: the widget tells the kernel, which rebuilds the figure dark.
        page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
        page.locator(".lm-Menu-itemLabel", has_text="Theme").first.click()
        page.locator(".lm-Menu-itemLabel").get_by_text("JupyterLab Dark", exact=True).click()
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
        expect(widget).to_have_attribute("data-theme", "dark", timeout=60_000)
        page.wait_for_function(
            """(light) => getComputedStyle(document.querySelector(
                 '.attention-lab-widget table.grid td[data-row]')).backgroundColor !== light""",
            arg=light_bg,
        )
        assert _weights(page) == unscaled
        widget.screenshot(path=str(ARTIFACTS / "widget-jupyterlab-dark.png"))
    finally:
        context.close()
