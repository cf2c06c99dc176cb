"""Which package of ``app`` may import which: the architecture, enforced (one table).

Each module's direct imports are read from its source (``ast``, nothing is imported) and
checked against ``LAYERS``: the app packages it may use, and the third-party libraries it
may use (the standard library is always allowed). A failure names the file, the import and
what its package may import instead. Two more rules keep the surfaces apart: no route
module (one that defines ``router``) is imported by another module of the app except its
package's ``__init__`` and ``app.main``, and ``app.api`` and ``app.web`` never import each
other: what both need is in ``app.http``. Finally neither import graph has a cycle: the
package-level one (an edge from a package to each other package one of its modules
imports) nor the file-level one (an edge from a module to each module of the app it
imports, at the top or inside a function: a late import hides a cycle, it does not break
it).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from functools import cache
from itertools import pairwise
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
    # Real models: numpy over safetensors' weights, nothing of the app; used by api, web
    # and the CLI (which installs them), never by the pure packages below them.
    "models": ({"models"}, {"numpy", "safetensors"}),
    # Lab figures draw lab computations and open on the presets (pure data, no imports);
    # never app.inputs, which builds on the figures.
    "figures": ({"figures", "attention", "labs", "presets", "notation"}, PURE_THIRD_PARTY),
    "presets": (set(), set()),
    "inputs": (
        {"inputs", "attention", "figures", "labs", "presets", "settings"},
        {"numpy", "pydantic", "orjson"},
    ),
    # Lessons: the format, the states (checked as links are) and the computed answers; a
    # real model's head as a step's state (models: pure numpy).
    "lessons": (
        {"lessons", "attention", "figures", "labs", "presets", "inputs", "settings", "models"},
        {"numpy", "pydantic"},
    ),
    "export": (
        {"export", "notation", "lessons"} | BELOW_EXPORT,
        {"numpy", "jinja2", "markupsafe", "orjson"},
    ),
    # prometheus_client: the metrics every route records (app.http.metrics).
    "http": (
        {"http", "export"} | BELOW_EXPORT,
        {"numpy", "pydantic", "orjson", "prometheus_client", *HTTP},
    ),
    # The database (short links): SQLAlchemy Core over the settings' URL, nothing else.
    "store": ({"store", "settings"}, {"sqlalchemy"}),
    "api": (
        {"api", "http", "export", "models", "lessons", "store"} | BELOW_EXPORT,
        {"numpy", "pydantic", "orjson", "sqlalchemy", *HTTP},
    ),
    "web": (
        {"web", "http", "export", "models", "lessons", "store"} | BELOW_EXPORT,
        {"numpy", "pydantic", "orjson", "sqlalchemy", *HTTP, *HTML},
    ),
    "wire": ({"attention"}, {"numpy", "orjson"}),
    "templating": ({"figures.fmt", "paths", "notation"}, {"jinja2", "markupsafe"}),
    "notation": ({"paths"}, set()),
    "settings": (set(), {"pydantic", "pydantic_settings"}),
    "paths": (set(), set()),
    "__init__": (set(), set()),
    "__main__": ({"cli"}, set()),
    "main": ({"api", "web", "http", "settings", "paths"}, {"fastapi"}),
    "cli": ({"settings", "export", "http", "web", "models", "server"}, {"pydantic", "uvicorn"}),
    # uvicorn's h11 protocol with a header timeout, passed to uvicorn by the CLI.
    "server": ({"settings"}, {"uvicorn"}),
}


def package_of(path: Path) -> str:
    """app/figures/labs/x.py -> 'figures'; app/main.py -> 'main'."""
    parts = path.relative_to(APP).with_suffix("").parts
    return parts[0]


@cache
def _tree(source: str) -> ast.Module:
    """A file's syntax tree, parsed once for every test that reads it."""
    return ast.parse(source)


def imports_of(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import; ``from app import x`` gives ``app.x``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(_tree(source)):
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


Edges = dict[str, dict[str, list[str]]]  # package -> imported package -> ["file:line", ...]


def package_graph(sources: Mapping[Path, str]) -> Edges:
    """Which package imports which (one package to another), with where."""
    graph: Edges = {}
    for path, source in sources.items():
        package = package_of(path)
        for line, module in imports_of(source):
            parts = module.split(".")
            if parts[0] != "app" or len(parts) < 2 or parts[1] in (package, "__version__"):
                continue
            where = f"{path.relative_to(ROOT)}:{line}"
            graph.setdefault(package, {}).setdefault(parts[1], []).append(where)
    return graph


def cycles(graph: Edges) -> list[str]:
    """One cycle of each strongly connected part of ``graph`` (the parts that have one), as
    "a -> b -> a (a->b: file:line; b->a: file:line)", from the part's least node, by the
    fewest steps. Linear in the graph: listing every cycle instead (a walk of every path)
    took seconds on the module graph, and one cycle per part names what to break."""
    found = []
    for part in _strong_parts(graph):
        start = min(part)
        ring = _shortest_ring(graph, start, part)
        if ring is not None:
            steps = "; ".join(f"{a}->{b}: {graph[a][b][0]}" for a, b in pairwise(ring))
            found.append(f"{' -> '.join(ring)} ({steps})")
    return sorted(found)


def _strong_parts(graph: Edges) -> list[set[str]]:
    """Tarjan's strongly connected components of ``graph``, iteratively (no recursion
    limit): each a set of nodes that all reach one another."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.add(member)
                        if member == node:
                            break
                    parts.append(part)
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph.get(target, {})))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return parts


def _shortest_ring(graph: Edges, start: str, part: set[str]) -> list[str] | None:
    """The shortest walk start -> ... -> start inside ``part`` (breadth first, targets in
    order), or None when there is none (a part of one node with no edge to itself)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph.get(node, {})):
                if target not in part:
                    continue
                if target == start:
                    ring = [start]
                    while node != start:
                        ring.insert(1, node)
                        node = came_from[node]
                    return [*ring, start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return None


def module_of(path: Path) -> str:
    """app/figures/grid.py -> 'app.figures.grid'; app/figures/__init__.py -> 'app.figures'."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph(sources: Mapping[Path, str]) -> Edges:
    """Which module imports which (both among ``sources``), with where. ``from app.figures
    import grid`` is an edge to ``app.figures.grid`` when that is a module, else to
    ``app.figures`` (a name its ``__init__`` defines). The package ``__init__`` that
    Python runs before a submodule is not an edge: it would make every package that
    re-exports its modules a cycle."""
    known = {module_of(path) for path in sources}
    graph: Edges = {}
    for path, source in sources.items():
        here, where = module_of(path), str(path.relative_to(ROOT))
        for line, target in _imported_modules(source):
            resolved = next((m for m in target if m in known), None)
            if resolved is not None and resolved != here:
                graph.setdefault(here, {}).setdefault(resolved, []).append(f"{where}:{line}")
    return graph


def _imported_modules(source: str) -> list[tuple[int, tuple[str, ...]]]:
    """(line, candidates) per imported name: ``from a.b import c`` is ``a.b.c`` if that is
    a module, else ``a.b``; ``import a.b`` is ``a.b``."""
    found: list[tuple[int, tuple[str, ...]]] = []
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, (a.name,)) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.lineno, (f"{node.module}.{a.name}", node.module)) for a in node.names]
    return found


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


def test_the_package_import_graph_has_no_cycle() -> None:
    graph = package_graph({path: path.read_text(encoding="utf-8") for path in MODULES})
    assert graph, "no package imports another: the graph was not read"
    found = cycles(graph)
    assert found == [], "import cycles between app packages:\n" + "\n".join(found)


def test_the_module_import_graph_has_no_cycle() -> None:
    """File by file: a builder imports the context, the registry imports the builders, so
    the context may not import the registry (not even late, inside a function)."""
    graph = module_graph({path: path.read_text(encoding="utf-8") for path in MODULES})
    assert "app.figures.context" in graph.get("app.figures.registry", {}), "graph not read"
    found = cycles(graph)
    assert found == [], "import cycles between app modules:\n" + "\n".join(found)


def test_the_module_cycle_check_catches_a_late_import_inside_one_package() -> None:
    sources = {
        ROOT / "app/figures/registry.py": "from app.figures import grids\n",
        ROOT / "app/figures/grids.py": "import numpy\nfrom app.figures.context import Ctx\n",
        ROOT / "app/figures/context.py": "def f():\n    from app.figures.registry import X\n",
        ROOT / "app/figures/__init__.py": "from app.figures.registry import X\n",
    }
    assert cycles(module_graph(sources)) == [
        "app.figures.context -> app.figures.registry -> app.figures.grids -> "
        "app.figures.context (app.figures.context->app.figures.registry: "
        "app/figures/context.py:2; app.figures.registry->app.figures.grids: "
        "app/figures/registry.py:1; app.figures.grids->app.figures.context: "
        "app/figures/grids.py:2)"
    ]
    del sources[ROOT / "app/figures/context.py"]
    assert cycles(module_graph(sources)) == []  # the package's __init__ is no edge back


def test_the_cycle_check_catches_a_synthetic_cycle() -> None:
    sources = {
        ROOT / "app/labs/a.py": "from app.attention.pipeline import run\n",
        ROOT / "app/attention/b.py": "import numpy as np\nfrom app.export import csv\n",
        ROOT / "app/export/c.py": "from app import labs\n",
        ROOT / "app/web/d.py": "from app.labs import a\n",  # on the way in, not in the cycle
    }
    found = cycles(package_graph(sources))
    assert found == [
        "attention -> export -> labs -> attention (attention->export: app/attention/b.py:2; "
        "export->labs: app/export/c.py:1; labs->attention: app/labs/a.py:1)"
    ]


def test_the_cycle_check_names_a_two_package_cycle() -> None:
    inputs_to_figures = {ROOT / "app/inputs/r.py": "from app.figures import build_figures\n"}
    figures_to_inputs = {
        ROOT / "app/figures/l.py": "from app.inputs.body import AttentionRequest\n"
    }
    assert cycles(package_graph(inputs_to_figures)) == []
    assert cycles(package_graph(inputs_to_figures | figures_to_inputs)) == [
        "figures -> inputs -> figures (figures->inputs: app/figures/l.py:1; "
        "inputs->figures: app/inputs/r.py:1)"
    ]


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
