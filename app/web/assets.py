"""Static assets: content-hashed URLs, long cache lifetimes when the hash matches, gzip;
and every URL a template writes, under the app's root path.

Root path. Behind a proxy at ``/attention/`` every URL a page names must start with
``/attention``: templates write assets with ``asset_url('css/app.css')`` and links with
``site_url('/labs')``, which read the root from the request being rendered
(``app.http.mount``); a template rendered without a request (the offline export) gets
none. The static files stay mounted at ``/static`` inside the app (the proxy strips
the prefix).

Caching choice. Templates link every asset as ``/static/<path>?v=<hash>`` (``asset_url``).
When a request's ``v`` equals the current hash of that file, the response is cached for a
year as ``immutable``: a new release changes the hash, so the URL changes and browsers
fetch the new file. Any other request (no ``v``, or a stale one) is served with
``Cache-Control: no-cache`` and an ETag, so browsers revalidate (a cheap 304).

ES modules import their siblings by relative URL (``./api.js``), which drops the query
string, so those imports are revalidated rather than cached forever. To keep the entry
point honest, the hash of ``js/main.js`` covers every file under ``js/``: changing any
module changes the entry URL. Compression is ``app.web.middleware.SelectiveGZip`` (installed
in ``app.main``), which gzips text responses (HTML, JS, CSS, figure JSON) when the client
accepts it; at level 1 it costs about 10 ms for plotly.js and shrinks it about 2.7×.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from pathlib import Path

from jinja2 import pass_context
from jinja2.runtime import Context
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.http.mount import root_path
from app.paths import static_dir

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# Entry modules whose hash covers their whole directory (they import siblings).
_TREE_HASHED = {"js/main.js": "js"}

_hash_cache: dict[tuple[str, float], str] = {}


def _files_of(rel: str, root: Path) -> list[Path]:
    folder = _TREE_HASHED.get(rel)
    if folder is None:
        return [root / rel]
    return sorted(p for p in (root / folder).rglob("*") if p.is_file())


def asset_hash(rel: str, root: Path | None = None) -> str:
    """First 12 hex digits of the SHA-256 of the asset (or of its module tree)."""
    root = root or static_dir()
    files = _files_of(rel, root)
    stamp = max((p.stat().st_mtime for p in files), default=0.0)
    key = (f"{root}:{rel}:{len(files)}", stamp)
    if key not in _hash_cache:
        digest = hashlib.sha256()
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
        _hash_cache[key] = digest.hexdigest()[:12]
    return _hash_cache[key]


def _root(context: Context) -> str:
    request = context.get("request")
    return root_path(request.scope) if request is not None else ""


@pass_context
def site_url(context: Context, path: str) -> str:
    """``path`` (absolute in the app: ``/labs``; "" for the root itself) under the root
    path of the request being rendered: ``/attention/labs``."""
    return _root(context) + path


@pass_context
def asset_url(context: Context, rel: str) -> str:
    """``<root>/static/<rel>?v=<hash>``: the URL templates use for every asset."""
    return f"{_root(context)}/static/{rel}?v={asset_hash(rel)}"


# A static import or re-export of a sibling module: `import {a} from "./x.js"`,
# `export * from "../y.js"`, `import "./z.js"` (dynamic `import()` is left out: plotly.js
# loads when a chart first needs it). JSON modules are left to their importer.
_STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^;"'`]*?(?:\bfrom\s*)?["'](\.{1,2}/[^"']+\.js)["']""", re.M
)

_graph_cache: dict[tuple[str, float], tuple[str, ...]] = {}


def module_graph(rel: str, root: Path | None = None) -> tuple[str, ...]:
    """Every module ``rel`` (``js/main.js``) imports statically, directly or not, as paths
    under the static root, nearest first: what a page lists as ``modulepreload`` so the
    browser fetches the whole graph at once instead of one import level per round trip
    (a 128 × 128 page waited about 300 ms for the second level)."""
    root = root or static_dir()
    folder = (root / rel).parent
    stamp = max((p.stat().st_mtime for p in folder.rglob("*.js")), default=0.0)
    key = (f"{root}:{rel}", stamp)
    if key not in _graph_cache:
        seen: dict[str, None] = {}
        queue = [rel]
        while queue:
            current = queue.pop(0)
            text = (root / current).read_text(encoding="utf-8")
            for found in _STATIC_IMPORT.findall(text):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(current), found))
                if target != rel and target not in seen and (root / target).is_file():
                    seen[target] = None
                    queue.append(target)
        _graph_cache[key] = tuple(seen)
    return _graph_cache[key]


@pass_context
def module_urls(context: Context, *entries: str) -> list[str]:
    """The URLs of every module the ``entries`` import (``module_graph``), each once, under
    the request's root path: as the browser resolves the imports, without a ``v`` query."""
    rels = dict.fromkeys(m for entry in entries for m in module_graph(entry))
    return [f"{_root(context)}/static/{m}" for m in rels if m not in entries]


class HashedStaticFiles(StaticFiles):
    """StaticFiles that marks responses immutable when the URL's ``v`` is the file's hash."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code not in (200, 304):
            return response
        query = scope.get("query_string", b"").decode("latin-1")
        given = dict(p.partition("=")[::2] for p in query.split("&") if p).get("v")
        rel = path.replace("\\", "/").lstrip("/")
        fresh = given is not None and given == asset_hash(rel, Path(str(self.directory)))
        response.headers["Cache-Control"] = IMMUTABLE if fresh else REVALIDATE
        return response
