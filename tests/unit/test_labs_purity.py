"""app/labs is lab maths only (ARCHITECTURE: labs -> numpy): every import of every module
under it is numpy, the standard library, or app.labs itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LABS = Path(__file__).resolve().parents[2] / "app" / "labs"


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: use absolute imports"
            names.add(node.module or "")
    return names


def test_labs_import_numpy_and_the_standard_library_only() -> None:
    modules = sorted(LABS.glob("*.py"))
    assert {p.name for p in modules} >= {"__init__.py", "experiments.py", "scripts.py"}
    for path in modules:
        for name in imported(path):
            top = name.split(".")[0]
            ok = top in {"numpy", "__future__"} or top in sys.stdlib_module_names
            ok = ok or name == "app.labs" or name.startswith("app.labs.")
            assert ok, f"{path.name} imports {name}"
