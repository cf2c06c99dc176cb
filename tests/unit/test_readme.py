"""The README's first screen: what it is, the screenshot, then exactly two one-line
commands, run and test, the same ones .ci/run executes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
FIRST_SCREEN = README.split("\n## ", 1)[0]


def test_first_screen_has_a_screenshot_then_exactly_two_single_commands() -> None:
    assert "](docs/screenshot.png)" in FIRST_SCREEN
    blocks = re.findall(r"```bash\n(.*?)```", FIRST_SCREEN, flags=re.S)
    assert blocks == ["pip install . && attention-lab\n", "pip install -e '.[test]' && pytest\n"]
    assert FIRST_SCREEN.index("docs/screenshot.png") < FIRST_SCREEN.index("```")
    assert "open http://127.0.0.1:8000" in FIRST_SCREEN


def test_first_screen_says_how_the_browser_tests_find_chromium() -> None:
    for word in ("CHROMIUM_PATH", "chromium-browser", "playwright install chromium"):
        assert word in FIRST_SCREEN


def test_the_sections_the_issue_asks_for_are_there() -> None:
    headings = re.findall(r"^## (.+)$", README, flags=re.M)
    for wanted in ("Docker", "Configuration", "API", "Embedding in a course site",
                   "Development", "Scaling out"):  # fmt: skip
        assert wanted in headings
    assert "/api/v1/docs" in README


def test_ci_runs_the_readme_commands_and_fails_on_no_tests() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install . && attention-lab" in ci
    assert "pip install -e '.[test]'" in ci
    assert ci.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in ci
    assert '[ "$rc" = 5 ]' in ci
