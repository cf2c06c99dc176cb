"""What ``attention-lab export`` is asked to export: a page state and some of Figures 1–13,
or a lab and some of its figures, read from a URL (page, embed, lab or lab embed; its
``#fragment`` included), a query, or a JSON request body, and ``--figure``.

Anything it cannot export is refused with a ``StateError`` naming what is wrong (an
unknown path, fragment, figure or lab), never guessed: a lab URL is never read as the
page, and ``fig=7`` (or, in older links, ``#fig-7``) is Figure 7.

    /?preset=causal              the page: every figure (or --figure N)
    /?preset=causal&fig=7#fig-7  Figure 7           /embed/7?...     Figure 7
    /?preset=causal#fig-7        Figure 7 (an older link: the fragment alone)
    /labs/masks?...              every figure of the lab (one file)
    /labs/masks?figure=mask-kinds#mask-kinds, or /labs/masks?...#mask-kinds: that figure
                                 (also /embed/labs/masks/mask-kinds?...)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from app.figures.labs import get_lab
from app.inputs.export_plan import ALL, page_figures
from app.inputs.lab_controls import FIGURE_KEY as LAB_FIGURE_KEY
from app.inputs.link import FIGURE_KEY
from app.inputs.resolve import StateError

_FIG = re.compile(r"fig-(\d+)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


@dataclass(frozen=True)
class Target:
    """A page state and figures (``lab`` None), or a lab and its figures (None: all)."""

    params: dict[str, str]
    figures: tuple[int, ...] = ()
    lab: str | None = None
    lab_figures: tuple[str, ...] | None = None


def is_url(text: str) -> bool:
    """A URL or a query string (not a file name)."""
    return bool(_SCHEME.match(text)) or text.startswith("?")


def _strip_root(path: str, root: str) -> str:
    root = root.rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root) :] or "/"
    return path


def _page(params: dict[str, str], named: tuple[int, ...] | None, figure: str | None) -> Target:
    given = page_figures(figure, "--figure") if figure is not None else None
    if named is not None and given is not None and given != named:
        raise StateError("--figure", f"--figure {figure} disagrees with the URL, which names "
                         f"Figure {', '.join(map(str, named))}")  # fmt: skip
    return Target(params, given or named or page_figures(None))


def _lab(params: dict[str, str], lab_id: str, name: str | None, figure: str | None) -> Target:
    lab = get_lab(lab_id)
    if lab is None or lab.status != "ready":
        raise StateError("--state", f"the URL names a lab {lab_id!r} that does not exist or has "
                         "no figures yet; see /labs")  # fmt: skip
    names = [f.name for f in lab.figures]
    wanted = None if figure in (None, ALL) else figure
    if name and wanted and name != wanted:
        raise StateError("--figure", f"--figure {figure} disagrees with the URL, which names "
                         f"the lab figure {name!r}")  # fmt: skip
    chosen = wanted or name
    if chosen is not None and chosen not in names:
        where = "--figure" if wanted else "--state"
        raise StateError(where, f"the lab {lab_id!r} has no figure {chosen!r}; its figures are "
                         f"{', '.join(names)}")  # fmt: skip
    return Target(params, lab=lab_id, lab_figures=(chosen,) if chosen else None)


def url_target(text: str, figure: str | None, root: str = "") -> Target:
    """The target of a page, embed, lab or lab-embed URL, or of a bare query."""
    parts = urlsplit(text.strip())
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    fragment = parts.fragment
    path = _strip_root(parts.path or "/", root)
    segments = [s for s in path.split("/") if s]
    if not segments:  # the query's figure (a link's), else the fragment's
        query_fig = params.pop(FIGURE_KEY, "")
        named = page_figures(query_fig, "fig") if query_fig else _page_fragment(fragment)
        return _page(params, named, figure)
    if segments[0] == "embed" and len(segments) == 2 and segments[1].isdigit():
        return _page(params, page_figures(segments[1], "--state"), figure)
    if segments[0] == "labs" and len(segments) == 2:
        lab_figure = params.pop(LAB_FIGURE_KEY, "") or fragment
        return _lab(params, segments[1], lab_figure or None, figure)
    if segments[:2] == ["embed", "labs"] and len(segments) == 4:
        return _lab(params, segments[2], segments[3], figure)
    if segments == ["labs"]:
        raise StateError("--state", "the URL is the list of labs, which has no figures; give a "
                         "lab's URL such as /labs/masks")  # fmt: skip
    hint = "" if root else " (behind a sub-path? pass --root-path)"
    raise StateError("--state", f"the URL's path {path!r} is not an Attention Lab page, embed "
                     f"or lab{hint}")  # fmt: skip


def _page_fragment(fragment: str) -> tuple[int, ...] | None:
    if fragment in ("", "figures"):
        return None
    found = _FIG.fullmatch(fragment)
    if found is None:
        raise StateError("--state", f"the URL's fragment #{fragment} is not a figure; use "
                         "#fig-1 … #fig-13, or no fragment for every figure")  # fmt: skip
    return page_figures(found.group(1), "--state")


def body_target(params: dict[str, str], figure: str | None) -> Target:
    """A JSON request body's (or a preset's) state: the figures ``--figure`` names."""
    return _page(params, None, figure)
