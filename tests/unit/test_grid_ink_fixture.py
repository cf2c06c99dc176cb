"""tests/js/fixtures/grid_palettes.json holds the grid palettes exactly as
``app.figures.grid.palette`` makes them, so tests/js/grid_core.test.mjs checks the text
contrast of every real cell colour (node cannot import Python). Regenerate with
``python -m tests.unit.test_grid_ink_fixture`` (then ``npx prettier --write`` the file)
when a scale changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.figures.grid import palette
from app.figures.palette import SCALES

FIXTURE = Path(__file__).parents[1] / "js" / "fixtures" / "grid_palettes.json"


def palettes() -> dict[str, Any]:
    """{theme: {role: [[background, ink], …]}} for every theme and role of the scales."""
    return {
        theme: {role: [list(pair) for pair in palette(theme, role)] for role in roles}
        for theme, roles in SCALES.items()
    }


def test_the_js_fixture_is_the_real_palette() -> None:
    assert json.loads(FIXTURE.read_text()) == palettes(), (
        "regenerate: python -m tests.unit.test_grid_ink_fixture"
    )


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(palettes(), indent=1) + "\n")
