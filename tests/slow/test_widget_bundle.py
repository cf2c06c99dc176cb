"""The notebook widget's committed bundle (attention_lab/static) is what its sources build.

The bundle is built by ``npm run build:widget`` (esbuild, pinned in package.json) from
static/js/widget.js and static/css/widget.css with their imports. This test runs the same
command into a temporary folder and compares the bytes: an edit to grid.js, panels.js or
any module they import fails here until the bundle is rebuilt and committed.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "attention_lab" / "static"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"


def _build_command(outdir: Path) -> list[str]:
    """package.json's build:widget script, writing into ``outdir`` instead."""
    script = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["scripts"]
    words = shlex.split(script["build:widget"])
    assert words[0] == "esbuild"
    assert "--outdir=attention_lab/static" in words
    words = [f"--outdir={outdir}" if w.startswith("--outdir=") else w for w in words]
    return [str(ESBUILD), *words[1:]]


def test_committed_bundle_matches_its_sources(tmp_path: Path) -> None:
    assert ESBUILD.exists(), "esbuild is missing: run `npm ci` (package.json pins it)"
    subprocess.run(_build_command(tmp_path), cwd=ROOT, check=True, timeout=120)
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == ["widget.css", "widget.js"]
    for name in built:
        assert (tmp_path / name).read_bytes() == (BUNDLED / name).read_bytes(), (
            f"attention_lab/static/{name} is out of date: run `npm run build:widget` and commit it"
        )


def test_bundle_is_one_module_with_no_import_and_no_network() -> None:
    source = (BUNDLED / "widget.js").read_text(encoding="utf-8")
    assert "export default" in source or "export {" in source
    # One file: nothing left to fetch (no import statement, no CDN, no require.js).
    assert not [line for line in source.splitlines() if line.startswith("import ")]
    # The only URL is MathML's namespace (createElementNS), which nothing fetches.
    urls = set(re.findall(r"https?://[^\s\"'`]+", source))
    assert urls == {"http://www.w3.org/1998/Math/MathML"}
    assert "require(" not in source
    # The page's renderer is in it (drawPanels -> renderGrid), not a copy of its own.
    assert "function renderGrid(" in source
    assert "function drawPanels(" in source
