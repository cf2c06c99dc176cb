"""The oEmbed answer for a lab page (``/labs/{id}?…#{figure}``) or a lab embed URL
(``/embed/labs/{id}/{figure}?…``): the same iframe as the figure's Embed button, from the
site's public address. ``app.web.embed``'s ``/oembed`` calls it. The state is checked and
its main-page state validated, as the embed would; the figure is laid out from its
preview build (the page's quick first draw: the same grids and chart, experiments at
their preview size) for its height (``app.http.embed_height``)."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import JSONResponse

from app.figures.labs import get_lab
from app.http.lab_state import (
    CONTROLS_HEIGHT,
    body_of,
    build_one,
    embed_height,
    embed_state,
    theme_of,
)
from app.http.pipeline import priced
from app.http.responses import settings_of
from app.inputs.lab_controls import ControlError
from app.inputs.limits import Cost
from app.web.oembed import DEFAULT_WIDTH, OEmbedError, oembed_error, oembed_response


def lab_oembed(
    request: Request,
    lab_id: str,
    figure: str | None,
    params: dict[str, str],
    *,
    base: str,
    bounds: tuple[int | None, int | None],
) -> JSONResponse:
    """The oEmbed answer for a lab page (its ``#figure``, default the first) or a lab
    embed URL: the same iframe as the figure's Embed button. Nothing runs; the state is
    checked (a bad value is a 404 naming ``url``, as for the figures)."""
    try:
        lab = get_lab(lab_id)
        if lab is None or lab.status != "ready":
            raise OEmbedError(404, "url", f"there is no lab {lab_id!r} with figures to embed")
        fig = lab.figure(figure) if figure else lab.figures[0]
        if fig is None:
            names = ", ".join(f.name for f in lab.figures)
            raise OEmbedError(404, "url", f"the lab {lab_id} has no figure {figure!r} ({names})")
        try:
            theme = theme_of(params)
            query = embed_state(lab, fig, params)
            if fig.uses_body:
                body_of(params, settings_of(request))
            drawn = "light" if theme == "auto" else theme
            spec = build_one(lab, fig, params, drawn, settings_of(request), preview=True,
                             embed=True)  # fmt: skip
        except ControlError as exc:
            raise OEmbedError(404, "url", f"the URL's {exc.key}: {exc.message}") from None
    except OEmbedError as exc:
        return oembed_error(exc)
    priced(request, Cost(0, 0))  # a snippet from the checked query and a preview build
    q = urlencode(query)
    width = DEFAULT_WIDTH if bounds[0] is None else max(min(DEFAULT_WIDTH, bounds[0]), 200)
    src = f"{base}/embed/labs/{lab.id}/{fig.name}" + (f"?{q}" if q else "")
    title = f"Attention Lab, {fig.entry}: {fig.title}"
    height = embed_height(lab, fig, spec, width) + (CONTROLS_HEIGHT if "controls" in query else 0)
    answer = oembed_response(
        src=src,
        title=title,
        size=(width, height),
        provider_url=base + "/",
        maxwidth=bounds[0],
        maxheight=bounds[1],
    )
    return JSONResponse(answer)
