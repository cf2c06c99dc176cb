"""ES modules of ``static/js`` as ONE classic script, for files opened from ``file://``.

A browser refuses to import modules from disk, so a self-contained file (the offline
lesson document) cannot load ``static/js/lessons/offline.js`` as the site does. ``bundle``
walks the entry's imports and writes each module, dependencies first, as a function
scope whose result is its exports: ``import { a, b as c } from "./x.js"`` becomes
``const { a, b: c } = __m3;``, ``export function f`` stays ``function f`` and is
returned, a JSON module becomes its value. It reads only the forms our modules use
(named imports, ``export`` before a declaration, ``export { … }``); anything else, such
as a dynamic ``import()`` or a default export, is refused with the module named, so a new
module that needs more fails the offline tests instead of a learner's file.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from functools import cache

from app.paths import static_dir

_IMPORT = re.compile(
    r'^import\s+(?P<what>[^;]*?)\s+from\s+"(?P<path>[^"]+)"(?:\s+with\s*\{[^}]*\})?\s*;?[ \t]*$',
    re.MULTILINE,
)
_EXPORT_DECL = re.compile(
    r"^export\s+(?P<kind>(?:async\s+)?function\*?|class|const|let)\s+(?P<name>[A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_EXPORT_LIST = re.compile(
    r'^export\s*\{(?P<names>[^}]*)\}(?:\s*from\s+"(?P<path>[^"]+)")?\s*;?', re.MULTILINE
)
_REFUSED = re.compile(r"\bimport\s*\(|^export\s+default\b|\bimport\.meta\b", re.MULTILINE)


class BundleError(ValueError):
    """A module uses a form the bundler does not read."""


@dataclass
class _Bundle:
    order: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    code: dict[str, str] = field(default_factory=dict)


def _bindings(what: str) -> str:
    """``{ a, b as c }`` -> ``{ a, b: c }`` (a destructuring pattern)."""
    inner = what.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        raise BundleError(f"only named imports are bundled, not {inner[:40]!r}")
    parts = [p.strip() for p in inner[1:-1].split(",") if p.strip()]
    return "{ " + ", ".join(p.replace(" as ", ": ") for p in parts) + " }"


def _visit(rel: str, bundle: _Bundle, stack: tuple[str, ...] = ()) -> str:
    """Add module ``rel`` (a path under static/, e.g. ``js/lessons/offline.js``) and its
    imports to ``bundle``; returns its variable name."""
    if rel in bundle.names:
        return bundle.names[rel]
    if rel in stack:
        raise BundleError(f"import cycle through {rel}")
    source = (static_dir() / rel).read_text(encoding="utf-8")
    if rel.endswith(".json"):
        name = f"__m{len(bundle.names)}"
        bundle.names[rel] = name
        bundle.code[rel] = f"const {name} = {json.dumps(json.loads(source))};"
        bundle.order.append(rel)
        return name
    if _REFUSED.search(source):
        raise BundleError(f"{rel}: dynamic import, default export or import.meta")
    here = posixpath.dirname(rel)

    def imported(match: re.Match[str]) -> str:
        dep = posixpath.normpath(posixpath.join(here, match["path"]))
        dep_name = _visit(dep, bundle, (*stack, rel))
        what = match["what"].strip()
        if dep.endswith(".json"):
            return f"const {what} = {dep_name};"
        return f"const {_bindings(what)} = {dep_name};"

    body = _IMPORT.sub(imported, source)
    exports: list[str] = []

    def listed(match: re.Match[str]) -> str:
        pairs = [p.strip() for p in match["names"].split(",") if p.strip()]
        if match["path"]:
            dep = posixpath.normpath(posixpath.join(here, match["path"]))
            dep_name = _visit(dep, bundle, (*stack, rel))
            exports.extend(f"{p.split(' as ')[-1]}: {dep_name}.{p.split(' as ')[0]}" for p in pairs)
        else:
            exports.extend(f"{p.split(' as ')[-1]}: {p.split(' as ')[0]}" for p in pairs)
        return ""

    body = _EXPORT_LIST.sub(listed, body)

    def declared(match: re.Match[str]) -> str:
        exports.append(match["name"])
        return f"{match['kind']} {match['name']}"

    body = _EXPORT_DECL.sub(declared, body)
    name = f"__m{len(bundle.names)}"
    bundle.names[rel] = name
    bundle.code[rel] = (
        f"// {rel}\nconst {name} = (() => {{\n{body}\nreturn {{ {', '.join(exports)} }};\n}})();"
    )
    bundle.order.append(rel)
    return name


@cache
def bundle(entry: str) -> str:
    """The script that runs module ``entry`` (``js/lessons/offline.js``) and everything it
    imports, as one classic script in strict mode."""
    state = _Bundle()
    _visit(entry, state)
    return '"use strict";\n' + "\n".join(state.code[rel] for rel in state.order) + "\n"
