"""A lab's state: how its query becomes controls, bodies, runs and links.

Shared by both surfaces (the lab API in ``app.api.lab_figures``, the lab page, embed and
oEmbed in ``app.web``): the controls a query sets (``lab_query``, ``extra_keys``), the
attention body a figure reads (``body_of``), how a run is checked and runs
(``experiment_params``, ``build_one``, ``runner``) and the links of a figure (``links``,
``embed_state``: from ``ATTENTION_LAB_PUBLIC_URL`` when set, never from the Host header).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from pydantic import ValidationError

from app.attention import run
from app.figures.labs import FigureContext, Lab, LabFigure
from app.figures.labs.base import BODY_KEYS, state_query
from app.figures.style import theme as theme_named
from app.figures.to_plotly import with_export
from app.figures.view_fields import THEME
from app.http.embed_height import lab_height
from app.http.responses import site_base
from app.inputs.errors import FieldError
from app.inputs.experiments import (
    MAX_CELLS,
    SaturationRequest,
    ScalingTableRequest,
    ScoreVarianceRequest,
)
from app.inputs.lab_controls import FIGURE_KEY, ControlError, figure_values, read_values
from app.inputs.link import parse_query
from app.inputs.resolve import StateError, check_request
from app.labs.experiments import (
    Params,
    experiment_cells,
    run_experiment,
)
from app.settings import Settings

PAGE_KEYS = {"theme"}  # query keys every lab page understands besides its controls
JSON_KEYS = {"theme", "figures", "preview"}
EMBED_HEIGHT = 560
CONTROLS_HEIGHT = 240  # an embed with controls=1
# A page asks for several figures at once, and the admission gate refuses heavy work
# past its limit rather than queueing it: lab requests wait briefly for a slot instead
# (polling, off the event loop), so one reader's page rarely refuses itself; the page
# asks again after a 503. Short, so that a busy server answers within a second (issue
# 16): the old 3 s held 48 looping clients at 3.5 s per refusal.
ADMIT_WAIT_S = 0.75  # how long a lab request waits for a heavy slot before answering 503


REQUESTS: dict[str, type[ScoreVarianceRequest | SaturationRequest | ScalingTableRequest]] = {
    "score-variance": ScoreVarianceRequest,
    "saturation": SaturationRequest,
    "scaling-table": ScalingTableRequest,
}
Results = dict[str, dict[str, Any]]


def run_key(name: str, body: Mapping[str, Any]) -> str:
    return name + json.dumps(body, sort_keys=True)


def experiment_params(fig: LabFigure, name: str, body: Mapping[str, Any]) -> Params:
    """The checked parameters of one run; ControlError names the figure's control (the
    key of the field the API would name) when the body is out of bounds or over budget."""
    try:
        params = REQUESTS[name].model_validate(dict(body)).to_params()
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else "body"
        raise ControlError(field, str(exc.errors()[0]["msg"])) from None
    cells = experiment_cells(params)
    if cells > MAX_CELLS:
        field = "trials" if name == "saturation" else "draws"
        raise ControlError(
            field,
            f"this run costs {cells:,} cells, more than the limit of "
            f"{MAX_CELLS:,}; reduce {field}, the keys or the widths",
        )
    return params


def runner(settings: Settings, fig: LabFigure, results: Results) -> dict[str, Callable[..., Any]]:
    def attention(body: Mapping[str, Any]) -> Any:
        try:
            checked = check_request(dict(body), settings, "body")[0]  # validated and limited
        except StateError as exc:
            raise ControlError("body", exc.message) from None
        return run(checked.to_input())

    def experiment(name: str, body: Mapping[str, Any]) -> dict[str, Any]:
        key = run_key(name, body)
        if key not in results:
            results[key] = run_experiment(experiment_params(fig, name, body))
        return results[key]

    return {"attention": attention, "experiment": experiment}


def named_error(lab: Lab, fig: LabFigure, exc: ControlError) -> ControlError:
    """An error about a run's field, renamed to the page key of the control behind it."""
    keys = lab.keys()
    if (fig.name, exc.key) in keys:
        return ControlError(keys[(fig.name, exc.key)], exc.message)
    return exc


def theme_of(params: Mapping[str, str]) -> str:
    value = params.get("theme", THEME.default)
    problem = THEME.problem(value)
    if problem is not None:
        raise ControlError("theme", problem)
    return value


def body_of(params: Mapping[str, str], settings: Settings) -> dict[str, Any]:
    """The main-page attention state a ``uses_body`` figure reads (``preset`` or ``s``;
    default: the running example), validated and limited as the API does, and within
    the figure limits (``MAX_FIGURE_TOKENS``, ``MAX_FIGURE_WIDTH``): it is drawn."""
    given = {k: params[k] for k in BODY_KEYS if params.get(k)}
    try:
        link = parse_query(given)
    except FieldError as exc:
        raise ControlError(exc.field, exc.message) from None
    key = "s" if "s" in given else "preset"
    try:
        check_request(link.body, settings, key, figures=1)
    except StateError as exc:
        raise ControlError(key, exc.message) from None
    return dict(link.body)


def extra_keys(lab: Lab) -> set[str]:
    """Query keys a lab page understands besides its controls."""
    uses_body = any(f.uses_body for f in lab.figures)
    return PAGE_KEYS | (set(BODY_KEYS) if uses_body else set())


def build_one(
    lab: Lab,
    fig: LabFigure,
    params: Mapping[str, str],
    theme: str,
    settings: Settings,
    *,
    preview: bool = False,
    embed: bool = False,
    results: Results | None = None,
) -> dict[str, Any]:
    """One figure's description for the query ``params`` (ControlError when bad), its
    chart's texts in Plotly's markup (``with_export``: the one place, for the page, embeds
    and exports). ``results`` holds experiment runs already made (the streamed path)."""
    values = figure_values(lab, fig, params, embed=embed)
    body = body_of(params, settings) if fig.uses_body else None
    run = runner(settings, fig, {} if results is None else results)
    others = read_values(lab, fig, params, embed=embed)
    ctx = FigureContext(
        theme=theme_named(theme), preview=preview, run=run, body=body, others=others
    )
    try:
        return with_export(fig.build(values, ctx), theme)
    except ControlError as exc:
        raise named_error(lab, fig, exc) from None


def values_text(lab: Lab, fig: LabFigure, values: Mapping[str, Any]) -> dict[str, str]:
    keys = lab.keys()
    return {keys[(fig.name, c.name)]: c.encode(values[c.name]) for c in fig.controls}


def lab_query(lab: Lab, params: Mapping[str, str]) -> dict[str, str]:
    """The canonical page query for ``params``: controls that differ from their default,
    then the theme when it is not ``auto``."""
    values = {f.name: figure_values(lab, f, params) for f in lab.figures}
    extra = {k: params[k] for k in BODY_KEYS if params.get(k)}
    if params.get("theme", "auto") != "auto":
        extra["theme"] = params["theme"]
    return state_query(lab, values, extra)


_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def escape(text: str) -> str:
    """``text`` safe in an HTML attribute (the same entities as markupsafe, which the
    neutral layer does not import: snippets stay byte-identical)."""
    return text.translate(_ATTRIBUTE)


def figure_link(query: Mapping[str, str], name: str) -> str:
    """A lab page's query and fragment for one figure: the state, then ``figure=<name>``
    (what the server reads: the discovery link embeds it) and ``#<name>`` (the scroll)."""
    return urlencode({**query, FIGURE_KEY: name}) + f"#{name}"


def embed_height(lab: Lab, fig: LabFigure, spec: Mapping[str, Any] | None, width: int = 720) -> int:
    """The height the figure's embed draws ``spec`` at ``width`` px
    (``app.http.embed_height``); ``EMBED_HEIGHT`` when no figure was built."""
    if spec is None:
        return EMBED_HEIGHT
    return lab_height(spec, width, entry=fig.entry, badges=fig.badges,
                      open_text=f"Open in Attention Lab ({lab.title})")  # fmt: skip


def links(
    request: Request, lab: Lab, fig: LabFigure, query: Mapping[str, str],
    spec: Mapping[str, Any] | None = None,
) -> dict[str, str]:  # fmt: skip
    """The figure's link (the page, scrolled to it) and its iframe snippet, as tall as
    the embed draws ``spec`` (the figure just built)."""
    base = site_base(request)
    q = urlencode(query)
    src = f"{base}/embed/labs/{lab.id}/{fig.name}" + (f"?{q}" if q else "")
    title = f"Attention Lab, {fig.entry}: {fig.title}"
    iframe = (
        f'<iframe src="{escape(src)}" title="{escape(title)}" width="720" '
        f'height="{embed_height(lab, fig, spec)}" style="border:0;max-width:100%" '
        'loading="lazy"></iframe>'
    )
    return {
        "link": f"{base}/labs/{lab.id}?{figure_link(query, fig.name)}",
        "embed": iframe,
        "embed_url": src,
    }


def embed_state(lab: Lab, fig: LabFigure, params: Mapping[str, str]) -> dict[str, str]:
    """The canonical query of one figure's embed: its controls that differ from the
    default (page keys), those of the figures it ``reads`` (their state is drawn too),
    the main-page state it reads, and the theme unless ``auto``."""
    values = {fig.name: figure_values(lab, fig, params, embed=True)}
    values.update(read_values(lab, fig, params, embed=True))
    extra = {k: params[k] for k in BODY_KEYS if fig.uses_body and params.get(k)}
    if params.get("theme", "auto") != "auto":
        extra["theme"] = params["theme"]
    if params.get("controls") == "1":
        extra["controls"] = "1"
    return state_query(lab, values, extra)
