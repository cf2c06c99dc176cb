"""Which package of ``app`` may import which: the architecture, enforced (one table).

Each module's direct imports are read from its source (``ast``, nothing is imported) and
checked against ``LAYERS``: the app packages it may use, and the third-party libraries it
may use (the standard library is always allowed). A failure names the file, the import and
what its package may import instead. Two more rules keep the surfaces apart: no route
module (one that defines ``router``) is imported by another module of the app except its
package's ``__init__`` and ``app.main``, and ``app.api`` and ``app.web`` never import each
other: what both need is in ``app.http``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
PURE_THIRD_PARTY = {"numpy"}
FRAMEWORKS = {"fastapi", "starlette", "uvicorn", "anyio", "jinja2", "markupsafe", "plotly"}

# What the export and both surfaces build on: the pure packages, the inputs and the small
# top-level modules (settings, paths, the wire encoder, the one Jinja environment).
BELOW_EXPORT = {
    "attention",
    "figures",
    "labs",
    "presets",
    "inputs",
    "settings",
    "paths",
    "wire",
    "templating",
}
HTTP = {"fastapi", "starlette", "anyio"}
HTML = {"jinja2", "markupsafe"}

# package -> (app packages it may import, third-party libraries it may import)
LAYERS: dict[str, tuple[set[str], set[str]]] = {
    "attention": ({"attention"}, PURE_THIRD_PARTY),
    "labs": ({"labs"}, PURE_THIRD_PARTY),
    # Lab figures draw lab computations and open on the presets (pure data, no imports);
    # never app.inputs, which builds on the figures.
    "figures": ({"figures", "attention", "labs", "presets"}, PURE_THIRD_PARTY),
    "presets": (set(), set()),
    "inputs": (
        {"inputs", "attention", "figures", "labs", "presets", "settings"},
        {"numpy", "pydantic", "orjson"},
    ),
    "export": ({"export"} | BELOW_EXPORT, {"numpy", "jinja2", "markupsafe", "orjson"}),
    "http": ({"http", "export"} | BELOW_EXPORT, {"numpy", "pydantic", "orjson", *HTTP}),
    "api": ({"api", "http", "export"} | BELOW_EXPORT, {"numpy", "pydantic", "orjson", *HTTP}),
    "web": (
        {"web", "http", "export"} | BELOW_EXPORT,
        {"numpy", "pydantic", "orjson", *HTTP, *HTML},
    ),
    "wire": ({"attention"}, {"numpy", "orjson"}),
    "templating": ({"figures.fmt", "paths"}, {"jinja2"}),
    "settings": (set(), {"pydantic", "pydantic_settings"}),
    "paths": (set(), set()),
    "__init__": (set(), set()),
    "__main__": ({"cli"}, set()),
    "main": ({"api", "web", "http", "settings", "paths"}, {"fastapi"}),
    "cli": ({"settings", "export", "web"}, {"pydantic", "uvicorn"}),
}


def package_of(path: Path) -> str:
    """app/figures/labs/x.py -> 'figures'; app/main.py -> 'main'."""
    parts = path.relative_to(APP).with_suffix("").parts
    return parts[0]


def imports_of(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import; ``from app import x`` gives ``app.x``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"line {node.lineno}: use absolute imports"
            module = node.module or ""
            if module == "app":
                found += [(node.lineno, f"app.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, module))
    return found


def _allowed_app(module: str, allowed: set[str]) -> bool:
    rest = module.removeprefix("app").removeprefix(".")
    if rest in ("", "__version__"):  # the version string is everyone's
        return True
    return any(rest == a or rest.startswith(f"{a}.") for a in allowed if a)


def violations(path: Path, source: str) -> list[str]:
    """Each import of ``source`` (the file at ``path``) that its package may not make."""
    package = package_of(path)
    app_allowed, libraries = LAYERS[package]
    out = []
    for line, module in imports_of(source):
        top = module.split(".")[0]
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        if top == "__future__" or top in sys.stdlib_module_names:
            continue
        if top == "app":
            if not _allowed_app(module, app_allowed):
                out.append(f"{where}; app/{package} may import app.{sorted(app_allowed)}")
        elif top not in libraries:
            out.append(f"{where}; app/{package} may import {sorted(libraries) or 'no library'}")
    return out


def route_modules() -> set[str]:
    """Dotted names of the modules that define a ``router``."""
    names = set()
    for path in APP.rglob("*.py"):
        if path.name != "__init__.py" and "\nrouter = " in path.read_text(encoding="utf-8"):
            names.add(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return names


MODULES = sorted(APP.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(APP)))
def test_each_module_imports_only_what_its_layer_allows(path: Path) -> None:
    assert violations(path, path.read_text(encoding="utf-8")) == []


def test_no_module_imports_a_route_module() -> None:
    routes = route_modules()
    assert {"app.api.attention", "app.web.pages"} <= routes
    offenders = []
    for path in MODULES:
        if path.name == "__init__.py" or path == APP / "main.py":
            continue
        for line, module in imports_of(path.read_text(encoding="utf-8")):
            if module in routes:
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert offenders == []


def test_every_package_has_a_row() -> None:
    assert {package_of(p) for p in MODULES} <= set(LAYERS)


@pytest.mark.parametrize(
    ("file", "source", "needle"),
    [
        ("app/attention/x.py", "import fastapi", "imports fastapi"),
        ("app/figures/x.py", "from app.web.pages import templates", "imports app.web.pages"),
        ("app/figures/x.py", "import plotly.graph_objects as go", "imports plotly"),
        ("app/inputs/x.py", "from starlette.requests import Request", "imports starlette"),
        ("app/api/x.py", "from app.web.errors import html_error", "imports app.web.errors"),
        ("app/web/x.py", "from app.api.models import HeadOut", "imports app.api.models"),
        ("app/http/x.py", "from app.api.models import HeadOut", "imports app.api.models"),
        ("app/labs/x.py", "from app.attention import run", "imports app.attention"),
        ("app/figures/x.py", "from app.inputs.view import View", "imports app.inputs.view"),
        ("app/presets.py", "from app.figures import fmt", "imports app.figures"),
    ],
)
def test_the_check_catches_a_forbidden_import(file: str, source: str, needle: str) -> None:
    found = violations(ROOT / file, source)
    assert len(found) == 1
    assert needle in found[0]


def test_allowed_imports_pass() -> None:
    source = "import numpy as np\nfrom app.attention import run\nimport math\n"
    assert violations(ROOT / "app/figures/x.py", source) == []


@pytest.mark.parametrize("package", ["app.attention", "app.figures", "app.labs", "app.presets"])
def test_importing_a_pure_package_loads_no_framework(package: str) -> None:
    # What the source check cannot see: an import made at run time, by a dependency.
    frameworks = sorted(FRAMEWORKS | {"pydantic", "orjson", "httpx"})
    code = (
        f"import sys, {package}; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {frameworks!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
