"""Where the app is mounted: the root path (``/attention`` behind a proxy at
``https://uni.example.edu/attention/``, empty at the root of a host).

The ASGI scope's ``root_path`` is the one source at request time. uvicorn puts its
``--root-path`` there (``attention-lab --root-path /attention`` passes it on); ``MountedAt``
puts ``ATTENTION_LAB_ROOT_PATH`` there when the server gave none, the way uvicorn does, so
that both agree: ``path`` is the public path (the root path included, as the ASGI spec
and Starlette's ``request.url`` expect) and the app's routes see it without the root
(``path_in_app``). The proxy strips the prefix before passing a request on.

Every absolute path the app writes (assets, links, redirects, oEmbed, the pages'
``data-root`` that ``static/js/api.js`` ``siteUrl`` reads) is ``site_path(scope, path)``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


def root_path(scope: Scope) -> str:
    """The app's root path without a trailing slash ("" at the root of a host). Inside a
    mount (``/static``) Starlette keeps the app's own root in ``app_root_path``."""
    root: str = scope.get("app_root_path", scope.get("root_path", ""))
    return root.rstrip("/")


def path_in_app(scope: Scope) -> str:
    """The request's path as the app's routes see it: ``/labs`` for ``/attention/labs``."""
    path: str = scope["path"]
    root = root_path(scope)
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root) :] or "/"
    return path


def site_path(scope: Scope, path: str) -> str:
    """``path`` (absolute inside the app, e.g. ``/labs``) as the browser must ask for it."""
    return root_path(scope) + path


class MountedAt:
    """Serves the app under ``root`` (``ATTENTION_LAB_ROOT_PATH``) when the server set no
    root path of its own: as uvicorn's ``--root-path`` does, the scope gets ``root_path``
    and the prefix goes in front of ``path``. A server's own root path wins."""

    def __init__(self, app: ASGIApp, root: str) -> None:
        self.app = app
        self.root = root

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not scope.get("root_path"):
            scope = {**scope, "root_path": self.root, "path": self.root + scope["path"]}
            if scope.get("raw_path") is not None:
                scope["raw_path"] = self.root.encode("utf-8") + scope["raw_path"]
        await self.app(scope, receive, send)
