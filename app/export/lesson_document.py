"""A lesson as ONE self-contained HTML file that works from ``file://``: ``lesson_html``.

The file is the lesson player of the site with everything inlined: the lesson, every
question's computed answer (``app.lessons.answers``) and every step's figure
descriptions in both themes (a main-page step's figures built here from its planned
state; a lab step's section by ``lab_figure``, which the caller hands over because lab
sections are built in ``app.http``), the stylesheets, the player's modules bundled into
one classic script (``app.export.js_bundle``) and plotly.js once when a step has a
chart. Nothing is fetched and no module is imported from disk. The player dispatches the
same "attention-lesson:progress" events as on the site, so a SCORM adapter beside it
reports completion and score. Lesson text is printed as text (autoescape), and every
script block is escaped (``script_text``, ``json_block``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any
from urllib.parse import parse_qsl

from markupsafe import Markup

from app import __version__
from app.export.html import plotly_source, script_text
from app.export.js_bundle import bundle
from app.figures import build_figures
from app.figures.registry import BY_NUMBER
from app.inputs.resolve import drawable, resolve_plan
from app.lessons.answers import answer_plan
from app.lessons.format import LabState, Lesson, lesson_json, parse_lesson
from app.lessons.states import StepPlan, plan_lesson
from app.paths import static_dir
from app.settings import Settings
from app.templating import environment
from app.wire import json_block

Json = dict[str, Any]
# (lab id, section, the section's query, theme) -> the lab figure as the lab API sends it.
LabFigure = Callable[[str, str, Mapping[str, str], str], Json]
THEMES = ("light", "dark")
STYLES = ("palette.css", "app.css", "grid.css", "figures.css", "labs.css", "lessons.css")
STATIC = tuple(n for n, f in BY_NUMBER.items() if f.kind == "static")
ENTRY = "js/lessons/offline.js"


@cache
def styles() -> str:
    """The site's stylesheets the player uses, in the order the pages link them."""
    return "\n".join((static_dir() / "css" / name).read_text(encoding="utf-8") for name in STYLES)


def _main_step(step_plan: StepPlan, numbers: tuple[int, ...], settings: Settings) -> Json:
    """A main-page step's figures in both themes (Figures 1 and 2 are drawings, not data)."""
    assert step_plan.plan is not None
    resolved = resolve_plan(step_plan.plan)
    drawable(resolved, settings)
    live = tuple(n for n in numbers if n not in STATIC)
    out: Json = {}
    for theme in THEMES:
        data: Json = {"figures": {}, "grids": {}}
        if live:
            view = resolved.link.view.figure_view(theme, live)  # type: ignore[arg-type]
            data = build_figures(resolved.stages, view, plotly=False, defer_tables=False)
        out[theme] = {"kind": "main", "numbers": list(numbers), "figures": data["figures"],
                      "grids": data.get("grids", {})}  # fmt: skip
    return out


def _lab_step(state: LabState, params: Mapping[str, str], lab_figure: LabFigure | None) -> Json:
    if lab_figure is None:
        return {}
    return {theme: {"kind": "lab", "figure": lab_figure(state.lab, state.section, params, theme)}
            for theme in THEMES}  # fmt: skip


def _has_chart(steps: list[Json]) -> bool:
    for by_theme in steps:
        step = by_theme.get("light")
        if not step:
            continue
        if step["kind"] == "lab" and step["figure"].get("plot"):
            return True
        if step["kind"] == "main" and any(not f.get("panels") for f in step["figures"].values()):
            return True
    return False


def lesson_data(lesson: Lesson, settings: Settings, lab_figure: LabFigure | None = None) -> Json:
    """What the offline player reads: the lesson, its answers, each step's figures."""
    plan = plan_lesson(lesson, settings)
    steps: list[Json] = []
    for step, step_plan in zip(lesson.steps, plan.steps, strict=True):
        if isinstance(step.state, LabState):
            steps.append(_lab_step(step.state, dict(parse_qsl(step.state.query)), lab_figure))
        else:
            shown = _main_step(step_plan, step.state.figures, settings)
            if step_plan.change is not None:  # a direction reveal draws the changed state
                after = _main_step(StepPlan(step_plan.cost, step_plan.change), step.state.figures,
                                   settings)  # fmt: skip
                for theme, data in shown.items():
                    data["after"] = after[theme]
            steps.append(shown)
    return {"lesson": lesson_json(lesson), "answers": answer_plan(plan, lab_figure), "steps": steps}


def lesson_html(
    lesson: Lesson | Mapping[str, Any],
    *,
    settings: Settings,
    lab_figure: LabFigure | None = None,
) -> str:
    """The offline HTML file of ``lesson`` (a ``Lesson`` or lesson JSON, checked here);
    ``lab_figure`` builds lab sections (without it a lab step says where to open it)."""
    if not isinstance(lesson, Lesson):
        lesson = parse_lesson(lesson)
    data = lesson_data(lesson, settings, lab_figure)
    statics = sorted({n for s in lesson.steps if not isinstance(s.state, LabState)
                      for n in s.state.figures if n in STATIC})  # fmt: skip
    template = environment.get_template("export/lesson.html")
    return template.render(
        lesson=lesson,
        version=__version__,
        styles=Markup(styles().replace("</", "<\\/")),
        data=Markup(json_block(data)),
        script=Markup(script_text(bundle(ENTRY))),
        plotly=Markup(script_text(plotly_source())) if _has_chart(data["steps"]) else None,
        statics=statics,
        titles={n: BY_NUMBER[n].title for n in statics},
    )
