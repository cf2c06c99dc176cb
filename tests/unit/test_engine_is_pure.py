"""The engine and the figures import no web library (ARCHITECTURE habit 1).

The check walks the import statements of every module under app/attention (and
app/figures when it exists), follows imports of other ``app`` modules transitively, and
fails if any of them imports fastapi, starlette, pydantic, jinja2, plotly, uvicorn or
httpx. Figures build plain dicts, so plotly is banned there too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = {"fastapi", "starlette", "pydantic", "pydantic_settings", "jinja2", "plotly", "uvicorn",
       "httpx"}  # fmt: skip
PURE = [p for p in ("attention", "figures") if (ROOT / "app" / p).is_dir()]


def _module_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path) -> set[str]:
    """Absolute names imported by ``path`` (relative imports resolved against its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


def web_imports(start: list[Path]) -> dict[str, str]:
    """{web module: the app file that imports it}, following app.* imports transitively."""
    seen: set[Path] = set()
    todo = list(start)
    found: dict[str, str] = {}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path):
            top = name.split(".")[0]
            if top in WEB:
                found[name] = str(path.relative_to(ROOT))
            elif top == "app" and (target := _module_file(name)) is not None:
                todo.append(target)
    return found


@pytest.mark.parametrize("package", PURE)
def test_pure_packages_import_no_web_library(package: str) -> None:
    files = sorted((ROOT / "app" / package).rglob("*.py"))
    assert files, f"app/{package} has no modules"
    assert web_imports(files) == {}


def test_the_walker_would_catch_a_web_import() -> None:
    # the check itself can fail: app/routes/api.py imports fastapi
    found = web_imports([ROOT / "app" / "routes" / "api.py"])
    assert "fastapi" in found
    assert any(name.startswith("pydantic") for name in found)  # via app.schemas
