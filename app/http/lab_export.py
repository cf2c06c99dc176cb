"""A lab's figures as files: the offline HTML of a whole lab or of some of its sections,
and the SVG of a section drawn as number grids.

Both the API (``GET /api/v1/labs/{id}/export.html`` and ``export.svg``, in
``app.api.export``) and ``attention-lab export`` (given a lab URL) take this path: the
query parsed and every figure priced by ``Ask`` (as the lab API does), then the figures
built (experiments run, seeded) and written by ``app.export``.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

from starlette.requests import Request

from app.export.grid_svg import Picture, lab_svg
from app.export.html import document_html, lab_section
from app.figures.labs import Lab, get_lab
from app.http.lab_answer import Ask
from app.http.lab_state import build_one
from app.inputs.lab_controls import ControlError
from app.settings import Settings


class NoLabError(ControlError):
    """No lab of that id with figures (a 404)."""


def lab_named(lab_id: str) -> Lab:
    lab = get_lab(lab_id)
    if lab is None or lab.status != "ready":
        raise NoLabError("lab_id", f"there is no lab {lab_id!r} with figures")
    return lab


def ask_for(
    lab: Lab,
    request: Request | None = None,
    *,
    query: Mapping[str, str] | None = None,
    settings: Settings | None = None,
) -> Ask:
    """The checked request (ControlError naming the key; ``figures`` for an unknown one)."""
    return Ask(lab, request, query=query, settings=settings)


def _built(ask: Ask) -> list[dict[str, object]]:
    out = []
    for fig in ask.figures:
        out.append(build_one(ask.lab, fig, ask.state, ask.theme, ask.settings))
    return out


def lab_html(ask: Ask) -> str:
    """The offline HTML of the figures ``ask`` names (a whole lab when it names none)."""
    sections = [lab_section(fig, ask.theme) for fig in _built(ask)]
    whole = len(ask.figures) == len(ask.lab.figures)
    q = urlencode(ask.query)
    fragment = "" if whole else f"#{ask.figures[0].name}"
    title = ask.lab.title if whole or len(ask.figures) > 1 else f"{ask.lab.title} (lab)"
    reopen = f"/labs/{ask.lab.id}" + (f"?{q}" if q else "") + fragment
    return document_html(sections, theme=ask.theme, title=title, reopen=reopen)


def lab_picture(ask: Ask) -> Picture:
    """The SVG of the one figure ``ask`` names, which must be drawn as number grids."""
    if len(ask.figures) != 1:
        raise ControlError("figures", "name one figure of the lab to draw as SVG")
    fig = _built(ask)[0]
    if not fig.get("grids"):
        name = ask.figures[0].name
        raise ControlError(
            "figures",
            f"{name} is a chart, not number grids: save it with the page's PNG or SVG "
            "button, or export it as HTML",
        )
    return lab_svg(fig, ask.theme)


def export_lab(
    lab_id: str,
    query: Mapping[str, str],
    figures: tuple[str, ...] | None,
    fmt: str,
    settings: Settings,
) -> bytes:
    """``attention-lab export`` of a lab URL: the same checks and price as the API's, in
    process (ControlError naming the key; ``lab_id`` for an unknown lab)."""
    params = {k: v for k, v in query.items() if k != "figures"}
    if figures:
        params["figures"] = ",".join(figures)
    ask = ask_for(lab_named(lab_id), query=params, settings=settings)
    ask.price()
    return (lab_html(ask) if fmt == "html" else lab_picture(ask).svg).encode()
