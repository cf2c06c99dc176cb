"""Embed snippets and oEmbed: the iframe HTML for a figure in a state, and the discovery link.

One place builds the ``<iframe>`` that the page's "Embed" button copies, the oEmbed
response's ``html`` and the docs' examples, so they never disagree. An embed URL is
``/embed/<figure>?<state query>``; a page URL names its figure in the query
(``/?<state query>&fig=7#fig-7``) or, in links older than that, only in the fragment
(``#fig-7``; default Figure 6, the weight matrix); a lab page likewise with
``?figure=<name>`` or ``#<name>``. The page's discovery link can only carry the query
(browsers never send the fragment), so it keeps a figure the query names, and drops one
that cannot be embedded, which falls back to the default figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any
from urllib.parse import SplitResult, parse_qsl, quote, urlencode, urlsplit

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import JSONResponse

from app.figures.labs import get_lab
from app.figures.registry import BUILT_FIGURES
from app.http.embed_height import figure_height
from app.http.mount import path_in_app
from app.http.responses import site_base
from app.inputs.errors import FieldError, error_detail
from app.inputs.fields import printable
from app.inputs.lab_controls import FIGURE_KEY as LAB_FIGURE_KEY
from app.inputs.lab_controls import lab_figure
from app.inputs.link import FIGURE_KEY, page_figure
from app.inputs.query import path_int, shown

PROVIDER_NAME = "Attention Lab"
DEFAULT_FIGURE = 6
DEFAULT_WIDTH = 720
EDITOR_HEIGHT = 260
CONTROLS_HEIGHT = 48
# Query keys an embed understands: the shared URL state plus the embed options.
EMBED_KEYS = ("preset", "s", "focus", "head", "stretch", "row", "theme", "editable", "controls")
# A real model's head is named by its short link (app.web.model_link: model, text, layer,
# head counted from 1), not by its state, and its view.
HEAD_EMBED_KEYS = ("model", "text", "layer", "head", "focus", "stretch", "row", "theme")


class OEmbedError(ValueError):
    """A URL this site cannot embed (status 404) or an unsupported request (501)."""

    def __init__(self, status: int, field: str, message: str) -> None:
        super().__init__(message)
        self.status, self.field, self.message = status, field, message


def embed_query(params: Mapping[str, str]) -> str:
    """The embed options and state from ``params``, in a fixed order, others dropped."""
    keys = HEAD_EMBED_KEYS if "model" in params else EMBED_KEYS
    return urlencode([(k, params[k]) for k in keys if params.get(k)])


def embed_path(figure: int, params: Mapping[str, str]) -> str:
    query = embed_query(params)
    return f"/embed/{figure}" + (f"?{query}" if query else "")


def frame_size(
    spec: Mapping[str, Any], params: Mapping[str, str], *, open_title: str,
    maxwidth: int | None = None,
) -> tuple[int, int]:  # fmt: skip
    """The iframe's width (720, or ``maxwidth`` when narrower) and the height the embed
    draws ``spec`` at that width (``app.http.embed_height``), with room for the options."""
    width = DEFAULT_WIDTH if maxwidth is None else max(min(DEFAULT_WIDTH, maxwidth), 200)
    height = figure_height(spec, width, open_text=f"Open in Attention Lab ({open_title})")
    if params.get("editable") == "1":
        height += EDITOR_HEIGHT
    if params.get("controls") or params.get("editable") == "1":
        height += CONTROLS_HEIGHT
    return width, height


def iframe_html(src: str, title: str, width: int, height: int) -> str:
    """The snippet: responsive (``max-width:100%``), titled for screen readers, lazy.
    The title is user text (token labels): printable, then escaped."""
    return (
        f'<iframe src="{escape(src)}" title="{escape(printable(title))}" width="{width}" '
        f'height="{height}" style="border:0;max-width:100%" loading="lazy" '
        f'referrerpolicy="strict-origin-when-cross-origin"></iframe>'
    )


def path_on_site(url_path: str, base_path: str) -> str | None:
    """The app's path of a URL's path on a site mounted at ``base_path`` (its root path,
    "" at the root of the host): ``/embed/3`` for ``/attention/embed/3``; None outside."""
    root, path = base_path.rstrip("/"), url_path or "/"
    if path == root:
        return "/"
    return path[len(root) :] if path.startswith(root + "/") else None


def _not_this_site(base: SplitResult) -> OEmbedError:
    site = base.netloc + base.path.rstrip("/")
    return OEmbedError(404, "url", f"only URLs of this site ({site}) can be embedded")


def parse_site_url(url: str, base_url: str) -> tuple[int, dict[str, str]]:
    """(figure, query params) of a page or embed URL on this site; OEmbedError otherwise."""
    parts, base = urlsplit(url), urlsplit(base_url)
    path = path_on_site(parts.path, base.path)
    if (
        parts.scheme not in {"http", "https"}
        or parts.netloc.lower() != base.netloc.lower()
        or path is None
    ):
        raise _not_this_site(base)
    params = dict(parse_qsl(parts.query))
    if path == "/":
        named = params.pop(FIGURE_KEY, "")  # the query's figure, else the fragment's
        if named:
            number = path_int(named)
            if number is None:
                raise OEmbedError(404, "url", f"the URL's fig: there is no Figure {shown(named)!r}")
            return number, params
        fragment = path_int(parts.fragment.removeprefix("fig-"))
        return (DEFAULT_FIGURE if fragment is None else fragment), params
    number = path_int(path.removeprefix("/embed/"))
    if path.startswith("/embed/") and number is not None:
        return number, params
    raise OEmbedError(404, "url", "the URL is neither the main page (/) nor an embed (/embed/N)")


def parse_lab_url(url: str, base_url: str) -> tuple[str, str | None, dict[str, str]] | None:
    """(lab id, figure or None, query params) of a lab page (``/labs/<id>?figure=<name>``,
    or ``#<name>`` alone) or lab embed (``/embed/labs/<id>/<figure>?…``) URL on this site;
    None for any other path (the figure URLs above); OEmbedError for another site."""
    parts, base = urlsplit(url), urlsplit(base_url)
    path = path_on_site(parts.path, base.path) or ""
    params = dict(parse_qsl(parts.query))
    named = params.pop(LAB_FIGURE_KEY, "")  # the figure a lab page's query names
    figure: str | None
    if path.startswith("/embed/labs/"):
        segments = path.removeprefix("/embed/labs/").split("/")
        if len(segments) != 2 or not all(segments):
            return None
        lab_id, figure = segments
    elif path.startswith("/labs/") and path.count("/") == 2 and path != "/labs/":
        lab_id, figure = path.removeprefix("/labs/"), (named or parts.fragment or None)
    else:
        return None
    if parts.scheme not in {"http", "https"} or parts.netloc.lower() != base.netloc.lower():
        raise _not_this_site(base)
    return lab_id, figure, params


def oembed_response(
    *, src: str, title: str, size: tuple[int, int], provider_url: str,
    maxwidth: int | None, maxheight: int | None,
) -> dict[str, Any]:  # fmt: skip
    """A ``rich`` oEmbed 1.0 response, sized within ``maxwidth`` × ``maxheight``."""
    width, height = size
    if maxwidth is not None:
        width = min(width, maxwidth)
    if maxheight is not None:
        height = min(height, maxheight)
    return {
        "version": "1.0",
        "type": "rich",
        "provider_name": PROVIDER_NAME,
        "provider_url": provider_url,
        "title": printable(title),
        "html": iframe_html(src, title, width, height),
        "width": width,
        "height": height,
    }


def _figure_problem(path: str, params: Mapping[str, str]) -> str | None:
    """The query key of a figure the page's query names but that cannot be embedded
    (``fig`` on the main page, ``figure`` on a lab page), else None."""
    try:
        if path == "/":
            page_figure(params, BUILT_FIGURES)
        elif path.startswith("/labs/") and path.count("/") == 2:
            lab = get_lab(path.removeprefix("/labs/"))
            if lab is not None:
                lab_figure(lab, params)
    except FieldError as exc:
        return exc.field
    return None


def discovered_query(path: str, query: str) -> str:
    """The page's query as its discovery link carries it: as sent, less a figure key
    whose value cannot be embedded (so the discovered embed is the default figure's)."""
    bad = _figure_problem(path, dict(parse_qsl(query, keep_blank_values=True)))
    if bad is None:
        return query
    return "&".join(p for p in query.split("&") if _key(p) != bad)


def _key(pair: str) -> str | None:
    """The key of one ``key=value`` piece of a query, decoded (None for an empty piece)."""
    parsed = parse_qsl(pair, keep_blank_values=True)
    return parsed[0][0] if parsed else None


def oembed_link(request: Request) -> Markup:
    """The ``<link rel="alternate" type="application/json+oembed">`` for this page: its
    URL with the query (``fig=7`` or ``figure=saturation`` names the figure), since the
    fragment never reaches the server.

    A Jinja global: ``{{ oembed_link(request) }}`` in a template's ``<head>``.
    """
    base = site_base(request)
    path = path_in_app(request.scope)  # the base holds the root path already
    query = discovered_query(path, request.url.query)
    page = base + path + (f"?{query}" if query else "")
    href = f"{base}/oembed?url={quote(page, safe='')}&format=json"
    return Markup(
        f'<link rel="alternate" type="application/json+oembed" href="{escape(href)}" '
        f'title="{PROVIDER_NAME}">'
    )


def oembed_error(exc: OEmbedError) -> JSONResponse:
    """An oEmbed refusal in the one error shape, with its status (404 or 501)."""
    body = error_detail(exc.field, exc.message, "oembed", ["query", exc.field])
    return JSONResponse(status_code=exc.status, content=body)
