"""The suite runs on a fresh clone with nothing beside it (issue 8): no test reads the
``shared`` folder that CI keeps next to the repository; fixtures live under tests/."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# A path into ../shared, or the variable that points at it.
OUTSIDE = re.compile(r"ATTENTION_LAB_SHARED|[\"'/]shared/|\.\./shared|/ ?\"shared\"")


def test_no_test_reads_the_folder_beside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{n}"
        for path in TESTS.rglob("*.py")
        if path != Path(__file__).resolve()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line) and not line.lstrip().startswith("#")
    ]
    assert offenders == []


def test_the_running_example_fixture_is_in_the_repository() -> None:
    assert (TESTS / "unit" / "data" / "running-example.json").is_file()
