"""The lesson question kinds' one declaration (app/lessons/kinds.py) against its readers:
the validator's ``Kind``, the lesson editor's script and the node tests' copy,
tests/js/fixtures/lesson_kinds.json (node cannot import Python; regenerate it with
``python -m tests.unit.test_lesson_kinds``, then ``npx prettier --write`` the file). The
editor's page handing it over: tests/http/test_lesson_editor_kinds.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

from app.lessons import format as lesson_format
from app.lessons.kinds import KINDS, STARTS, Kind, editor_kinds

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "js" / "fixtures" / "lesson_kinds.json"
JS = ROOT / "static" / "js" / "lessons"


def test_the_kinds_are_the_validators_kinds() -> None:
    assert tuple(KINDS) == get_args(Kind)
    assert set(lesson_format.KIND_KEYS) == set(KINDS)


def test_every_key_a_kind_fills_in_has_a_start_or_is_set_by_the_editor() -> None:
    for name, kind in KINDS.items():
        for key in kind.started:
            assert key in STARTS or key == "change", (name, key)  # change: from the state
        for key, (other, _) in kind.only_when.items():
            assert {key, other} <= set(kind.keys), name


def test_the_js_fixture_is_the_declaration() -> None:
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == editor_kinds(), (
        "regenerate: python -m tests.unit.test_lesson_kinds"
    )


def test_the_editor_declares_no_kind_of_its_own() -> None:
    """The editor's script has a prompt per declared kind and no table of keys, stages or
    choices: those it reads from #lesson-kinds."""
    core = (JS / "draft_core.js").read_text(encoding="utf-8")
    prompts = core[core.index("export const PROMPTS") : core.index("};", core.index("PROMPTS"))]
    assert set(re.findall(r"^  (\w+):", prompts, re.M)) == set(KINDS)
    for name in ("edit.js", "edit_step.js", "draft_core.js"):
        text = (JS / name).read_text(encoding="utf-8")
        assert '"scores", "scaled"' not in text, name  # the stages
        assert "max_weight:" not in text, name  # the quantities
        assert re.search(r"cell_value: *[\[{]", text) is None, name  # a kind's keys


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(editor_kinds(), indent=1, ensure_ascii=False) + "\n")
